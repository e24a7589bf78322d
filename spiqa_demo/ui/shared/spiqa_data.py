"""The SPIQA files the app loaded (once per process): the SPIQA check matches a loaded paper in them, and
the error analysis finds a result's figure captions there."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import TYPE_CHECKING

from spiqa_demo.errors import PaperError
from spiqa_demo.ui.serving.app_settings import app_settings

if TYPE_CHECKING:
    from spiqa_demo.evaluation.spiqa import SpiqaDataset

log = logging.getLogger(__name__)

# Files looked for under <SPIQA_DATA_DIR>/spiqa when SPIQA_CHECK_DATASETS is empty, in this order.
DEFAULT_FILES = ("SPIQA_testA.json", "SPIQA_testB.json", "SPIQA_testB_sample.json", "SPIQA_testC.json",
                 "testC_qa_derived_from_official_responses.json")


def dataset_sources() -> list[str]:
    """The SPIQA files (or split names) papers are looked up in."""
    settings = app_settings()
    if settings.ui.check_datasets:
        return [s.strip() for s in settings.ui.check_datasets.split(",") if s.strip()]
    folder = settings.ui.data_dir / "spiqa"
    return [str(folder / name) for name in DEFAULT_FILES if (folder / name).is_file()]


@lru_cache(maxsize=1)
def benchmark_datasets() -> tuple[SpiqaDataset, ...]:
    """The loaded SPIQA files (once per process); one that cannot be loaded is skipped with a log line."""
    from spiqa_demo.evaluation.spiqa import load_dataset

    loaded = []
    for source in dataset_sources():
        try:
            loaded.append(load_dataset(source, settings=app_settings().evaluation))
        except PaperError as exc:
            log.warning("SPIQA check: skipping %s (%s)", source, exc)
    return tuple(loaded)
