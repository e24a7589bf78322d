"""The evaluation suite: gold data, scoring rules and test-data builders shared by `benchmarks/` and `tests/`.

Not part of the installed product (`spiqa_demo`, `retrieval`): it reads the test-data folder and
answer keys, which the library never does. Import it from the repository root
(`python -m benchmarks.extraction`, or pytest with `pythonpath = .`).

- `extraction_gold`: pdffigures2's gold-set format and scoring rule (`load_gold_set`,
  `score_document`, `score_against_gold`, `Report`).
- `paper_checks`: a real paper's numbers against `papers/manifest.json` (`check_manifest`) and
  crop sanity (`crop_problem`).
- `pdf_factory`: synthetic paper PDFs with exact ground truth (and the bad inputs).
- `openai_listener`: an OpenAI-compatible endpoint on loopback that records requests (keys), can
  stream slowly (`benchmarks.app_load`) and holds requests until a test says go (the app and
  evaluation tests that act while a request is unanswered).
- `tiny_models`: tiny random-weight chat models built offline (`tiny_model_dir`, `make_image`).
"""
