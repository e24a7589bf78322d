"""Fetch a paper's PDF from arXiv by id or URL (extraction reads local files only): the app's
arXiv box and the paper library (`spiqa_demo.library`) both download through here.

The download is capped at `SPIQA_MAX_FILE_MB` and checked to be a PDF; without a network the
error says so and suggests uploading the file instead. `SPIQA_ARXIV_PDF_URL` points at a mirror.
"""

from __future__ import annotations

import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from spiqa_demo.errors import PaperError
from spiqa_demo.paper_text import find_arxiv_id
from spiqa_demo.settings import ExtractionSettings

TIMEOUT_S = 30


def parse_arxiv_id(text: str) -> str:
    """"arXiv:1706.03762v5", "https://arxiv.org/abs/1706.03762" -> "1706.03762v5" / "1706.03762"."""
    found = find_arxiv_id(text)
    if found is None:
        raise PaperError(f"{(text or '').strip()[:80]!r} is not an arXiv id: type one like 1706.03762 or an arxiv.org link")
    return str(found)


def download_arxiv_pdf(text: str, folder: Path, settings: ExtractionSettings) -> Path:
    """Download the PDF of the arXiv paper named in `text` into `folder`; `PaperError` when impossible.

    `settings` give the download address and the size limit a file must keep to.
    """
    arxiv_id = parse_arxiv_id(text)
    url = settings.arxiv_pdf_url.format(id=arxiv_id)
    limit = settings.max_file_mb * 1_000_000
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f"arxiv-{arxiv_id.replace('/', '_')}-", suffix=".pdf", dir=folder)
    os.close(handle)
    target = Path(name)
    request = urllib.request.Request(url, headers={"User-Agent": "spiqa-demo (paper QA app)"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply, target.open("wb") as out:
            size = 0
            while chunk := reply.read(1 << 16):
                size += len(chunk)
                if size > limit:
                    raise PaperError(f"arXiv {arxiv_id}: the PDF is over the {settings.max_file_mb} MB limit")
                out.write(chunk)
    except urllib.error.HTTPError as exc:
        target.unlink(missing_ok=True)
        if exc.code == 404:
            raise PaperError(f"arXiv has no paper {arxiv_id} (HTTP 404): check the id") from None
        raise PaperError(f"arXiv answered HTTP {exc.code} for {arxiv_id}; try again later or upload the PDF") from None
    except (urllib.error.URLError, OSError) as exc:
        target.unlink(missing_ok=True)
        reason = getattr(exc, "reason", exc)
        raise PaperError(
            f"cannot download arXiv {arxiv_id}: arxiv.org is not reachable from this server ({reason}). "
            "Download the PDF yourself and upload it instead."
        ) from None
    except PaperError:
        target.unlink(missing_ok=True)
        raise
    with target.open("rb") as fh:
        if b"%PDF-" not in fh.read(1024):
            target.unlink(missing_ok=True)
            raise PaperError(f"arXiv {arxiv_id}: the download is not a PDF (arXiv may be rate-limiting); upload the PDF instead")
    return target
