"""The extraction cache stays under its size bound by dropping the least recently used papers."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from spiqa_demo.extraction import load_paper
from spiqa_demo.extraction.cache import paper_cache_dir, papers_root
from spiqa_demo.settings import ExtractionSettings

PAPERS = ("ecapa-tdnn-interspeech2020-2005.07143.pdf", "looking-beyond-text-pdffigures-aaai2015ws.pdf")


def _entries(settings: ExtractionSettings) -> list[Path]:
    return sorted(p for p in papers_root(settings).iterdir() if not p.name.startswith("."))


def test_eviction_keeps_the_newest_and_drops_the_least_recently_used(shared: Path, tmp_path: Path) -> None:
    roomy = ExtractionSettings(cache_dir=tmp_path / "cache", cache_max_mb=10_000)
    _, second = (load_paper(shared / "papers" / name, settings=roomy) for name in PAPERS)
    assert len(_entries(roomy)) == 2
    # Touch the first paper again so that the second becomes the least recently used.
    os.utime(paper_cache_dir(second, roomy) / "paper.json", (time.time() - 60, time.time() - 60))
    load_paper(shared / "papers" / PAPERS[0], settings=roomy)

    tight = ExtractionSettings(cache_dir=tmp_path / "cache", cache_max_mb=1)
    copy = tmp_path / "third.pdf"
    shutil.copy(shared / "papers" / "cbam-eccv2018.pdf", copy)
    third = load_paper(copy, settings=tight)
    left = _entries(tight)
    assert paper_cache_dir(third, tight) in left, "the paper just loaded is never evicted"
    assert paper_cache_dir(second, tight) not in left, "the least recently used paper goes first"
    assert all(Path(item.image).is_file() for item in third.items)


def test_a_cache_entry_is_never_half_written(shared: Path, tmp_path: Path) -> None:
    settings = ExtractionSettings(cache_dir=tmp_path / "cache")
    paper = load_paper(shared / "papers" / PAPERS[0], settings=settings)
    assert [p.name for p in papers_root(settings).iterdir()] == [paper_cache_dir(paper, settings).name]


def test_concurrent_extractions_and_evictions_do_not_break_each_other(shared: Path, tmp_path: Path) -> None:
    """A tight cache: every load evicts while other loads are still writing their staging folders."""
    from concurrent.futures import ThreadPoolExecutor

    tight = ExtractionSettings(cache_dir=tmp_path / "cache", cache_max_mb=1)
    copies = []
    for i in range(8):  # distinct bytes: each copy is its own cache entry
        copy = tmp_path / f"copy-{i}.pdf"
        copy.write_bytes((shared / "papers" / PAPERS[i % 2]).read_bytes() + f"\n%copy {i}\n".encode())
        copies.append(copy)
    with ThreadPoolExecutor(max_workers=4) as pool:
        papers = list(pool.map(lambda pdf: load_paper(pdf, settings=tight), copies))
    assert all(paper.items for paper in papers)
    assert not any(p.name.startswith(".staging-") for p in papers_root(tight).iterdir())


def test_an_entry_committed_meanwhile_by_another_process_wins(shared: Path, tmp_path: Path) -> None:
    """Processes sharing a cache (library workers, app replicas) may finish the same PDF at once."""
    from spiqa_demo.extraction.cache import commit

    settings = ExtractionSettings(cache_dir=tmp_path / "cache")
    paper = load_paper(shared / "papers" / PAPERS[0], settings=settings)
    folder = paper_cache_dir(paper, settings)
    staging = papers_root(settings) / ".staging-other"
    shutil.copytree(folder, staging)
    (staging / "paper.json").write_text("{}")  # the loser's copy must not replace the entry
    assert commit(staging, folder, settings) == paper
    assert not staging.exists() and _entries(settings) == [folder]


def test_a_folder_renamed_away_while_the_cache_is_walked_is_skipped(tmp_path: Path) -> None:
    """Another process commits its staging folder (a rename) while this one sizes the cache."""
    from spiqa_demo.files import files_under

    for name in ("a", "b"):
        (tmp_path / name / "crops").mkdir(parents=True)
        (tmp_path / name / "crops" / "x.png").write_bytes(b"x" * 10)
    (tmp_path / "paper.json").write_text("{}")
    walk = files_under(tmp_path)
    assert next(walk)[0].name == "paper.json"  # the top folder's files come first, its subfolders are listed
    (tmp_path / "b").rename(tmp_path / "c")
    assert [path.relative_to(tmp_path).as_posix() for path, _ in walk] == ["a/crops/x.png"]


def test_staging_folders_of_dead_writers_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    """A worker killed mid-extraction leaves its staging folder; another process's live one must stay."""
    import subprocess
    import sys

    from spiqa_demo.extraction.cache import STAGING, sweep_staging

    settings = ExtractionSettings(cache_dir=tmp_path / "cache")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    folders = {name: papers_root(settings) / f"{STAGING}{name}-x" for name in (dead.stdout.strip(), str(os.getpid()))}
    for folder in folders.values():
        (folder / "crops").mkdir(parents=True)
    assert sweep_staging(settings) == [folders[dead.stdout.strip()]]
    assert [f.name for f in papers_root(settings).iterdir()] == [folders[str(os.getpid())].name]
