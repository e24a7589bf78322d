"""Where an OpenAI-compatible request goes, and which key may travel with it.

An operator's key belongs to the endpoint the operator configured it for: a request to any other
address carries only a key its caller brought. Without this rule, whoever can name a base URL
(a visitor of a shared app, a flag) would receive the operator's `Authorization` header.
"""

from __future__ import annotations

from collections.abc import Iterable

OPENAI_URL = "https://api.openai.com/v1"


def normalise(url: str | None) -> str:
    """The endpoint a base URL means: empty is OpenAI's; no trailing slash, scheme and host lower-case."""
    url = (url or "").strip().rstrip("/") or OPENAI_URL
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}"


def same_endpoint(first: str | None, second: str | None) -> bool:
    return normalise(first) == normalise(second)


def operator_key(url: str | None, configured: Iterable[tuple[str, str]]) -> str:
    """The operator's key for `url`: the first `(endpoint, key)` pair configured for that endpoint, else ""."""
    for endpoint, key in configured:
        if key and same_endpoint(url, endpoint):
            return key
    return ""
