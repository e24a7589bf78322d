"""Model backends: local transformers checkpoints and OpenAI-compatible APIs, behind `ModelBackend`.

`load_backend(settings)` turns the model settings (overridable per call, e.g. from CLI flags) into a
backend, or None when no model is configured: the app then runs in retrieval-only mode.
"""

from __future__ import annotations

from typing import Any

from spiqa_demo.errors import InputError
from spiqa_demo.models.base import Message, ModelBackend, NextTokenLogprobs, TokenLogprob, Usage
from spiqa_demo.models.endpoints import operator_key, same_endpoint
from spiqa_demo.settings import ModelSettings

__all__ = ["Message", "ModelBackend", "NextTokenLogprobs", "TokenLogprob", "Usage", "backend_kind", "load_backend"]

DEFAULT_OPENAI_MODEL = "gpt-4o"  # SPIQA's strongest evaluated model


def backend_kind(settings: ModelSettings) -> str:
    """The backend the settings ask for: explicit, else openai with a base URL, local with a model, else none."""
    return settings.backend or ("openai" if settings.base_url else "local" if settings.model else "none")


def load_backend(settings: ModelSettings | None = None, untrusted: bool = False, **overrides: Any) -> ModelBackend | None:
    """The configured backend (local weights are loaded once per process), or None for retrieval-only.

    `overrides` replace settings fields by name (None values are ignored; a bad value is an
    `InputError`), e.g. `load_backend(backend="openai", base_url="http://127.0.0.1:8000/v1", model="m")`.
    Without an `api_key` override the configured key is sent only when the base URL is the configured one;
    the configured organisation and project only there, whatever the key.
    `untrusted`: the base URL was named by someone the operator does not vouch for (an app's visitor),
    so the API backend reaches public addresses only and does not say why a request failed.
    """
    configured = settings or ModelSettings()
    given = {k: v for k, v in overrides.items() if v is not None}
    # The operator's key goes only to the operator's endpoint; a caller naming another brings its own.
    key = given.pop("api_key") if "api_key" in given else None
    settings = configured.with_overrides(**given)
    if key is None:
        key = operator_key(settings.base_url, [(configured.base_url, configured.api_key.get_secret_value())])
    settings = settings.with_overrides(api_key=key)
    # The operator's organisation and project name the operator to its own endpoint and to no other.
    if not same_endpoint(settings.base_url, configured.base_url):
        settings = settings.with_overrides(openai_organization="", openai_project="")
    kind = backend_kind(settings)
    if kind == "none":
        return None
    if kind == "local":
        if not settings.model:
            raise InputError("no local model given: set SPIQA_MODEL or --model to a Hugging Face id or a folder")
        from spiqa_demo.models.local import LocalBackend, load_local_model
        from spiqa_demo.models.zerogpu import GpuBudget, on_zerogpu

        loaded = load_local_model(settings.model, device=settings.device, dtype=settings.dtype, zero_gpu=on_zerogpu(settings))
        return LocalBackend(
            loaded,
            image_size=settings.image_size,
            max_images=settings.max_images,
            gpu_budget=GpuBudget.from_settings(settings),
        )
    if not settings.model and settings.base_url:
        raise InputError("no model name for the server at the base URL: set SPIQA_MODEL or --model")
    from spiqa_demo.models.openai_api import OpenAIBackend

    return OpenAIBackend(
        settings.model or DEFAULT_OPENAI_MODEL,
        base_url=settings.base_url,
        api_key=settings.api_key.get_secret_value(),
        organization=settings.openai_organization,
        project=settings.openai_project,
        image_size=settings.image_size,
        max_images=settings.max_images,
        context_tokens=settings.context_tokens,
        timeout_s=settings.request_timeout_s,
        max_retries=settings.max_retries,
        untrusted=untrusted,
        first_byte_timeout_s=settings.model_first_byte_timeout_s,
    )
