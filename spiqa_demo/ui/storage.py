"""The app's own files: uploaded PDFs, served crops, rendered pages and Gradio's temp files.

Everything lives under `<SPIQA_CACHE_DIR>/ui/` and is kept under `SPIQA_UI_CACHE_MAX_MB` by deleting
the least recently used files. The web server reads files only from the folders of `served_paths`:
copies of a loaded paper's crops and its rendered pages, under names keyed with a server secret
(`private_name`). The extraction cache itself is never served: its folder names are the PDFs'
hashes, so anyone holding a PDF could otherwise fetch its extracted text or learn whether someone
uploaded it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import shutil
import threading
from pathlib import Path

from spiqa_demo.files import files_under
from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import Settings
from spiqa_demo.types import Paper
from spiqa_demo.ui.app_settings import app_settings

_evict_lock = threading.Lock()


def ui_root(settings: Settings | None = None) -> Path:
    return (settings or app_settings()).ui.cache_dir / "ui"


def uploads_dir(settings: Settings | None = None) -> Path:
    return ui_root(settings) / "uploads"


def pages_dir(settings: Settings | None = None) -> Path:
    return ui_root(settings) / "pages"


def served_dir(settings: Settings | None = None) -> Path:
    """Crops of loaded papers, one folder per paper under its `private_name`."""
    return ui_root(settings) / "served"


def _secret(settings: Settings) -> bytes:
    """`SPIQA_UI_SECRET`, else a random secret made once and kept (mode 0600) in the UI folder."""
    if settings.ui.ui_secret:
        return settings.ui.ui_secret.get_secret_value().encode("utf-8")
    path = ui_root(settings) / ".secret"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_bytes()  # another thread made it first
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
        return path.read_bytes()


def private_name(key: str, settings: Settings | None = None) -> str:
    """A folder or file name for `key` (e.g. a PDF's hash) that only this server can compute."""
    settings = settings or app_settings()
    return hmac.new(_secret(settings), key.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def publish(paper: Paper, settings: Settings | None = None) -> Paper:
    """A copy of `paper` whose crops are served from its private folder (linked from the extraction cache)."""
    settings = settings or app_settings()
    folder = served_dir(settings) / private_name(f"{paper.sha256}-{paper.extractor_version}-{paper.dpi}", settings)
    folder.mkdir(parents=True, exist_ok=True)
    data = paper.to_dict()
    for item in data["items"]:
        if not item["image"]:
            continue
        source = Path(item["image"])
        target = folder / source.name
        if not target.exists():
            _link_or_copy(source, target)
        os.utime(target)
        item["image"] = str(target)
    evict(settings)
    return Paper.from_dict(data)


def _link_or_copy(source: Path, target: Path) -> None:
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        os.link(source, partial)
    except OSError:  # another file system, or links not supported
        shutil.copyfile(source, partial)
    os.replace(partial, target)


def gradio_temp_dir(settings: Settings | None = None) -> Path:
    """Where Gradio keeps uploads and the files it serves (set as GRADIO_TEMP_DIR before launch)."""
    return ui_root(settings) / "gradio"


def prepare_environment(settings: Settings) -> None:
    """Point Gradio's temp folder into the app's bounded folder and turn telemetry off.

    Call before Gradio is imported (some of its modules read the variable at import time).
    """
    folder = gradio_temp_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("GRADIO_TEMP_DIR", str(folder))
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def served_paths(settings: Settings | None = None) -> list[str]:
    """The folders the server may read files from besides Gradio's own temp folder: crops and pages."""
    settings = settings or app_settings()
    return [str(served_dir(settings)), str(pages_dir(settings))]


def discard(path: Path, settings: Settings | None = None) -> None:
    """Delete a file the app received (an upload, a download, its kept copy); never one outside the UI folder."""
    root = ui_root(settings).resolve()
    try:
        if path.resolve().is_relative_to(root):
            path.unlink(missing_ok=True)
    except OSError:
        return


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
    settings = settings or app_settings()
    limit = settings.ui.ui_cache_max_mb * 1_000_000
    with _evict_lock:
        files = [(stat.st_mtime, stat.st_size, path) for path, stat in files_under(ui_root(settings)) if path.name != ".secret"]
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= limit:
                break
            path.unlink(missing_ok=True)
            total -= size
