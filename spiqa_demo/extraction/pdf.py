"""PyMuPDF, imported without its optional layout analyser.

PyMuPDF 2.0 imports `pymupdf.layout` (and with it onnxruntime) whenever it is installed: most of
the time of `import pymupdf`, paid by every CLI call and app start, for a feature this project
does not use. Marking the module absent before the import skips it.
"""

import sys

sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]  # None blocks an import (Python's documented way)

import pymupdf  # noqa: E402  # only after pymupdf.layout is blocked above

__all__ = ["pymupdf"]
