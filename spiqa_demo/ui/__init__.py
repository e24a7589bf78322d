"""The Gradio app, a thin layer over the library (no extraction, retrieval, model or metric logic here).

Each tab or panel is a module whose `build()` returns a frozen dataclass of its widgets and whose
`wire()` connects its events (the model settings have none: the others read them). Handlers return
named outputs (a NamedTuple whose `components()` lists the widgets in the same order), never bare
tuples that must line up with a list elsewhere; a handler that fills one widget returns its value
(Gradio gives a single output the whole return value, so a one-field NamedTuple would reach it as a tuple).

- `layout`: places the tabs and calls each `wire()`; `build_demo(settings)`, `launch_options()`; `app_settings`: the settings the app was built with, which its handlers read.
- `paper_tab` (load a PDF / arXiv id through `spiqa_demo.arxiv` / example, gallery, figure on its
  page, the chat), `loading` (extract + index with progress, in `workers`' processes), `examples`,
  `page_view` (page image with boxes), `page_viewer` (the viewer), `page_renders` (pages drawn in workers).
- `workers` (processes with CPU and memory limits for work that could cost anything: loads, cited
  papers, page images, result files); `result_files` (result files scored there).
- `chat` (streamed answers with the chosen figure and the shortlist), `model_settings` (the settings
  panel and backend choice), `session` (per-visitor state), `question_box` (the Ask/Stop box of both chats).
- `spiqa_check` (the benchmark-question panel over `spiqa_demo.evaluation.check`), `spiqa_images`.
- `across_tab` (the loaded paper's references, adding cited papers through `cited_loading`), `across_chat`
  (answers from the cited papers), `across_session` (its per-visitor state).
- `error_analysis` (the tab over `spiqa_demo.evaluation.analysis`: rows, filters, plots, comparisons).
- `queues` (how waiting events run: `steps` that wait holding no thread), `model_calls` (the model
  pools), `fair_queue` (work shared by all visitors, one running per session, sessions in turn),
  `visitor_policy` (the models and endpoints a visitor may choose), `messages` (library messages as sentences).
- `storage` (the bounded folder for uploads, pages and Gradio's files; `prepare_environment(settings)`),
  `live_files` (what live sessions show, never cleaned up), `upload_room` (room made before an upload
  streams in), `warmup` (background start-up), `preload` (on a ZeroGPU Space, the models loaded at import),
  `allocator` (the server's C allocator set at start, so memory sessions freed leaves the process).
"""
