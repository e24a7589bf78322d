"""Which key goes where (the library) and which endpoints visitors may choose (the app's policy)."""

from __future__ import annotations

import socket

import pytest

from spiqa_demo.errors import BackendError
from spiqa_demo.models.addresses import is_public
from spiqa_demo.models.endpoints import OPENAI_URL, normalise, operator_key, same_endpoint
from spiqa_demo.settings import ModelSettings, Settings, UISettings
from spiqa_demo.ui.serving.guards.visitor_policy import ModelTarget, Verdict, VisitorPolicy


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


def test_the_operators_organisation_and_project_go_to_its_endpoint_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENAI_ORG_ID / OPENAI_PROJECT_ID name the operator: its endpoint gets them, another endpoint
    does not, even though the `openai` client would read them from the environment for any."""
    from evalsuite.openai_listener import openai_listener
    from spiqa_demo.models import load_backend
    from spiqa_demo.models.base import Message
    from spiqa_demo.settings import read_settings

    identity = {"OPENAI_ORG_ID": "org-operator-canary", "OPENAI_PROJECT_ID": "proj-operator-canary"}
    for name, value in identity.items():
        monkeypatch.setenv(name, value)
    with openai_listener() as operators, openai_listener() as elsewhere:
        configured = read_settings({**identity, "SPIQA_BASE_URL": operators.url, "SPIQA_MODEL": "m"}).models
        for url in (operators.url, elsewhere.url):
            backend = load_backend(configured, base_url=url, max_retries=0)
            assert backend is not None and backend.generate([Message("user", ["hi"])])
        assert operators.saw("openai-organization: org-operator-canary") and operators.saw("openai-project: proj-operator-canary")
        assert len(elsewhere.requests) == 1 and not any(elsewhere.saw(v) for v in identity.values())
        assert "openai-organization" not in elsewhere.requests[0].lower()


OPERATORS = ModelTarget("openai", "cheap-model", "http://127.0.0.1:8000/v1")
PRIVATE = ["http://127.0.0.1:9/v1", "http://localhost:9/v1", "http://10.1.2.3/v1", "http://172.16.0.1/v1",
           "http://192.168.1.1/v1", "http://169.254.169.254/v1", "http://0.0.0.0:9/v1", "http://[::1]:9/v1",
           "http://[fe80::1]/v1", "http://[fc00::1]/v1", "http://[::ffff:127.0.0.1]/v1", "http://[::]/v1",
           "http://no-such-host.invalid/v1", "http://[::127.0.0.1]:9199/v1", "http://[64:ff9b::a9fe:a9fe]/v1",
           "http://[2002:a9fe:a9fe::]/v1", "http://[fec0::1]/v1"]
# IPv6 addresses that stand for a non-public IPv4 address (or are site-local), and some that stand for a public one.
DISGUISED = ["::7f00:1", "::a9fe:a9fe", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:0:7f00:1", "::ffff:0:a00:1",
             "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b:1::a9fe:a9fe", "64:ff9b:1:a9fe:a9fe::",
             "2002:a9fe:a9fe::", "2002:7f00:1::1", "2002:c0a8:101::1", "2001:0:a9fe:a9fe::1",
             "2001:0:4136:e378:8000:63bf:80ff:fffe", "fec0::1", "fec0:1::a9fe:a9fe", "feff::1"]
PUBLIC_VIA_IPV6 = ["::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111"]


def policy(setting: str) -> VisitorPolicy:
    return VisitorPolicy.from_settings(Settings(ui=UISettings(ui_visitor_endpoints=setting)))


@pytest.mark.parametrize("address", DISGUISED)
def test_ipv6_forms_of_private_ipv4_addresses_are_not_public(address: str) -> None:
    assert not is_public(address)


@pytest.mark.parametrize("address", PUBLIC_VIA_IPV6)
def test_ipv6_forms_of_public_ipv4_addresses_stay_public(address: str) -> None:
    assert is_public(address)


def test_an_ipv6_form_of_loopback_is_never_connected_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the visitor policy nor an untrusted backend's own connect-time check lets `[::127.0.0.1]` through."""
    from spiqa_demo.models import load_backend
    from spiqa_demo.models.base import Message

    attempts: list[object] = []
    monkeypatch.setattr(socket, "create_connection", lambda *args, **kwargs: attempts.append(args))
    url = "http://[::127.0.0.1]:9199/v1"
    assert "on the public internet" in policy("any").check(ModelTarget("openai", "m", url), OPERATORS).refusal
    backend = load_backend(ModelSettings(), True, backend="openai", model="m", base_url=url, max_retries=0)
    assert backend is not None
    with pytest.raises(BackendError, match="does not say why"):
        backend.generate([Message("user", ["hi"])])
    assert attempts == []


@pytest.mark.parametrize("setting", ["auto", "none", "off", ""])
def test_auto_is_none_and_none_allows_only_the_operators_model(setting: str) -> None:
    visitors = policy(setting)
    assert visitors == VisitorPolicy(any_endpoint=False)
    assert visitors.check(ModelTarget("openai", "", "HTTP://127.0.0.1:8000/v1/"), OPERATORS) == Verdict()
    assert visitors.check(ModelTarget("openai", "cheap-model", "http://127.0.0.1:8000/v1"), OPERATORS) == Verdict()
    assert visitors.check(ModelTarget("none"), OPERATORS) == Verdict()
    elsewhere = visitors.check(ModelTarget("openai", "cheap-model", "http://127.0.0.1:9/v1"), OPERATORS).refusal
    assert elsewhere.startswith("No request was sent to http://127.0.0.1:9/v1: this app sends model requests only")
    local = ModelTarget("local", "my/model")
    assert visitors.check(ModelTarget("local", ""), local) == visitors.check(local, local) == Verdict()
    assert "only with its configured local model" in visitors.check(ModelTarget("local", "other/model"), local).refusal
    assert "no local model" in visitors.check(ModelTarget("local", ""), OPERATORS).refusal


@pytest.mark.parametrize("setting", ["none", "any", "http://127.0.0.1:8000/v1", "any, http://127.0.0.1:8000/v1"])
def test_the_operators_endpoint_is_asked_only_for_the_operators_model_and_judge(setting: str) -> None:
    expensive = policy(setting).check(ModelTarget("openai", "expensive-model", "http://127.0.0.1:8000/v1/"), OPERATORS)
    assert expensive.refusal == ("No request was sent: at its configured endpoint this app asks only for its own "
                                 "model (cheap-model), not expensive-model.")
    judge = ModelTarget("openai", "cheap-judge", "")  # OpenAI's API
    asked = ModelTarget("openai", "o1-pro", "https://api.openai.com/v1")
    assert "only for its own judge (cheap-judge), not o1-pro" in policy(setting).check(asked, judge, "judge").refusal


def test_with_no_model_configured_nothing_is_sent() -> None:
    for asked in (ModelTarget("openai", "o1-pro", ""), ModelTarget("openai", "", "https://api.openai.com/v1"),
                  ModelTarget("openai", "m", "http://127.0.0.1:8000/v1")):
        refusal = policy("none").check(asked, ModelTarget("none")).refusal
        assert "this app has no model configured" in refusal, asked
    assert policy("none").check(ModelTarget("openai", "o1-pro", ""), ModelTarget("none")).refusal.startswith(
        "No request was sent to the OpenAI API")
    assert "no local judge" in policy("none").check(ModelTarget("local", "x"), ModelTarget("none"), "judge").refusal


@pytest.mark.parametrize("url", PRIVATE)
def test_any_refuses_addresses_off_the_public_internet_unless_listed(url: str) -> None:
    refusal = policy("any").check(ModelTarget("openai", "m", url), OPERATORS).refusal
    assert refusal.startswith(f"No request was sent to {url}: visitors may name only addresses on the public internet")
    assert policy(f"any, {url}/").check(ModelTarget("openai", "m", url), OPERATORS) == Verdict(source="listed")
    assert policy(url).check(ModelTarget("openai", "m", url), OPERATORS) == Verdict(source="listed")


def test_any_allows_public_addresses_as_untrusted(monkeypatch: pytest.MonkeyPatch) -> None:
    allowed = policy("any").check(ModelTarget("openai", "m", "https://8.8.8.8/v1"), OPERATORS)
    assert allowed == Verdict(source="visitor") and allowed.untrusted
    assert policy("any").check(ModelTarget("local", "any/model"), OPERATORS) == Verdict(source="visitor")
    resolved = {"public.example": ["93.184.216.34"], "mixed.example": ["93.184.216.34", "10.0.0.7"],
                "inside.example": ["127.0.0.1"]}

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in resolved[host]]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert policy("any").check(ModelTarget("openai", "m", "https://public.example/v1"), OPERATORS).refusal == ""
    for name in ("mixed.example", "inside.example"):  # a name is refused when any of its addresses is not public
        assert "on the public internet" in policy("any").check(ModelTarget("openai", "m", f"https://{name}/v1"), OPERATORS).refusal


@pytest.mark.parametrize(("url", "why"), [
    ("https://8.8.8.8/v1?", "no query"), ("https://8.8.8.8/v1?x=1", "no query"), ("https://8.8.8.8/v1#", "no query"),
    ("https://8.8.8.8/v1/chat#x", "no query"), ("https://user:pw@8.8.8.8/v1", "no query"),
    ("ftp://8.8.8.8/v1", "http:// or https://"), ("https:///v1", "http:// or https://"),
    ("https://8.8.8.8/v 1", "http:// or https://"), ("https://8.8.8.8:99999/v1", "not a valid URL"),
])
def test_a_visitors_base_url_cannot_steer_the_path(url: str, why: str) -> None:
    assert why in policy("any").check(ModelTarget("openai", "m", url), OPERATORS).refusal


def test_an_allow_list_admits_only_its_endpoints() -> None:
    visitors = policy("http://127.0.0.1:8001/v1/, http://10.0.0.5/v1")
    assert not visitors.any_endpoint
    assert visitors.check(ModelTarget("openai", "m", "http://127.0.0.1:8001/v1"), OPERATORS) == Verdict(source="listed")
    assert "No request was sent" in visitors.check(ModelTarget("openai", "m", "http://127.0.0.1:8002/v1"), OPERATORS).refusal
    assert "No request was sent" in visitors.check(ModelTarget("openai", "m", "https://8.8.8.8/v1"), OPERATORS).refusal


def test_an_untrusted_backend_connects_to_public_addresses_only() -> None:
    """The check is made again at connect time: a name that now resolves elsewhere, or a redirect, cannot reach inside."""
    from evalsuite.openai_listener import openai_listener
    from spiqa_demo.models import load_backend
    from spiqa_demo.models.base import Message

    with openai_listener() as inside:
        backend = load_backend(ModelSettings(), True, backend="openai", model="m", base_url=inside.url, max_retries=0)
        assert backend is not None
        with pytest.raises(BackendError, match="does not say why"):
            backend.generate([Message("user", ["hi"])])
        trusted = load_backend(ModelSettings(), backend="openai", model="m", base_url=inside.url, max_retries=0)
        assert trusted is not None and trusted.generate([Message("user", ["hi"])])
        assert len(inside.requests) == 1
