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

    # Where the project's real test data lives (tests and benchmarks only).
    shared_dir: Path = field(default_factory=lambda: Path(_env("SPIQA_SHARED", "../shared")))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings()
