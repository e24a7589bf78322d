"""The OpenAI-compatible backend against a real `transformers serve` on 127.0.0.1, and its failure modes.

Error paths use tiny real HTTP servers on loopback that answer 401 / 429 / nothing at all; the
429 one forwards to the real server once it has rate-limited, so retries end in a real reply.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import openai
import pytest
from tiny_models import Server, served_cot_vlm, tiny_cot_vlm

from evalsuite.local_servers import free_port
from evalsuite.tiny_models import COT_REPLY, make_image
from spiqa_demo.errors import BackendError, PaperError
from spiqa_demo.models import load_backend
from spiqa_demo.models.base import Message, ModelBackend, Usage
from spiqa_demo.models.openai_api import OpenAIBackend
from spiqa_demo.settings import get_settings

SECRET = "sk-test-0123456789abcdef"

Reply = tuple[int, dict[str, str], bytes]


@contextmanager
def scripted_server(respond: Callable[[BaseHTTPRequestHandler, bytes], Reply]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 whose POST replies come from `respond`; yields its /v1 URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, headers, payload = respond(self, body)
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def hanging_server() -> Iterator[str]:
    """Accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


def figure_messages(n_images: int) -> list[Message]:
    parts: list = ["You are given a question and a few input images. "]
    for i in range(n_images):
        parts += [f"Image {i}: ", make_image(i), f"Caption {i}: Figure {i + 1}.\n\n"]
    return [Message("user", [*parts, "Question: which image helps?"])]


@pytest.fixture(scope="module")
def api(served_cot_vlm: Server) -> OpenAIBackend:
    backend = load_backend(backend="openai", base_url=served_cot_vlm.base_url, model=served_cot_vlm.model)
    assert isinstance(backend, OpenAIBackend)
    return backend


# ---- the real server


def test_images_travel_as_data_urls_and_the_model_answers(api: OpenAIBackend, tiny_cot_vlm: Path) -> None:
    assert isinstance(api, ModelBackend) and api.supports_images and api.max_images is None
    usage = Usage()
    assert api.generate(figure_messages(2), max_new_tokens=40, usage=usage) == COT_REPLY
    # The server saw both images: its prompt is exactly what the same model builds locally.
    local = load_backend(backend="local", model=str(tiny_cot_vlm))
    assert usage.prompt_tokens == local.count_tokens(figure_messages(2))
    assert usage.prompt_tokens > local.count_tokens(figure_messages(0))
    assert usage.completion_tokens
    content = api._messages(figure_messages(1))[0]["content"]
    assert [part["type"] for part in content] == ["text", "text", "image_url", "text", "text"]
    assert content[2]["image_url"]["url"].startswith("data:image/png;base64,")


def test_streaming(api: OpenAIBackend) -> None:
    usage = Usage()
    chunks = list(api.stream(figure_messages(3), max_new_tokens=40, usage=usage))
    assert "".join(chunks) == COT_REPLY
    assert usage.completion_tokens


def test_text_only_turns_and_system_messages(api: OpenAIBackend) -> None:
    messages = [Message("system", ["Be brief."]), Message("user", ["Is it good?"])]
    assert api.generate(messages, max_new_tokens=40) == COT_REPLY
    assert api.count_tokens(messages) > 0


def test_a_server_without_log_probs_says_so(api: OpenAIBackend) -> None:
    result = api.next_token_logprobs([Message("user", ["Yes or No?"])], candidates=["Yes", "No"])
    assert result.top == [] and result.candidates == {}
    assert "returns no log-probs" in result.note


def test_an_unknown_model_name_is_a_clear_error(served_cot_vlm: Server) -> None:
    backend = load_backend(backend="openai", base_url=served_cot_vlm.base_url, model="no/such-model", max_retries=0)
    with pytest.raises(BackendError, match=r"no/such-model") as caught:
        backend.generate([Message("user", ["hi"])], max_new_tokens=4)
    assert not caught.value.retryable


def test_429_is_retried_until_the_real_server_answers(served_cot_vlm: Server) -> None:
    upstream = served_cot_vlm.base_url.removesuffix("/v1")
    calls: list[bytes] = []

    def rate_limit_once(handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        calls.append(body)
        if len(calls) == 1:
            error = {"error": {"message": "Rate limit reached", "type": "requests"}}
            return 429, {"retry-after-ms": "50"}, json.dumps(error).encode()
        request = urllib.request.Request(upstream + handler.path, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, {}, reply.read()

    with scripted_server(rate_limit_once) as url:
        backend = load_backend(backend="openai", base_url=url, model=served_cot_vlm.model, max_retries=2)
        assert backend.generate(figure_messages(1), max_new_tokens=40) == COT_REPLY
    assert len(calls) == 2 and calls[0] == calls[1]
    assert b"data:image/png;base64," in calls[1]


# ---- failures, on real sockets


def test_rate_limits_that_persist_give_a_clear_message() -> None:
    def always_429(handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        return 429, {"retry-after-ms": "10"}, b'{"error": {"message": "slow down"}}'

    with scripted_server(always_429) as url:
        backend = load_backend(backend="openai", base_url=url, model="m", max_retries=1)
        with pytest.raises(BackendError, match=r"rate-limited .* \(HTTP 429\) after 1 retries") as caught:
            backend.generate([Message("user", ["hi"])])
    assert caught.value.retryable  # waiting can help


def test_a_rejected_key_is_reported_without_echoing_it() -> None:
    seen: list[str] = []

    def unauthorized(handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        seen.append(handler.headers.get("Authorization", ""))
        error = {"error": {"message": f"Incorrect API key provided: {SECRET}", "code": "invalid_api_key"}}
        return 401, {}, json.dumps(error).encode()

    with scripted_server(unauthorized) as url:
        backend = load_backend(backend="openai", base_url=url, model="m", api_key=SECRET, max_retries=2)
        with pytest.raises(BackendError, match=r"rejected the API key") as caught:
            backend.generate([Message("user", ["hi"])])
    assert not caught.value.retryable  # the same key fails the same way
    assert seen == [f"Bearer {SECRET}"]  # sent once (401 is not retried) and only in the header
    assert SECRET not in str(caught.value) and SECRET not in repr(backend)


def test_server_errors_give_the_status_and_log_the_servers_words_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    def broken(handler: BaseHTTPRequestHandler, body: bytes) -> Reply:
        return 400, {}, json.dumps({"error": {"message": f"INTERNAL-SECRET-DATA for key {SECRET}"}}).encode()

    with scripted_server(broken) as url:
        backend = load_backend(backend="openai", base_url=url, model="m", api_key=SECRET, max_retries=0)
        with pytest.raises(PaperError, match=r"HTTP 400; the reason it gave is logged") as caught:
            backend.generate([Message("user", ["hi"])])
    assert "INTERNAL-SECRET-DATA" not in str(caught.value) and SECRET not in str(caught.value)
    assert "INTERNAL-SECRET-DATA for key ***" in caplog.text and SECRET not in caplog.text


def test_a_server_that_is_down() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    backend = load_backend(backend="openai", base_url=url, model="m", max_retries=1)
    with pytest.raises(BackendError, match=r"cannot reach .* is the server running") as caught:
        backend.generate([Message("user", ["hi"])])
    assert caught.value.retryable  # the server may come up


def test_a_hanging_server_times_out() -> None:
    with hanging_server() as url:
        backend = load_backend(backend="openai", base_url=url, model="m", request_timeout_s=0.5, max_retries=0)
        with pytest.raises(BackendError, match=r"no reply from .* within 0.5 s") as caught:
            backend.generate([Message("user", ["hi"])])
        assert caught.value.retryable
        with pytest.raises(BackendError, match=r"no reply") as caught:
            list(backend.stream([Message("user", ["hi"])]))
        assert caught.value.retryable


def test_a_streamed_reply_that_never_starts_is_cut_at_the_first_byte_timeout() -> None:
    """A server that accepts and never replies holds a stream for the first-byte timeout, not the
    (much longer) request timeout that bounds a whole unstreamed reply."""
    with hanging_server() as url:
        backend = load_backend(backend="openai", base_url=url, model="m", request_timeout_s=3600,
                               model_first_byte_timeout_s=0.5, max_retries=0)
        with pytest.raises(BackendError, match=r"no reply from .* within 0.5 s .*SPIQA_MODEL_FIRST_BYTE_TIMEOUT_S") as caught:
            list(backend.stream([Message("user", ["hi"])]))
        assert caught.value.retryable


def test_a_missing_key_for_openai_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("SPIQA_API_KEY", raising=False)
    get_settings.cache_clear()
    with pytest.raises(BackendError, match=r"no API key .* SPIQA_API_KEY or OPENAI_API_KEY") as caught:
        load_backend(backend="openai")
    assert not caught.value.retryable
    with pytest.raises(PaperError, match=r"SPIQA_MODEL"):
        load_backend(backend="openai", base_url="http://127.0.0.1:1/v1")


def test_the_key_comes_from_the_environment_and_stays_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    get_settings.cache_clear()
    settings = get_settings().models
    assert settings.api_key.get_secret_value() == SECRET and SECRET not in repr(settings)
    backend = load_backend(settings, backend="openai")
    assert backend.name == "gpt-4o" and SECRET not in repr(backend)
    monkeypatch.setenv("SPIQA_API_KEY", "sk-spiqa-specific")
    get_settings.cache_clear()
    assert get_settings().models.api_key.get_secret_value() == "sk-spiqa-specific"


def test_text_only_api_models_refuse_images() -> None:
    backend = load_backend(backend="openai", base_url="http://127.0.0.1:1/v1", model="m", max_images=0)
    assert not backend.supports_images
    with pytest.raises(PaperError, match=r"text-only"):
        backend.generate(figure_messages(1))


# ---- unit tests with fakes: log-probs parsing and error wording


class _FakeCompletions:
    def __init__(self, outcome: object) -> None:
        self.outcome = outcome
        self.requests: list[dict] = []

    def create(self, **request: object) -> object:
        self.requests.append(request)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def _with_fake(outcome: object) -> tuple[OpenAIBackend, _FakeCompletions]:
    backend = OpenAIBackend("judge", base_url="http://127.0.0.1:1/v1", api_key=SECRET)
    fake = _FakeCompletions(outcome)
    backend._client = type("Client", (), {"chat": type("Chat", (), {"completions": fake})()})()
    return backend, fake


def _completion_with_logprobs(top: list[tuple[str, float]]) -> object:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 0, "model": "judge-2024",
        "choices": [{
            "index": 0, "finish_reason": "length",
            "message": {"role": "assistant", "content": top[0][0]},
            "logprobs": {"content": [{
                "token": top[0][0], "logprob": top[0][1], "bytes": None,
                "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in top],
            }]},
        }],
    })


def test_top_logprobs_are_read_and_candidates_filled_where_known() -> None:
    backend, fake = _with_fake(_completion_with_logprobs([("Yes", -0.1), ("No", -2.5), ("yes", -4.0)]))
    result = backend.next_token_logprobs([Message("user", ["q"])], candidates=["Yes", "No", " Yes"], top_k=50)
    assert [(t.token, t.logprob) for t in result.top] == [("Yes", -0.1), ("No", -2.5), ("yes", -4.0)]
    assert result.candidates == {"Yes": -0.1, "No": -2.5}
    assert result.model == "judge-2024"
    assert fake.requests[0]["top_logprobs"] == 20 and fake.requests[0]["max_tokens"] == 1
    assert fake.requests[0]["temperature"] == 0 and fake.requests[0]["logprobs"] is True


def _status_error(cls: type, status: int) -> Exception:
    request = httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    return cls(f"Error code: {status} - {SECRET}", response=httpx2.Response(status, request=request), body=None)


@pytest.mark.parametrize(
    ("error", "words", "retryable"),
    [
        (_status_error(openai.AuthenticationError, 401), "rejected the API key", False),
        (_status_error(openai.PermissionDeniedError, 403), "no access to model 'judge'", False),
        (_status_error(openai.NotFoundError, 404), "ends in /v1", False),
        (_status_error(openai.RateLimitError, 429), "HTTP 429", True),
        (_status_error(openai.InternalServerError, 503), "failed with HTTP 503", True),
        (_status_error(openai.APIStatusError, 408), "failed with HTTP 408", True),
        (_status_error(openai.UnprocessableEntityError, 422), "failed with HTTP 422", False),
        (_status_error(openai.BadRequestError, 400), "refused the request", False),
        (openai.APITimeoutError(request=httpx2.Request("POST", "http://x")), "no reply", True),
        (openai.APIConnectionError(request=httpx2.Request("POST", "http://x")), "cannot reach", True),
    ],
)
def test_error_wording_and_whether_retrying_helps(error: Exception, words: str, retryable: bool) -> None:
    backend, _ = _with_fake(error)
    with pytest.raises(BackendError, match=words) as caught:
        backend.generate([Message("user", ["q"])])
    assert caught.value.retryable is retryable
    assert isinstance(caught.value, PaperError) and SECRET not in str(caught.value)


@pytest.mark.parametrize("error", [
    _status_error(openai.AuthenticationError, 401),
    _status_error(openai.NotFoundError, 404),
    _status_error(openai.BadRequestError, 400),
    _status_error(openai.InternalServerError, 503),
    openai.APITimeoutError(request=httpx2.Request("POST", "http://x")),
    openai.APIConnectionError(request=httpx2.Request("POST", "http://x")),
])
def test_an_untrusted_endpoint_fails_in_one_message_whatever_went_wrong(error: Exception) -> None:
    """A visitor's URL: "cannot reach" beside "HTTP 404" would tell which ports answer behind the server."""
    backend, _ = _with_fake(error)
    backend.untrusted = True
    with pytest.raises(BackendError) as caught:
        backend.generate([Message("user", ["q"])])
    assert str(caught.value) == ("no answer from http://127.0.0.1:1/v1: the app does not say why for an address a "
                                 "visitor named (check the URL, the model name and the key)")


def test_a_server_rejecting_the_logprobs_field_is_a_note_not_a_crash() -> None:
    backend, _ = _with_fake(_status_error(openai.BadRequestError, 400))
    backend._client.chat.completions.outcome = openai.BadRequestError(
        "logprobs are not supported", response=httpx2.Response(400, request=httpx2.Request("POST", "http://x")), body=None
    )
    result = backend.next_token_logprobs([Message("user", ["q"])])
    assert result.top == [] and "no log-probs" in result.note
