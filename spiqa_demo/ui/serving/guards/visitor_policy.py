"""Which models and endpoints a visitor of the app may choose, and what the operator's key pays for.

A shared app (a Space, a lab server, an app behind a reverse proxy) that lets any visitor name a
base URL becomes a proxy that sends requests wherever the visitor says; a visitor who names a local
model makes the server download and load it; a visitor who names another model at the operator's
endpoint spends the operator's money. So:

- at the operator's endpoint only the operator's model is asked for, whatever the setting;
- `SPIQA_UI_VISITOR_ENDPOINTS` is `none` unless the operator says otherwise: a visitor uses the
  configured model and judge or none, and when none is configured nothing is ever sent;
- a base URL the operator lists is allowed as it is, private addresses included;
- `any` lets visitors name other endpoints, but only well-formed http(s) base URLs (no query,
  fragment or user name) at public addresses (`spiqa_demo.models.addresses`), and a failure there
  is not explained (an `untrusted` backend), so the server probes nothing for anyone.

The operator's key never follows a visitor's choice (`spiqa_demo.models.endpoints`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from spiqa_demo.models.addresses import public_address
from spiqa_demo.models.endpoints import OPENAI_URL, normalise, same_endpoint
from spiqa_demo.settings import Settings

ANY = frozenset({"any", "all", "*"})
NONE = frozenset({"none", "off", "auto"})  # auto is none: only the operator can tell a shared app from a private one
TURNED_OFF = "the operator has not allowed visitors to choose one here (SPIQA_UI_VISITOR_ENDPOINTS)"

Source = Literal["operator", "listed", "visitor"]


@dataclass(frozen=True)
class ModelTarget:
    """A model and where it runs: the backend (none | local | openai), the model name, the base URL (APIs)."""

    backend: str
    model: str = ""
    base_url: str = ""


@dataclass(frozen=True)
class Verdict:
    """`refusal`: why nothing may be sent ("" when it may). `source`: who chose the endpoint: the
    operator's configuration (the operator's key may go along), the operator's list, or a visitor."""

    refusal: str = ""
    source: Source = "operator"

    @property
    def untrusted(self) -> bool:
        """Whether nobody vouches for the endpoint: public addresses only, failures not explained."""
        return self.source == "visitor"


def operator_model(settings: Settings) -> ModelTarget:
    """The answering model the operator configured."""
    from spiqa_demo.models import backend_kind

    models = settings.models
    return ModelTarget(backend_kind(models), models.model, models.base_url)


def operator_judge(settings: Settings) -> ModelTarget:
    """The L3Score judge the operator configured."""
    from spiqa_demo.evaluation.metrics.l3score import judge_kind

    judging = settings.evaluation
    kind = judge_kind(judging, judging.judge_base_url) if judging.judge_model else "none"
    return ModelTarget(kind, judging.judge_model, judging.judge_base_url)


@dataclass(frozen=True)
class VisitorPolicy:
    """`any_endpoint`: visitors may name public endpoints; `endpoints` (normalised base URLs) are allowed as listed."""

    any_endpoint: bool
    endpoints: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> VisitorPolicy:
        """`none`, `auto` or empty: nothing but the operator's; `any`; base URLs, comma-separated, `any` among them or not."""
        entries = [e.strip() for e in settings.ui.ui_visitor_endpoints.split(",") if e.strip()]
        return cls(any_endpoint=any(e.lower() in ANY for e in entries),
                   endpoints=tuple(normalise(e) for e in entries if e.lower() not in ANY | NONE))

    def check(self, asked: ModelTarget, configured: ModelTarget, what: str = "model") -> Verdict:
        """Whether `asked` may be sent, given what the operator `configured` (always allowed, its model pinned)."""
        if asked.backend == "none":
            return Verdict()
        at_operators = asked.backend == configured.backend and (
            asked.backend == "local" or same_endpoint(asked.base_url, configured.base_url))
        if at_operators and asked.model in ("", configured.model):
            return Verdict()
        if at_operators and asked.backend == "openai":
            return Verdict(f"No request was sent: at its configured endpoint this app asks only for its own {what} "
                           f"({configured.model or 'the default'}), not {asked.model}.")
        if asked.backend == "openai" and normalise(asked.base_url) in self.endpoints:
            return Verdict(source="listed")
        if not self.any_endpoint:
            return Verdict(_not_allowed(asked, configured, what))
        return Verdict(url_refusal(asked.base_url) if asked.backend == "openai" else "", source="visitor")


def _not_allowed(asked: ModelTarget, configured: ModelTarget, what: str) -> str:
    if asked.backend == "local":
        if configured.backend == "local":
            return f"This app answers only with its configured local {what}; {TURNED_OFF}."
        return f"This app has no local {what}, so none was loaded; {TURNED_OFF}."
    shown = asked.base_url.strip() or "the OpenAI API"
    if configured.backend == "none":
        return f"No request was sent to {shown}: this app has no {what} configured; {TURNED_OFF}."
    return f"No request was sent to {shown}: this app sends {what} requests only to its configured endpoint; {TURNED_OFF}."


def url_refusal(base_url: str) -> str:
    """Why a visitor's base URL is not asked ("" when it may be): not plain http(s), or not public.

    A query, fragment or user name is refused because the client appends the API's path to the
    base URL: a `?` or `#` would make that path a query or a fragment, and the visitor choose the path.
    """
    url = base_url.strip() or OPENAI_URL
    not_sent = f"No request was sent to {url}"
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return f"{not_sent}: it is not a valid URL."
    if parts.scheme not in ("http", "https") or not parts.hostname or not url.isprintable() or " " in url:
        return f"{not_sent}: a base URL is http:// or https://, then a host name."
    if "?" in url or "#" in url or "@" in parts.netloc:
        return f"{not_sent}: a base URL has no query (?), fragment (#) or user name (@)."
    if public_address(parts.hostname, port) is None:
        return (f"{not_sent}: visitors may name only addresses on the public internet, and {parts.hostname} does "
                "not resolve to one (the operator can list an endpoint in SPIQA_UI_VISITOR_ENDPOINTS).")
    return ""
