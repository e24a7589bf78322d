"""Unpack a SPIQA figure archive: its images only, within a size bound, whatever the archive claims.

The archive comes from wherever `SPIQA_HF_ENDPOINT` points, and what it unpacks is served by the
app on its own origin. So a member is written only when it is an image by its content as well as
by its name (PNG, JPEG, GIF or WebP, the name's suffix agreeing with the content, so the server's
content type for it is an image's): an HTML or SVG page would run its scripts on the app's origin.
And the bytes written are bounded, per member and in all: first by the sizes the zip's headers
declare, then by counting while each member streams out, since a crafted archive's headers lie (a
small file declared, a huge one inflated).
"""

from __future__ import annotations

import logging
import shutil
import zipfile
from pathlib import Path, PurePosixPath

from spiqa_demo.errors import PaperError

log = logging.getLogger(__name__)

CHUNK = 1 << 20
# The first bytes of each image kind served, and the suffixes naming it.
SIGNATURES: dict[tuple[str, ...], tuple[bytes, ...]] = {
    (".png",): (b"\x89PNG\r\n\x1a\n",),
    (".jpg", ".jpeg"): (b"\xff\xd8\xff",),
    (".gif",): (b"GIF87a", b"GIF89a"),
    (".webp",): (b"RIFF",),  # then four bytes of length, then "WEBP" (checked below)
}
IMAGE_SUFFIXES = tuple(suffix for suffixes in SIGNATURES for suffix in suffixes)


def is_image(name: str, head: bytes) -> bool:
    """Whether a file named `name` whose first bytes are `head` is an image of the kind its suffix names."""
    suffix = PurePosixPath(name).suffix.lower()
    for suffixes, starts in SIGNATURES.items():
        if suffix in suffixes:
            return head.startswith(starts) and (suffix != ".webp" or head[8:12] == b"WEBP")
    return False


def unpack_images(archive: Path, target: Path, max_bytes: int, max_member_bytes: int) -> int:
    """Write the images of `archive` under `target` (which must not exist yet); the number written.

    Raises `PaperError` (leaving nothing under `target`) when the archive is not a zip, names a
    path outside `target`, or unpacks to more than `max_bytes` in all or `max_member_bytes` for one
    image; other members (not images by name and content) are skipped.
    """
    limit = f"{max_bytes // 1_000_000} MB in all, {max_member_bytes // 1_000_000} MB per image"
    too_big = f"{archive.name} unpacks to more than this app takes ({limit}; SPIQA_IMAGES_MAX_MB sets the total)"
    try:
        with zipfile.ZipFile(archive) as zipped:
            everything = [m for m in zipped.infolist() if not m.is_dir()]
            members = [m for m in everything if m.filename.lower().endswith(IMAGE_SUFFIXES)]
            for member in members:
                if not _inside(member.filename):
                    raise PaperError(f"{archive.name}: unsafe path {member.filename!r} in the archive")
            if any(m.file_size > max_member_bytes for m in members) or sum(m.file_size for m in members) > max_bytes:
                raise PaperError(too_big)
            target.mkdir(parents=True)
            written, left = 0, max_bytes
            for member in members:
                size = _copy(zipped, member, target, min(max_member_bytes, left))
                if size < 0:
                    raise PaperError(too_big)
                left -= size
                written += size > 0
    except zipfile.BadZipFile as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise PaperError(f"{archive.name} is not a valid zip archive ({exc}); delete it from the Hugging Face cache and retry") from exc
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    if written < len(everything):
        log.info("%s: %d of %d files are not images and were not unpacked", archive.name, len(everything) - written, len(everything))
    return written


def _inside(name: str) -> bool:
    """Whether a member's name is a relative path that stays inside the folder it is unpacked to."""
    path = PurePosixPath(name.replace("\\", "/"))
    return not path.is_absolute() and ".." not in path.parts and not (path.parts and ":" in path.parts[0])


def _copy(zipped: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, budget: int) -> int:
    """Stream `member` to its place under `target`: the bytes written, 0 when it is no image (nothing
    written), -1 when it holds more than `budget` bytes (what was written is left for the caller)."""
    destination = target.joinpath(*PurePosixPath(member.filename.replace("\\", "/")).parts)
    with zipped.open(member) as source:
        head = source.read(16)
        if not is_image(member.filename, head):
            return 0
        destination.parent.mkdir(parents=True, exist_ok=True)
        size = 0
        with destination.open("wb") as out:
            chunk = head
            while chunk:
                size += len(chunk)
                if size > budget:
                    return -1
                out.write(chunk)
                chunk = source.read(CHUNK)
    return size
