"""Any OpenAI-compatible chat API: OpenAI itself, vLLM, Ollama, llama.cpp's server, `transformers serve`.

Images travel as base64 PNG data URLs. Timeouts and retries are the `openai` client's own
(exponential backoff that honours Retry-After, on 408/409/429, 5xx and dropped connections): a
server must connect within the first-byte timeout, and a streamed reply may fall silent no longer
than that (the first piece included), so a server that accepts and never replies is cut off soon;
a whole unstreamed reply may take the request timeout.
Failures become one-line `BackendError`s that say what to do and whether retrying later can help
(timeouts, rate limits, 5xx, dropped connections); the API key never appears in them, in `repr()`
or in logs. They give the HTTP status but not the server's own words, which go to the log: an
error body can hold what its server should not tell the person asking (the app shows these
messages to its visitors). A backend over an `untrusted` base URL (one a visitor named) connects to
public addresses only and reports every failure in the same words, so the app is no probe of which
ports answer where.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from spiqa_demo.errors import BackendError
from spiqa_demo.models.base import Message, NextTokenLogprobs, TokenLogprob, Usage
from spiqa_demo.models.endpoints import OPENAI_URL
from spiqa_demo.models.images import data_url
from spiqa_demo.models.stopping import Stopped, current_stop
from spiqa_demo.paper_text import one_line

log = logging.getLogger(__name__)

# OpenAI's documented cost of one image at full ("high") and low detail; other servers differ.
IMAGE_TOKENS_FULL = 765
IMAGE_TOKENS_SMALL = 85
CHARS_PER_TOKEN = 4  # a rough average for English prose
MAX_TOP_LOGPROBS = 20  # OpenAI's and vLLM's default cap
# Statuses below 500 that the client itself retries: the same request may succeed later.
RETRYABLE_STATUS = frozenset({408, 409, 429})


class OpenAIBackend:
    """A `ModelBackend` over an OpenAI-compatible `/v1/chat/completions` endpoint."""

    def __init__(
        self,
        model: str,
        base_url: str = "",
        api_key: str = "",
        image_size: int = 0,
        max_images: int = -1,
        context_tokens: int = 128_000,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        untrusted: bool = False,
        first_byte_timeout_s: float = 30.0,
        organization: str = "",
        project: str = "",
    ) -> None:
        import openai

        from spiqa_demo.models.connections import model_http_client

        self.base_url = (base_url or OPENAI_URL).rstrip("/")
        if not api_key and self.base_url == OPENAI_URL:
            raise BackendError(
                "no API key for the OpenAI API: set SPIQA_API_KEY or OPENAI_API_KEY, "
                "or give --base-url for a local OpenAI-compatible server",
                retryable=False,
            )
        self.name = model
        self.image_size = image_size
        self.supports_images = max_images != 0
        self.max_images = None if max_images < 0 else max_images
        self.context_tokens = context_tokens
        self.timeout_s = timeout_s
        self.first_byte_timeout_s = min(first_byte_timeout_s, timeout_s)
        self.max_retries = max_retries
        self.untrusted = untrusted
        self._secret = api_key
        self._streamed = openai.Timeout(timeout_s, connect=self.first_byte_timeout_s, read=self.first_byte_timeout_s)
        # Given or left out, never read from the environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID) by the
        # client: they are the operator's identity, for the operator's endpoint only (`load_backend`).
        identity: dict[str, Any] = {"OpenAI-Organization": organization or openai.Omit(),
                                    "OpenAI-Project": project or openai.Omit()}
        # Local servers ignore the key, but the client insists on one.
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=api_key or "none", max_retries=max_retries,
            timeout=openai.Timeout(timeout_s, connect=self.first_byte_timeout_s),
            http_client=model_http_client(untrusted),
            default_headers=identity,
        )

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.name!r}, base_url={self.base_url!r})"

    # ---- the ModelBackend interface

    def generate(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> str:
        response = self._call(**self._request(messages, max_new_tokens))
        _fill_usage(usage, response)
        if not response.choices:
            return ""
        return str(response.choices[0].message.content or "")

    def stream(self, messages: list[Message], max_new_tokens: int = 512, usage: Usage | None = None) -> Iterator[str]:
        return self._stream(self._request(messages, max_new_tokens), usage)

    def next_token_logprobs(
        self, messages: list[Message], candidates: list[str] | None = None, top_k: int = 5
    ) -> NextTokenLogprobs:
        import openai

        no_logprobs = (
            f"the server at {self.base_url} returns no log-probs for {self.name!r} "
            "(logprobs/top_logprobs unsupported); use OpenAI, vLLM, llama.cpp's server or Ollama, "
            "or a local model"
        )
        try:
            response = self._call(
                messages=self._messages(messages),
                max_tokens=1,
                temperature=0,
                logprobs=True,
                top_logprobs=max(1, min(top_k, MAX_TOP_LOGPROBS)),
            )
        except BackendError as exc:
            if isinstance(exc.__cause__, openai.BadRequestError) and "logprob" in str(exc.__cause__).lower():
                return NextTokenLogprobs(top=[], model=self.name, note=no_logprobs)
            raise
        choice = response.choices[0] if response.choices else None
        content = getattr(getattr(choice, "logprobs", None), "content", None)
        model = getattr(response, "model", "") or self.name
        if not content or not content[0].top_logprobs:
            return NextTokenLogprobs(top=[], model=model, note=no_logprobs)
        top = [TokenLogprob(t.token, float(t.logprob)) for t in content[0].top_logprobs]
        known = {t.token: t.logprob for t in top}
        exact = {c: known[c] for c in candidates or [] if c in known}
        return NextTokenLogprobs(top=top, candidates=exact, model=model)

    def count_tokens(self, messages: list[Message]) -> int:
        """An estimate: characters / 4 plus OpenAI's per-image cost."""
        per_image = IMAGE_TOKENS_SMALL if 0 < self.image_size <= 512 else IMAGE_TOKENS_FULL
        chars = sum(len(m.text) for m in messages)
        return chars // CHARS_PER_TOKEN + per_image * sum(len(m.images) for m in messages) + 4 * len(messages)

    # ---- requests

    def _request(self, messages: list[Message], max_new_tokens: int) -> dict[str, Any]:
        """A greedy chat request; checked here, so a bad chat fails when the call is made, streaming or not."""
        return {"messages": self._messages(messages), "max_tokens": max_new_tokens, "temperature": 0}

    def _messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        if not self.supports_images and any(m.images for m in messages):
            raise BackendError(
                f"model {self.name!r} is configured as text-only and cannot read figure images", retryable=False
            )
        out: list[dict[str, Any]] = []
        for m in messages:
            if not m.images:
                out.append({"role": m.role, "content": m.text})
                continue
            content = [
                {"type": "text", "text": p}
                if isinstance(p, str)
                else {"type": "image_url", "image_url": {"url": data_url(p, self.image_size)}}
                for p in m.parts
            ]
            out.append({"role": m.role, "content": content})
        return out

    def _call(self, **request: Any) -> Any:
        import openai

        try:
            return self._client.chat.completions.create(model=self.name, **request)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def _stream(self, request: dict[str, Any], usage: Usage | None) -> Iterator[str]:
        """The reply's pieces; however the reading ends (closed by its reader, stopped from another
        thread, failed) the request is closed at once, so the server stops sending (and billing).
        A stop from another thread hangs up the connection while it waits, for the headers or a
        piece (`connections`), and ends the reading in `Stopped`."""
        import openai

        stop = current_stop()
        if stop is not None and stop.stopped:
            raise Stopped()
        try:
            chunks = self._client.chat.completions.create(model=self.name, **request, stream=True, timeout=self._streamed)
        except openai.OpenAIError as exc:
            raise self._error(exc, streamed=True) from exc
        try:
            for chunk in chunks:
                _fill_usage(usage, chunk)
                if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except openai.OpenAIError as exc:
            raise self._error(exc, streamed=True) from exc
        finally:
            chunks.close()  # the stream would otherwise stay open until garbage collection finds it

    def _error(self, exc: Exception, streamed: bool = False) -> BackendError:
        """A one-line message for people, with the status but not the server's words (logged, without
        the key). `streamed`: a timeout was the first-byte one."""
        import openai

        where = self.base_url
        status = getattr(exc, "status_code", None)
        detail = _short(getattr(exc, "message", "") or str(exc)).replace(self._secret or "\0", "***")
        log.log(logging.INFO if self.untrusted else logging.WARNING, "model %r at %s failed (HTTP %s): %s",
                self.name, where, status, detail)
        if self.untrusted:
            return BackendError(
                f"no answer from {where}: the app does not say why for an address a visitor named "
                "(check the URL, the model name and the key)",
                retryable=False,
            )
        if isinstance(exc, openai.AuthenticationError):
            return BackendError(
                f"the server at {where} rejected the API key (HTTP 401): set a valid SPIQA_API_KEY or OPENAI_API_KEY",
                retryable=False,
            )
        if isinstance(exc, openai.PermissionDeniedError):
            return BackendError(f"the API key has no access to model {self.name!r} at {where} (HTTP 403)", retryable=False)
        if isinstance(exc, openai.NotFoundError):
            return BackendError(
                f"model {self.name!r} or its endpoint was not found at {where} (HTTP 404): check the model "
                "name and that the base URL ends in /v1",
                retryable=False,
            )
        if isinstance(exc, openai.RateLimitError):
            return BackendError(
                f"rate-limited by {where} (HTTP 429) after {self.max_retries} retries: wait a minute and try again",
                retryable=True,
            )
        if isinstance(exc, openai.APITimeoutError):
            limit, setting = ((self.first_byte_timeout_s, "SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S") if streamed
                              else (self.timeout_s, "SPIQA_REQUEST_TIMEOUT_S"))
            return BackendError(
                f"no reply from {where} within {limit:g} s ({self.max_retries} retries): "
                f"the server is hung or overloaded ({setting} sets the limit)",
                retryable=True,
            )
        if isinstance(exc, openai.APIConnectionError):
            return BackendError(f"cannot reach {where}: is the server running and the URL right?", retryable=True)
        if isinstance(exc, openai.BadRequestError):
            return BackendError(
                f"{where} refused the request for model {self.name!r} (HTTP 400; the reason it gave is logged)",
                retryable=False,
            )
        if isinstance(exc, openai.APIStatusError):
            return BackendError(
                f"{where} failed with HTTP {status} for model {self.name!r} (the reason it gave is logged)",
                retryable=status in RETRYABLE_STATUS or (status is not None and status >= 500),
            )
        return BackendError(f"the API at {where} failed (the reason is logged)", retryable=False)


def _fill_usage(usage: Usage | None, response: Any) -> None:
    counts = getattr(response, "usage", None)
    if usage is not None and counts is not None:
        usage.prompt_tokens = counts.prompt_tokens
        usage.completion_tokens = counts.completion_tokens


def _short(text: str, limit: int = 300) -> str:
    return one_line(str(text), limit)
