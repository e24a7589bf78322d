"""The Gradio app, a thin layer over the library (no extraction, retrieval, model or metric logic here).

Each tab or panel is a module whose `build()` returns a frozen dataclass of its widgets and whose
`wire()` connects its events (the model settings have none: the others read them). Handlers return
named outputs (a NamedTuple whose `components()` lists the widgets in the same order), never bare
tuples that must line up with a list elsewhere; a handler that fills one widget returns its value
(Gradio gives a single output the whole return value, so a one-field NamedTuple would reach it as a tuple).

The folders, by role; each imports only the folders listed before it (`tests/test_layering.py`), so
`serving` imports none of the others, and no tab imports another:
- `serving/`: the shared-app machinery. `app_settings` (the settings the app was built with, which its handlers
  read), `messages` (library messages as sentences), `chat_messages` (a chat message's type, as the chatbots
  hold it), `untrusted` (text made inert for Markdown).
  - `work/`: `steps` and `queues` (waits that hold no thread), `pools` (every shared pool, sized by the settings),
    `fair_queue` (one job running per session, sessions in turn), `workers` (processes with CPU and memory
    limits), `readers` (the paper loads' worker processes, light to import), `model_calls`, `loading` (a paper
    extracted and indexed with progress), `cited_loading`,
    `page_renders` and `page_view` (page images with boxes), `result_files` (result files scored in workers).
  - `guards/`: `request_size`, `upload_room` (room made before an upload streams in), `input_limits`,
    `visitor_policy` (the models and endpoints a visitor may choose), `session_expiry`, `repeats`.
  - `files/`: `storage` (the bounded folder for uploads, pages and Gradio's files; `prepare_environment(settings)`),
    `live_files` (what live sessions show, never cleaned up).
- `state/`: `session` (the Paper tab's), `across_session`, `results` (the Error analysis tab's), `chat_history`.
- `shared/`: `chat_stream` (the streaming both chats use), `events` (what the Paper tab hands the others),
  `question_box`, `page_viewer`, `model_settings` (the settings panel and backend choice), `outputs`, `follow`,
  `spiqa_data` and `spiqa_images` (SPIQA's files and figure images).
- `tabs/`: `paper/` (`paper_tab`, `chat`, `reader_chat`, `spiqa_check`, `exports`, `examples`), `across/`
  (`across_tab`, `across_chat`), `errors/` (`error_analysis`, `error_compare`, `spiqa_figures`).
- `app/`: the composition root: `layout` (`build_demo(settings)`, `launch_options()`), `warmup` (background
  start-up), `preload` (on a ZeroGPU Space, the models loaded at import),
  `allocator` (the server's C allocator set at start, so memory sessions freed leaves the process).
"""
