"""The settings panel: task (the reader's conversation, the default, beside SPIQA's tasks and its
caption-only / image-only ablations), model backend, shortlist size, image resolution, captions.

Defaults come from the environment (`spiqa_demo.settings`), so a Space is configured without code.
The API key field starts empty (a key from the environment is used but never sent to the browser);
a typed key travels with each request only and is never kept in the session, logged or written.
With `SPIQA_UI_LOCK_MODEL` the backend fields are read-only and the server ignores what a client sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from spiqa_demo.errors import PaperError
from spiqa_demo.questions import SPIQA_MAX_CANDIDATES
from spiqa_demo.settings import Settings
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.guards.input_limits import capped, limit
from spiqa_demo.ui.serving.messages import full_sentence

if TYPE_CHECKING:
    import gradio as gr
    from gradio.blocks import Block

    from spiqa_demo.models.base import ModelBackend
    from spiqa_demo.qa.answer import Task
    from spiqa_demo.ui.state.session import Chat

READER: Literal["reader"] = "reader"
ChatTask = Literal["reader", "cot", "direct", "full", "caption-only", "image-only"]
# The reader's conversation (`spiqa_demo.conversation`), then SPIQA's tasks in the order of spiqa_demo.qa.TASKS
# (tests/test_app_units.py checks): the panel imports the QA package for typing only.
TASK_LABELS: dict[ChatTask, str] = {
    READER: "Reader: follow-ups in context, answers citing figures, tables and text",
    "cot": "CoT: pick the most helpful figure, then answer",
    "direct": "Direct: all figures and tables",
    "full": "Full paper: text and figures",
    "caption-only": "Caption only: the captions, no images (SPIQA ablation)",
    "image-only": "Image only: the images, no captions (SPIQA ablation)",
}
TASK_CHOICES: list[tuple[str, ChatTask]] = [(label, task) for task, label in TASK_LABELS.items()]
BACKEND_CHOICES = [
    ("No model (retrieval only)", "none"),
    ("Local model (transformers)", "local"),
    ("OpenAI-compatible API", "openai"),
]
IMAGE_SIZE_CHOICES = [
    ("Full resolution", 0),
    ("224 px (SPIQA's open models)", 224),
    ("336 px", 336),
    ("448 px", 448),
    ("768 px", 768),
    ("1024 px", 1024),
]
MAX_SHORTLIST = SPIQA_MAX_CANDIDATES  # the slider never offers more than the flows accept



def no_model_notice(shows: str) -> str:
    """That no model is configured, said one way by every chat: what it `shows` instead of a written answer."""
    return (f"No model is configured, so the app answers in retrieval-only mode: it shows {shows}. "
            "Choose a model under Settings in the Paper tab to get written answers.")


# `resolve_backend`'s notice when no model is chosen; each chat says it in its own words (`worded`).
RETRIEVAL_ONLY_NOTICE = no_model_notice("what best matches your question")


def worded(notice: str, shows: str) -> str:
    """`resolve_backend`'s `notice` as a chat says it: that no model is configured names what the chat `shows`."""
    return no_model_notice(shows) if notice == RETRIEVAL_ONLY_NOTICE else notice


def model_notes(messages: Iterable[str], chat: Chat, shows: str) -> list[str]:
    """A flow's `messages` for people under an answer, the chat's "no model" notice (`worded`) among them
    said only the first time in `chat`."""
    notice, notes = no_model_notice(shows), []
    for message in messages:
        if message == notice:
            if chat.told_retrieval_only:
                continue
            chat.told_retrieval_only = True
        notes.append(full_sentence(message))
    return notes


# What one widget of the panel sends: its own kind of value, or whatever a client of the API sends instead.
PanelValue = str | int | float | bool | None


def _whole(value: PanelValue, default: int) -> int:
    """`value` as a whole number, or `default` when it is none (a client of the API may send anything)."""
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class ModelChoice:
    """What the settings panel asks for (everything but the API key)."""

    task: ChatTask = READER
    backend: str = "none"
    model: str = ""
    base_url: str = ""
    k: int = MAX_SHORTLIST
    image_size: int = 0
    captions: bool = True

    @property
    def spiqa_task(self) -> Task:
        """The SPIQA task the SPIQA check and its questions use: the chosen one, or CoT with the reader's."""
        return "cot" if self.task == READER else self.task

    @classmethod
    def from_inputs(cls, task: PanelValue, backend: PanelValue, model: PanelValue, base_url: PanelValue, k: PanelValue,
                    image_size: PanelValue, captions: PanelValue) -> ModelChoice:
        """A choice from the panel's raw values, clamped to what is valid (clients can send anything)."""
        settings = app_settings()
        defaults = default_choice(settings)
        if settings.ui.ui_lock_model:
            backend, model, base_url = defaults.backend, defaults.model, defaults.base_url
        k_value, size = _whole(k, defaults.k), _whole(image_size, defaults.image_size)
        return cls(
            task=next((v for _, v in TASK_CHOICES if v == task), READER),
            backend=backend if isinstance(backend, str) and backend in {v for _, v in BACKEND_CHOICES} else "none",
            model=capped(model, "model").strip(),
            base_url=capped(base_url, "base_url").strip(),
            k=min(max(k_value, 1), MAX_SHORTLIST),
            image_size=max(size, 0),
            captions=bool(captions),
        )


@dataclass(frozen=True)
class PanelChoice:
    """The panel as a handler receives it (the values of `ModelPanel.inputs()`, in that order): the choice,
    clamped to what is valid, and the API key typed for this request (never kept)."""

    choice: ModelChoice
    api_key: str

    @classmethod
    def from_values(cls, values: Sequence[PanelValue]) -> PanelChoice:
        *fields, api_key = values
        return cls(ModelChoice.from_inputs(*fields), capped(api_key, "api_key"))


def default_choice(settings: Settings | None = None) -> ModelChoice:
    """The panel's initial values, from the app's settings."""
    from spiqa_demo.models import backend_kind

    settings = settings or app_settings()
    try:
        kind = backend_kind(settings.models)
    except PaperError:
        kind = "none"  # a bad SPIQA_BACKEND; the first question says why
    return ModelChoice(
        task=READER,
        backend=kind,
        model=settings.models.model,
        base_url=settings.models.base_url,
        k=min(max(settings.qa.shortlist_k, 1), MAX_SHORTLIST),
        image_size=max(settings.models.image_size, 0),
        captions=settings.qa.use_captions,
    )


def resolve_backend(choice: ModelChoice, api_key: str = "") -> tuple[ModelBackend | None, str]:
    """`(backend or None, notice)`: the model to ask, or None with the reason in words.

    Local weights are loaded once per process (the models package caches them); API backends are
    cheap and built per request, so a typed key is held only while the request runs. A choice the
    operator does not allow (`visitor_policy`) sends nothing; the operator's own choice is asked
    exactly as configured, and only it may carry the operator's key.
    """
    from spiqa_demo.models import load_backend
    from spiqa_demo.ui.serving.guards.visitor_policy import ModelTarget, VisitorPolicy, operator_model

    if choice.backend == "none":
        return None, RETRIEVAL_ONLY_NOTICE
    settings = app_settings()
    configured = operator_model(settings)
    asked = ModelTarget(choice.backend, choice.model, choice.base_url if choice.backend == "openai" else "")
    verdict = VisitorPolicy.from_settings(settings).check(asked, configured)
    if verdict.refusal:
        return None, verdict.refusal
    target = configured if verdict.source == "operator" else asked
    typed = capped(api_key, "api_key").strip() if not settings.ui.ui_lock_model else ""
    try:
        backend = load_backend(
            settings.models,
            verdict.untrusted,
            backend=target.backend,
            model=target.model or None,
            base_url=target.base_url,
            api_key=typed or (None if verdict.source == "operator" else ""),
            image_size=choice.image_size,
        )
    except PaperError as exc:
        return None, f"No model answered: {exc}"
    return backend, ""


def describe(choice: ModelChoice) -> str:
    """One line for people: which model answers, with which task."""
    task = TASK_LABELS[choice.task]
    if choice.backend == "none":
        return "Retrieval only (no model)"
    where = f" at {choice.base_url}" if choice.backend == "openai" and choice.base_url else ""
    return f"{choice.model or 'default model'}{where} · {task.split(':')[0]}"


@dataclass(frozen=True)
class ModelPanel:
    """The panel's widgets; the chats, the judge and run-all read them as `inputs()`."""

    task: gr.Radio
    backend: gr.Radio
    model: gr.Textbox
    base_url: gr.Textbox
    api_key: gr.Textbox
    k: gr.Slider
    image_size: gr.Dropdown
    captions: gr.Checkbox

    def inputs(self) -> list[Block]:
        """The widgets in `ModelChoice.from_inputs` order, then the API key (handlers take them as `*panel` and
        read them with `PanelChoice.from_values`)."""
        return [self.task, self.backend, self.model, self.base_url, self.k, self.image_size, self.captions, self.api_key]


def build(settings: Settings | None = None) -> ModelPanel:
    """The panel's widgets (inside the caller's layout)."""
    import gradio as gr

    settings = settings or app_settings()
    choice = default_choice(settings)
    locked = settings.ui.ui_lock_model
    key_hint = "from the server's environment" if settings.models.api_key else "sk-..."
    task = gr.Radio(TASK_CHOICES, value=choice.task, label="Task", elem_id="task")
    with gr.Row():
        backend = gr.Radio(BACKEND_CHOICES, value=choice.backend, label="Model backend", interactive=not locked,
                           elem_id="backend")
    with gr.Row():
        model = gr.Textbox(value=choice.model, label="Model", interactive=not locked, elem_id="model", max_length=limit("model"),
                           placeholder="Hugging Face id or local folder; or the API's model name (gpt-4o)")
        base_url = gr.Textbox(value=choice.base_url, label="Base URL (OpenAI-compatible)", elem_id="base-url", max_length=limit("base_url"),
                              interactive=not locked, placeholder="http://127.0.0.1:8000/v1 (empty: OpenAI)")
    api_key = gr.Textbox(value="", label="API key (kept for this request only, never stored)", type="password",
                         placeholder=key_hint, interactive=not locked, elem_id="api-key", max_length=limit("api_key"))
    with gr.Row():
        k = gr.Slider(1, MAX_SHORTLIST, value=choice.k, step=1, label="Shortlist size (candidate figures)",
                      elem_id="shortlist-k")
        image_size = gr.Dropdown(IMAGE_SIZE_CHOICES, value=choice.image_size, label="Image resolution sent to the model",
                                 elem_id="image-size")
        captions = gr.Checkbox(value=choice.captions, label="Show captions to the model", elem_id="captions")
    if locked:
        gr.Markdown(f"This Space answers with **{describe(choice)}**; the model cannot be changed here.")
    return ModelPanel(task=task, backend=backend, model=model, base_url=base_url, api_key=api_key, k=k,
                         image_size=image_size, captions=captions)
