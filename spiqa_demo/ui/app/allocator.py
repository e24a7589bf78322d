"""How the server's C allocator (glibc malloc) holds memory, set once at start so that what a load
test frees goes back to the system.

With its defaults, glibc gives each of up to 8 x cores threads an arena of its own (the server runs
dozens: Gradio's workers, the queues' slots, the embedder's), and after a large block is freed it
raises the size above which blocks are mapped apart, up to 32 MB, so a paper's pickled extraction
and the arrays of its index land inside the arenas. Freed, those blocks leave holes the arenas keep:
after 20-session runs the server held about 100 MB more than at start, nearly all of it free memory
inside arenas, with every session forgotten and `malloc_trim` returning under half of it. Two
arenas (`SPIQA_UI_MALLOC_ARENAS`) and a fixed mapping size (`SPIQA_UI_MMAP_THRESHOLD_KB`: a larger
block is mapped on its own and unmapped when freed) leave almost nothing free inside the arenas.
Elsewhere (musl, macOS) nothing is changed.
"""

from __future__ import annotations

import ctypes
import platform

from spiqa_demo.settings import UISettings

# mallopt's parameters (glibc's malloc.h).
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


def tune_allocator(settings: UISettings) -> bool:
    """Set glibc's arena count and mapping size from `settings` (0 leaves glibc's default); call before
    the server starts its threads (arenas already made are kept). False where glibc is not the C library
    or refused a value."""
    if platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(None)  # the C library the process runs on
    wanted = [(M_ARENA_MAX, settings.ui_malloc_arenas), (M_MMAP_THRESHOLD, settings.ui_mmap_threshold_kb * 1024)]
    return all(libc.mallopt(parameter, value) == 1 for parameter, value in wanted if value)
