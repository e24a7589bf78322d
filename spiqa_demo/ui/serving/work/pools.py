"""Every pool the app's visitors share, built in one place, each sized by its `UISettings` field.

Each is a `FairQueue` (one job running per session, sessions in turn) except the cited-paper adds,
threads that mostly wait for `LOADS`. The queues exist from import, but take their number of slots
from the installed settings when first used: the app installs its settings when `build_demo` runs,
after these modules are imported. Their worker processes (`workers.SlotWorkers`) follow the slots.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from spiqa_demo.ui.serving.app_settings import app_settings
from spiqa_demo.ui.serving.work.fair_queue import FairQueue, Job

# Paper loads and cited papers, read in worker processes (`loading`).
LOADS: FairQueue[Job] = FairQueue(lambda: app_settings().ui.ui_paper_concurrency, "paper-load")
# The viewer's page images (`page_renders`).
RENDERS: FairQueue[Job] = FairQueue(lambda: app_settings().ui.ui_render_concurrency, "page-render")
# Result files read and scored (`result_files`).
SCORING: FairQueue[Job] = FairQueue(lambda: app_settings().ui.ui_results_concurrency, "results")
# Model calls (`model_calls`): local models share one copy in memory; remote APIs answer independently.
LOCAL_MODELS: FairQueue[Job] = FairQueue(lambda: app_settings().ui.ui_model_concurrency, "local-model")
API_MODELS: FairQueue[Job] = FairQueue(lambda: app_settings().ui.ui_api_concurrency, "api-model")
# Cited-paper adds (`cited_loading`): their threads mostly wait for `LOADS`, so enough for several sessions' adds.
CITED_ADDS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="cited-load")
