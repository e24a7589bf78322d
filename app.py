"""The app's entry point (and the Hugging Face Space's `app_file`): `python app.py`.

Serves on 127.0.0.1:7860 (GRADIO_SERVER_NAME / GRADIO_SERVER_PORT change it). Heavy libraries
(PyMuPDF, the sentence encoder) load in the background: the paper readers' first, while Gradio is
imported and the page is built, the rest once it is served (`spiqa_demo.ui.app.warmup`); on a ZeroGPU Space a local
model loads first, at import (`spiqa_demo.ui.app.preload`).
"""

import sys

from spiqa_demo.errors import InputError
from spiqa_demo.settings import get_settings
from spiqa_demo.ui.app.allocator import tune_allocator
from spiqa_demo.ui.serving.files.storage import prepare_environment

try:
    settings = get_settings()  # the one read of the environment; everything below is handed these
    prepare_environment(settings)  # before Gradio is imported
    tune_allocator(settings.ui)  # before the server's threads make their arenas
except InputError as exc:  # a bad SPIQA_* variable: say which, in one line, and stop
    sys.exit(f"error: {exc}")

from spiqa_demo.ui.app.warmup import start_first_reader, start_warmup

start_first_reader(settings)  # first, beside importing Gradio and building the page: the first paper waits for a reader's encoder

from spiqa_demo.ui.app.layout import build_demo, launch_options  # noqa: E402  # after the first reader has started
from spiqa_demo.ui.app.preload import preload_on_zerogpu  # noqa: E402

preload_on_zerogpu(settings)  # ZeroGPU: local weights load now, never inside a visitor's GPU time
demo = build_demo(settings)

if __name__ == "__main__":
    demo.launch(prevent_thread_lock=True, **launch_options())
    start_warmup()
    demo.block_thread()
