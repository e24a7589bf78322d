"""The app's own files: uploaded PDFs, served crops, rendered pages and Gradio's temp files.

Everything lives under `<SPIQA_CACHE_DIR>/ui/` and is kept under `SPIQA_UI_CACHE_MAX_MB`. Room is
made before an upload streams in (`reserve`, from the upload route's middleware `upload_room`) and
after every file the app writes (`evict`): uploads no live session holds go first (never loaded,
or their session expired), oldest first, then other files no live session shows; a file a live
session shows or is loading (`live`: its PDF, crops, page images) is never deleted, and an upload
that finds no room is refused. A session's PDFs together stay under `SPIQA_UI_UPLOAD_QUOTA_MB`
(`accept_upload`). The web server reads files only from the folders of `served_paths`: copies of a
loaded paper's crops and its rendered pages, under names keyed with a server secret
(`private_name`), served where they lie (Gradio makes no copies of them). The extraction cache
itself is never served: its folder names are the PDFs' hashes, so anyone holding a PDF could
otherwise fetch its extracted text or learn whether someone uploaded it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import shutil
import threading
from collections.abc import Hashable
from pathlib import Path

from spiqa_demo.errors import InputError
from spiqa_demo.files import files_under, write_whole
from spiqa_demo.hashing import sha256_of
from spiqa_demo.settings import Settings
from spiqa_demo.types import Paper
from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.files.live_files import LiveFiles, is_held

_evict_lock = threading.Lock()
_reserved = [0]  # bytes of uploads streaming in, room already made for them
live = LiveFiles()  # the files live sessions show or are loading
FOLDER_FULL = ("the app's file space is full of papers other visitors are reading "
               "({used} of {limit} MB); try again in a while")


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


def in_use(session: object) -> None:
    """`session` (a visitor's state) was used now: what it shows stays held for another `SPIQA_UI_SESSION_TTL_S`."""
    live.touch(id(session))


def served_folder(paper: Paper, settings: Settings | None = None) -> Path:
    """The private folder `paper`'s crops are served from."""
    settings = settings or app_settings()
    return served_dir(settings) / private_name(f"{paper.sha256}-{paper.extractor_version}-{paper.dpi}", settings)


def pages_prefix(pdf: Path, settings: Settings | None = None) -> Path:
    """The name prefix of the page images of a kept PDF (`<prefix>-p<page>-...png`); its folder is its content hash."""
    return pages_dir(settings) / private_name(pdf.parent.name, settings)


def publish(paper: Paper, settings: Settings | None = None) -> Paper:
    """A copy of `paper` whose crops are served from its private folder (linked from the extraction cache).

    The caller holds the folder for its session (`live`) before anything evicts.
    """
    settings = settings or app_settings()
    folder = served_folder(paper, settings)
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
    return Paper.from_dict(data)


def paper_files(paper: Paper, pdf: Path, settings: Settings | None = None) -> list[Path]:
    """What a session showing `paper` (published, read from the kept `pdf`) shows: its PDF, crops and page images."""
    return [pdf, served_folder(paper, settings), pages_prefix(pdf, settings)]


def _link_or_copy(source: Path, target: Path) -> None:
    def linked(partial: Path) -> None:
        partial.unlink()  # a link needs the name free
        try:
            os.link(source, partial)
        except OSError:  # another file system, or links not supported
            shutil.copyfile(source, partial)

    write_whole(target, linked)


def gradio_temp_dir(settings: Settings | None = None) -> Path:
    """Where Gradio keeps uploads and the files it serves (set as GRADIO_TEMP_DIR before launch)."""
    return ui_root(settings) / "gradio"


def export_path(name: str, settings: Settings | None = None) -> Path:
    """A fresh path for a file a visitor downloads (an error-analysis export), in a folder of its own
    under Gradio's temp folder: served from there, deleted with Gradio's old files, bounded by `evict`."""
    folder = gradio_temp_dir(settings) / "exports" / secrets.token_hex(16)
    folder.mkdir(parents=True, exist_ok=True)
    evict(settings)
    return folder / name


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
    """Delete a file the app received (an upload, a download, its kept copy); never one outside the UI
    folder, and never one a live session holds (the same PDF, loaded by someone else)."""
    root = ui_root(settings).resolve()
    try:
        if path.resolve().is_relative_to(root) and not is_held(path, live.entries()):
            path.unlink(missing_ok=True)
    except OSError:
        return


def kept_path(source: Path, settings: Settings | None = None) -> Path:
    """Where `keep_upload` keeps `source`: a folder named by its content hash, under its own name made safe."""
    name = re.sub(r"[^\w.\-]+", "_", source.stem)[:100] or "paper"
    return uploads_dir(settings) / sha256_of(source)[:32] / f"{name}.pdf"


def keep_upload(source: Path, settings: Settings | None = None) -> Path:
    """A copy of an uploaded (or downloaded) PDF at its `kept_path`.

    The copy outlives Gradio's temp file, so the paper's pages can still be shown later; it keeps
    the file's name (made safe), which may carry the arXiv id the extraction looks for.
    """
    target = kept_path(source, settings)
    if not target.exists():
        write_whole(target, lambda partial: shutil.copyfile(source, partial))
    os.utime(target)
    return target


def accept_upload(owner: Hashable, name: Hashable, source: Path, settings: Settings | None = None) -> Path:
    """The app's kept copy of `source` for session `owner`, held (with its page images) under `name`;
    an `InputError`, and `source` deleted when the app received it, past the session's quota or when
    no room can be made without deleting what live sessions show."""
    settings = settings or app_settings()
    if not source.is_file():
        raise InputError(f"{source.name}: the file did not arrive (it may have been cleaned up); send it again")
    size = source.stat().st_size
    target = kept_path(source, settings)
    others = {p for p in map(Path, live.entries(owner)) if p.suffix == ".pdf" and p not in (source, target)}
    held = sum(p.stat().st_size for p in others if p.is_file())
    problem = ""
    if held + size > settings.ui.ui_upload_quota_mb * 1_000_000:
        problem = (f"{source.name}: your papers in this session would take {(held + size) / 1e6:.0f} MB, over the "
                   f"{settings.ui.ui_upload_quota_mb} MB a session may use (SPIQA_UI_UPLOAD_QUOTA_MB)")
    elif not evict(settings, room=size):
        problem = f"{source.name}: " + _full(settings)
    if problem:
        discard(source, settings)  # unless held: a load deletes its upload once it lets go of it
        raise InputError(problem)
    kept = keep_upload(source, settings)
    live.add(owner, name, [kept, pages_prefix(kept, settings)])
    return kept


def reject(owner: Hashable, name: Hashable, kept: Path, settings: Settings | None = None) -> None:
    """A kept upload `accept_upload` held for `owner` turned out unreadable: let go of it and delete it."""
    live.let_go(owner, name, [kept, pages_prefix(kept, settings)])
    discard(kept, settings)


def _full(settings: Settings) -> str:
    used = sum(stat.st_size for _, stat in files_under(ui_root(settings)))
    return FOLDER_FULL.format(used=round(used / 1e6), limit=settings.ui.ui_cache_max_mb)


def reserve(size: int, settings: Settings | None = None) -> str:
    """Make room for an upload of `size` bytes about to stream in and set it aside until `unreserve`;
    "" when done, else why there is no room (the upload is refused)."""
    settings = settings or app_settings()
    with _evict_lock:
        if not _evict(settings, size + _reserved[0]):
            return _full(settings)
        _reserved[0] += size
    return ""


def unreserve(size: int) -> None:
    with _evict_lock:
        _reserved[0] -= size


def evict(settings: Settings | None = None, room: int = 0) -> bool:
    """Delete files no live session holds until the UI folder, plus `room` bytes (and the uploads
    streaming in), fits `ui_cache_max_mb`: uploads first, then the rest, oldest first. Whether it fits."""
    settings = settings or app_settings()
    with _evict_lock:
        return _evict(settings, room + _reserved[0])


def _evict(settings: Settings, room: int) -> bool:
    limit = settings.ui.ui_cache_max_mb * 1_000_000 - room
    live.expire(settings.ui.ui_session_ttl_s)
    held = live.entries()
    files = [(path, stat) for path, stat in files_under(ui_root(settings)) if path.name != ".secret"]
    total = sum(stat.st_size for _, stat in files)
    uploads = [gradio_temp_dir(settings), uploads_dir(settings), ui_root(settings) / "downloads"]
    unheld = sorted((not any(path.is_relative_to(folder) for folder in uploads), stat.st_mtime, stat.st_size, path)
                    for path, stat in files if not is_held(path, held))
    for _, _, size, path in unheld:
        if total <= limit:
            break
        path.unlink(missing_ok=True)
        total -= size
    return total <= limit
