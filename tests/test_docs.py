"""The docs build with `mkdocs build --strict` (a broken link, anchor or a page left out of the nav fails
here), and the README's links into them lead to pages that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_LIMIT_BYTES = 12_000  # what a visitor reads first; the rest lives in docs/


def test_the_docs_build_strictly(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8").count("ask_turn_stream") > 1


def test_the_readme_is_short_and_links_to_pages_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < README_LIMIT_BYTES
    assert readme.index("make run") < readme.index("make test") < readme.index("## A ten-line tour")
    links = re.findall(r"\]\(((?:docs/)[^)#]*)", readme)
    assert links and [link for link in links if not (ROOT / link).exists()] == []
