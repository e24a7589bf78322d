"""The app's own files: uploaded PDFs, rendered pages and Gradio's temp files, in one bounded folder.

Everything lives under `<SPIQA_CACHE_DIR>/ui/` and is kept under `SPIQA_UI_CACHE_MAX_MB` by deleting
the least recently used files. Extraction crops stay in the extraction cache (bounded by
`SPIQA_CACHE_MAX_MB`). These folders, and nothing else, are what the web server may read files
from (`served_paths`), so no other path of the machine is reachable through the app.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path

from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import Settings, get_settings

_evict_lock = threading.Lock()


def ui_root(settings: Settings | None = None) -> Path:
    return (settings or get_settings()).cache_dir / "ui"


def uploads_dir(settings: Settings | None = None) -> Path:
    return ui_root(settings) / "uploads"


def pages_dir(settings: Settings | None = None) -> Path:
    return ui_root(settings) / "pages"


def gradio_temp_dir(settings: Settings | None = None) -> Path:
    """Where Gradio keeps uploads and the files it serves (set as GRADIO_TEMP_DIR before launch)."""
    return ui_root(settings) / "gradio"


def prepare_environment() -> None:
    """Point Gradio's temp folder into the app's bounded folder and turn telemetry off.

    Call before Gradio is imported (some of its modules read the variable at import time).
    """
    folder = gradio_temp_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("GRADIO_TEMP_DIR", str(folder))
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def served_paths(settings: Settings | None = None) -> list[str]:
    """The folders the server may read files from besides Gradio's own temp folder: crops and pages."""
    settings = settings or get_settings()
    return [str(settings.cache_dir / "papers"), str(pages_dir(settings))]


def keep_upload(source: Path, settings: Settings | None = None) -> Path:
    """A copy of an uploaded (or downloaded) PDF in a folder named by its content hash.

    The copy outlives Gradio's temp file, so the paper's pages can still be shown later; it keeps
    the file's name (made safe), which may carry the arXiv id the extraction looks for.
    """
    name = re.sub(r"[^\w.\-]+", "_", source.stem)[:100] or "paper"
    target = uploads_dir(settings) / sha256_of(source)[:32] / f"{name}.pdf"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    os.utime(target)
    evict(settings)
    return target


def evict(settings: Settings | None = None) -> None:
    """Delete least recently used files under the UI folder until it fits `ui_cache_max_mb`."""
    settings = settings or get_settings()
    limit = settings.ui_cache_max_mb * 1_000_000
    with _evict_lock:
        files = []
        for path in ui_root(settings).rglob("*"):
            try:
                if path.is_file():
                    stat = path.stat()
                    files.append((stat.st_mtime, stat.st_size, path))
            except OSError:
                continue  # deleted meanwhile
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= limit:
                break
            path.unlink(missing_ok=True)
            total -= size
