"""Which models and endpoints a visitor of the app may choose: the operator's setting.

A shared app (a Space, a lab server) that lets any visitor name a base URL becomes a proxy that
sends requests wherever the visitor says; a visitor who names a local model makes the server
download and load it. So, unless the operator allows it (`SPIQA_UI_VISITOR_ENDPOINTS`), a visitor
uses the operator's configured model or none. The operator's key never follows a visitor's
choice in any case (`spiqa_demo.models.endpoints`).
"""

from __future__ import annotations

from dataclasses import dataclass

from spiqa_demo.models.endpoints import normalise, same_endpoint
from spiqa_demo.settings import Settings

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def shared_deployment(settings: Settings) -> bool:
    """Whether people other than the operator can reach the app: a Space, or a non-loopback address."""
    return bool(settings.ui.space_id) or settings.ui.gradio_server_name not in LOOPBACK


@dataclass(frozen=True)
class VisitorPolicy:
    """`any_endpoint`: visitors choose freely; else only `endpoints` (normalised base URLs) and the operator's."""

    any_endpoint: bool
    endpoints: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> VisitorPolicy:
        value = settings.ui.ui_visitor_endpoints.strip()
        if value.lower() == "auto":
            return cls(any_endpoint=not shared_deployment(settings))
        if value.lower() in ("any", "all", "*"):
            return cls(any_endpoint=True)
        if value.lower() in ("none", "off", ""):
            return cls(any_endpoint=False)
        return cls(any_endpoint=False, endpoints=tuple(normalise(v) for v in value.split(",") if v.strip()))

    def refusal(self, backend: str, model: str, base_url: str, configured_model: str, configured_url: str,
                what: str = "model") -> str:
        """Why this choice is not allowed here, or "" when it is (the configured model and URL always are)."""
        if self.any_endpoint or backend == "none":
            return ""
        turned_off = "the operator has not allowed visitors to choose one here (SPIQA_UI_VISITOR_ENDPOINTS)"
        if backend == "local":
            if model and model != configured_model:
                return f"This app answers only with its configured local {what}; {turned_off}."
            return ""
        if same_endpoint(base_url, configured_url) or normalise(base_url) in self.endpoints:
            return ""
        shown = base_url.strip() or "the OpenAI API"
        return f"No request was sent to {shown}: this app sends {what} requests only to its configured endpoint; {turned_off}."
