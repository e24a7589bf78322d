"""Opening papers: one (`open_paper`) or an anchor paper and the cited papers a user provides (`PaperLibrary`).

- `open_paper(pdf, settings)` -> `OpenedPaper` (paper, PDF, figure/table index): the file checked
  (`check_file`), a copy kept when the caller gives a `Keeper`, extracted through the cache and
  indexed through the process's index store (`opening`);
- `PaperLibrary.open(anchor_pdf)` / `.add([pdf, folder, arXiv id, ...])`: papers extracted in
  parallel through the cache (`parallel`), from arguments sorted by `sources`;
- `.availability()`: each reference of the anchor with the provided paper that holds it, matched by
  arXiv id or title (`matching`, `titles`); `.unmatched()`: provided papers that match none;
- `.passages(keys)`: BM25 over those papers' passages, searchable per paper (from the index store);
- `records`: the typed results (`LibraryPaper`, `Availability`, `Notice`).
Bad input leaves a `Notice` and never stops the other papers.
"""

from spiqa_demo.library.library import PaperLibrary
from spiqa_demo.library.opening import Keeper, OpenedPaper, check_file, open_paper
from spiqa_demo.library.records import Availability, LibraryPaper, Notice

__all__ = ["Availability", "Keeper", "LibraryPaper", "Notice", "OpenedPaper", "PaperLibrary", "check_file", "open_paper"]
