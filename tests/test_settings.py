"""Settings: environment variables parse to typed values, and a bad one is one line naming it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from spiqa_demo.cli import main
from spiqa_demo.errors import InputError, PaperError
from spiqa_demo.models import load_backend
from spiqa_demo.settings import ModelSettings, QASettings, get_settings, variables
from spiqa_demo.settings_doc import REGENERATE, page_table, settings_table

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-test-0123456789abcdef"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Set variables, then read the settings afresh with `get_settings()` (the test cache stays)."""
    for _, field, name in variables():
        if field != "cache_dir":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def test_defaults_and_derived_folders(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("SPIQA_CACHE_DIR", str(tmp_path))
    settings = get_settings()
    assert settings.extraction.dpi == 200 and settings.qa.use_captions is True and settings.models.backend == ""
    assert settings.retrieval.embed_bf16 == "auto"
    assert settings.ui.data_dir == tmp_path / "data"
    assert settings.ui.examples_dir == tmp_path / "data" / "papers"
    assert settings.ui.results_dir == tmp_path / "data" / "spiqa" / "test-C-responses"
    assert {group.cache_dir for group in (settings.extraction, settings.retrieval, settings.evaluation, settings.ui)} == {tmp_path}


def test_the_data_folder_moves_its_parts_unless_they_are_set(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env.setenv("SPIQA_DATA_DIR", str(tmp_path / "data"))
    env.setenv("SPIQA_EXAMPLES_DIR", str(tmp_path / "mine"))
    settings = get_settings().ui
    assert settings.examples_dir == tmp_path / "mine"
    assert settings.results_dir == tmp_path / "data" / "spiqa" / "test-C-responses"


def test_values_parse_and_names_differ_where_they_always_did(env: pytest.MonkeyPatch) -> None:
    env.setenv("SPIQA_DPI", " 150 ")
    env.setenv("SPIQA_REQUEST_TIMEOUT_S", "2.5")
    env.setenv("SPIQA_USE_CAPTIONS", "off")
    env.setenv("SPIQA_UI_LOCK_MODEL", "yes")
    env.setenv("SPIQA_BACKEND", "OpenAI")
    env.setenv("SPIQA_EMBED_BF16", "Off")
    env.setenv("SPIQA_EMBED_BATCH", "16")
    env.setenv("SPIQA_IMAGES_DIR", "/images")
    env.setenv("SPIQA_HF_REPO", "me/spiqa")
    settings = get_settings()
    assert (settings.extraction.dpi, settings.models.request_timeout_s) == (150, 2.5)
    assert settings.qa.use_captions is False and settings.ui.ui_lock_model is True
    assert settings.models.backend == "openai"
    assert settings.retrieval.embed_bf16 == "0" and settings.retrieval.embed_batch_size == 16
    assert (settings.evaluation.spiqa_images_dir, settings.evaluation.spiqa_hf_repo) == ("/images", "me/spiqa")


def test_a_blank_variable_means_the_default(env: pytest.MonkeyPatch) -> None:
    env.setenv("SPIQA_DPI", "")
    env.setenv("SPIQA_MAX_IMAGES", "   ")
    settings = get_settings()
    assert (settings.extraction.dpi, settings.models.max_images) == (200, -1)


def test_the_api_key_falls_back_to_openais_and_never_shows(env: pytest.MonkeyPatch) -> None:
    env.setenv("OPENAI_API_KEY", SECRET)
    env.setenv("SPIQA_API_KEY", " ")
    settings = get_settings()
    assert settings.models.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    env.setenv("SPIQA_API_KEY", "sk-spiqa")
    env.setenv("SPIQA_JUDGE_API_KEY", "sk-judge")
    get_settings.cache_clear()
    settings = get_settings()
    assert settings.models.api_key.get_secret_value() == "sk-spiqa"
    assert "sk-spiqa" not in repr(settings) and "sk-judge" not in repr(settings)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("SPIQA_DPI", "abc", "SPIQA_DPI: expected an integer, got 'abc'"),
        ("SPIQA_REQUEST_TIMEOUT_S", "soon", "SPIQA_REQUEST_TIMEOUT_S: expected a number, got 'soon'"),
        ("SPIQA_USE_CAPTIONS", "maybe", "SPIQA_USE_CAPTIONS: expected a boolean (1/0, true/false, yes/no, on/off), got 'maybe'"),
        ("SPIQA_BACKEND", "gpt", "SPIQA_BACKEND: expected one of local, openai, none, got 'gpt'"),
        ("SPIQA_JUDGE_BACKEND", "api", "SPIQA_JUDGE_BACKEND: expected one of local, openai, got 'api'"),
        ("SPIQA_EMBED_BF16", "fast", "SPIQA_EMBED_BF16: expected one of auto, 0, 1, got 'fast'"),
        ("SPIQA_FIGURE_OCR_ENGINE", "easyocr", "SPIQA_FIGURE_OCR_ENGINE: expected one of tesseract, rapidocr, got 'easyocr'"),
        ("SPIQA_EMBED_BATCH", "x", "SPIQA_EMBED_BATCH: expected an integer, got 'x'"),
        ("SPACES_ZERO_GPU", "maybe", "SPACES_ZERO_GPU: expected a boolean (1/0, true/false, yes/no, on/off), got 'maybe'"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(env: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    env.setenv(name, value)
    with pytest.raises(InputError) as caught:
        get_settings()
    assert str(caught.value) == message


def test_every_bad_value_is_named_in_the_same_line(env: pytest.MonkeyPatch) -> None:
    env.setenv("SPIQA_DPI", "abc")
    env.setenv("SPIQA_CACHE_MAX_MB", "lots")
    with pytest.raises(InputError) as caught:
        get_settings()
    message = str(caught.value)
    assert "\n" not in message and "SPIQA_DPI" in message and "SPIQA_CACHE_MAX_MB" in message


def test_overrides_are_validated_and_keep_the_rest(env: pytest.MonkeyPatch) -> None:
    env.setenv("SPIQA_DPI", "150")
    settings = get_settings().models.with_overrides(backend="local", model="m", api_key=SECRET, max_images="0")
    assert (settings.backend, settings.model, settings.max_images) == ("local", "m", 0)
    assert get_settings().extraction.dpi == 150
    assert settings.api_key.get_secret_value() == SECRET and SECRET not in repr(settings)
    with pytest.raises(InputError, match=r"^backend: expected one of local, openai, none, got 'gpt'$"):
        get_settings().models.with_overrides(backend="gpt")
    with pytest.raises(TypeError, match=r"unknown settings"):
        get_settings().models.with_overrides(dpi=150)  # another group's setting
    with pytest.raises(InputError, match=r"max_images: expected an integer"):
        load_backend(get_settings().models, backend="openai", max_images="all")


def test_the_cli_prints_one_line_and_exits_2(env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    env.setenv("SPIQA_DPI", "abc")
    assert main(["extract", str(ROOT / "no-such.pdf")]) == 2
    assert capsys.readouterr().err == "error: SPIQA_DPI: expected an integer, got 'abc'\n"


def test_the_app_says_which_variable_is_wrong(env: pytest.MonkeyPatch) -> None:
    env.setenv("SPIQA_UI_CACHE_MAX_MB", "big")
    run = subprocess.run([sys.executable, "app.py"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert run.stderr == "error: SPIQA_UI_CACHE_MAX_MB: expected an integer, got 'big'\n"


def test_input_errors_are_paper_errors() -> None:
    assert issubclass(InputError, PaperError)


def test_the_platform_says_where_the_app_runs(env: pytest.MonkeyPatch) -> None:
    """Hugging Face's own variable is read here too, so nothing else reads the environment."""
    assert not get_settings().models.spaces_zero_gpu
    env.setenv("SPACES_ZERO_GPU", "true")
    get_settings.cache_clear()
    assert get_settings().models.spaces_zero_gpu


def test_the_settings_page_is_generated_from_the_settings() -> None:
    """A setting nobody can find is one nobody sets: the docs' table is rendered from the settings' descriptions."""
    page = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert page_table(page) == settings_table(), f"docs/settings.md differs from the settings: run `{REGENERATE}`"
    assert [name for _, _, name in variables() if f"`{name}`" not in page] == []
    assert all(group.model_fields[field].description for group, field, _ in variables())


def test_library_defaults_never_read_the_environment(env: pytest.MonkeyPatch) -> None:
    """Only the entry points read the environment; a group built in code has the documented defaults."""
    env.setenv("SPIQA_SHORTLIST_K", "3")
    env.setenv("SPIQA_BACKEND", "openai")
    assert (QASettings().shortlist_k, ModelSettings().backend) == (8, "")
    assert (get_settings().qa.shortlist_k, get_settings().models.backend) == (3, "openai")
