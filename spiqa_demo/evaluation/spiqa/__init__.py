"""SPIQA benchmark data: load any split into one typed model, fetch it from the hub, link it to PDFs.

Public API (everything else is internal):

- `load_dataset(path_or_split, split=None, strict=False) -> SpiqaDataset` — test-A/train/val,
  test-B, test-C (official) and the test-C file rebuilt from official responses; shape detected.
  A split name ("test-A", ...) instead of a path downloads from Hugging Face `google/spiqa`.
- `SpiqaDataset` (split, shape, papers, `questions()`, `paper(arxiv_id)`), `SpiqaPaper`
  (paper_id = arXiv id without version, title, figures by file, questions, passages),
  `SpiqaQuestion` (question, answer, references = ground-truth figure files), `SpiqaFigure`
  (file, caption, kind, number, page hint, `figure_type`).
- `FIGURE_TYPES` / `FIGURE_TYPE_NAMES`: SPIQA Table 6 categories (table, schematic, plot,
  visualization, other); `normalise_figure_type(raw, kind)` maps SPIQA's raw labels.
- `parse_figure_file(name) -> FigureName | None`: `3-TableII-1.png` -> kind table, number "2", page 3
  (labels and arXiv ids follow `spiqa_demo.paper_text`).
- `find_spiqa_paper(paper, datasets)` and `map_figures(spiqa_paper, paper)` (in `match`): an
  extracted `Paper` -> its SPIQA paper, and SPIQA figure files -> extracted `Figure`s.
- `fetch_split_json(split)`, `fetch_split_images(split)` (in `hub`): Hugging Face downloads.
- `convert.to_paper(spiqa_paper)`: a SPIQA paper as a `spiqa_demo.types.Paper` (captions,
  passages, mentions), so retrieval and QA run on benchmark data unchanged.

Every bad input raises `spiqa_demo.errors.PaperError`.
"""

from spiqa_demo.evaluation.spiqa.figure_names import FigureName, parse_figure_file
from spiqa_demo.evaluation.spiqa.figure_types import FIGURE_TYPE_NAMES, FIGURE_TYPES, FigureType, normalise_figure_type
from spiqa_demo.evaluation.spiqa.hub import fetch_split_images, fetch_split_json
from spiqa_demo.evaluation.spiqa.loaders import detect_shape, load_dataset, split_from_name
from spiqa_demo.evaluation.spiqa.match import FigureMatch, find_spiqa_paper, map_figures
from spiqa_demo.evaluation.spiqa.model import SpiqaDataset, SpiqaFigure, SpiqaPaper, SpiqaQuestion

__all__ = [
    "FIGURE_TYPES",
    "FIGURE_TYPE_NAMES",
    "FigureMatch",
    "FigureName",
    "FigureType",
    "SpiqaDataset",
    "SpiqaFigure",
    "SpiqaPaper",
    "SpiqaQuestion",
    "detect_shape",
    "fetch_split_images",
    "fetch_split_json",
    "find_spiqa_paper",
    "load_dataset",
    "map_figures",
    "normalise_figure_type",
    "parse_figure_file",
    "split_from_name",
]
