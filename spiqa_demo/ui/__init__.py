"""The Gradio app, a thin layer over the library (no extraction, retrieval, model or metric logic here).

- `layout`: the Blocks and its event wiring; `build_demo()`, `launch_options()`.
- `paper_tab` (load a PDF / arXiv id through `spiqa_demo.arxiv` / example, gallery, figure on its
  page), `loading` (extract + index with progress), `examples`, `page_view` (page image with boxes).
- `chat` (streamed answers with the chosen figure and the shortlist), `model_settings` (the settings
  panel and backend choice), `session` (per-visitor state).
- `spiqa_check` (the benchmark-question panel over `spiqa_demo.evaluation.check`), `spiqa_images`.
- `error_analysis` (the tab over `spiqa_demo.evaluation.analysis`: rows, filters, plots, comparisons).
- `storage` (the bounded folder for uploads, pages and Gradio's files; `prepare_environment()`),
  `warmup` (background start-up), `preload` (on a ZeroGPU Space, the models loaded at import).
"""
