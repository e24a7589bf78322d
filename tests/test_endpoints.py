"""Which key goes where (the library) and which endpoints visitors may choose (the app's policy)."""

from __future__ import annotations

import pytest

from spiqa_demo.models.endpoints import OPENAI_URL, normalise, operator_key, same_endpoint
from spiqa_demo.settings import ModelSettings, Settings, UISettings


def test_endpoints_compare_by_meaning() -> None:
    assert normalise("") == OPENAI_URL and same_endpoint("", "https://API.openai.com/v1/")
    assert same_endpoint("http://127.0.0.1:8000/v1/", "HTTP://127.0.0.1:8000/v1")
    assert not same_endpoint("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1")
    assert not same_endpoint("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/evil")


def test_the_operator_key_belongs_to_its_endpoint() -> None:
    configured = [("http://127.0.0.1:8000/v1", "sk-operator")]
    assert operator_key("http://127.0.0.1:8000/v1/", configured) == "sk-operator"
    assert operator_key("http://127.0.0.1:9999/v1", configured) == ""
    assert operator_key("", configured) == ""  # OpenAI is not the configured endpoint here
    assert operator_key("", [("", "sk-openai")]) == "sk-openai"


def test_load_backend_never_sends_the_configured_key_elsewhere() -> None:
    from spiqa_demo.models import load_backend

    operator = ModelSettings(backend="openai", base_url="http://127.0.0.1:8000/v1", model="m", api_key="sk-operator")
    assert load_backend(operator)._secret == "sk-operator"
    assert load_backend(operator, base_url="http://127.0.0.1:9/v1")._secret == ""
    assert load_backend(operator, base_url="http://127.0.0.1:9/v1", api_key="sk-own")._secret == "sk-own"


@pytest.mark.parametrize(("setting", "server", "space", "allowed"), [
    ("auto", "127.0.0.1", "", True),
    ("auto", "0.0.0.0", "", False),
    ("auto", "127.0.0.1", "user/space", False),
    ("none", "127.0.0.1", "", False),
    ("any", "0.0.0.0", "user/space", True),
])
def test_visitor_endpoints_are_the_operators_setting(setting: str, server: str, space: str, allowed: bool) -> None:
    from spiqa_demo.ui.visitor_policy import VisitorPolicy

    where = UISettings(ui_visitor_endpoints=setting, gradio_server_name=server, space_id=space)
    policy = VisitorPolicy.from_settings(Settings(ui=where))
    refusal = policy.refusal("openai", "m", "http://127.0.0.1:9/v1", "", "http://127.0.0.1:8000/v1")
    assert (refusal == "") is allowed
    assert policy.refusal("openai", "m", "http://127.0.0.1:8000/v1/", "", "http://127.0.0.1:8000/v1") == ""
    assert policy.refusal("none", "", "", "", "") == ""
    assert (policy.refusal("local", "other/model", "", "my/model", "") == "") is allowed
    assert policy.refusal("local", "my/model", "", "my/model", "") == ""


def test_an_allow_list_admits_only_its_endpoints() -> None:
    from spiqa_demo.ui.visitor_policy import VisitorPolicy

    policy = VisitorPolicy.from_settings(Settings(ui=UISettings(ui_visitor_endpoints="http://127.0.0.1:8001/v1/, http://10.0.0.5/v1")))
    assert policy.refusal("openai", "m", "http://127.0.0.1:8001/v1", "", "") == ""
    assert "No request was sent" in policy.refusal("openai", "m", "http://127.0.0.1:8002/v1", "", "")
