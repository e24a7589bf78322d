"""The server knows while this session's paper is still uploading, so a question asked meanwhile waits for it.

Gradio tells the server of an upload only once the file has arrived (the File's `upload` event, which
starts the load); a question typed while a large PDF travels on a slow link would find no paper and
no load, and answer "Load a paper first". So the browser says when the upload box starts uploading
(a hidden button's event, sent as the box shows "Uploading"), and when an upload ends without a file
(failed, or cleared meanwhile); a finished upload's own event ends the mark when its load begins.
Nothing waits in the browser: each mark is an event of its own, and the question's wait is the
server's (`chat`), which a Stop ends like any other wait.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from spiqa_demo.ui.state.session import Session

# Run once on page load: watches the upload box (`#upload`) and clicks the marks' hidden buttons. An
# upload that ended with the box showing its file (`.file-preview`) is over when its load begins.
# `data-watched` on the box says the watch is on (an upload before it gets only the question's grace).
WATCH_JS = """() => { const box = document.querySelector('#upload'); if (!box) return; let uploading = false;
  new MutationObserver(() => {
    const now = Boolean(box.querySelector('.uploading'));
    if (now === uploading) return;
    uploading = now;
    if (now) document.querySelector('#upload-started')?.click();
    else if (!box.querySelector('.file-preview')) document.querySelector('#upload-failed')?.click();
  }).observe(box, {childList: true, subtree: true});
  box.dataset.watched = 'true'; }"""


@dataclass(frozen=True)
class UploadMarks:
    """The hidden buttons the browser clicks when an upload starts, and when one ends with no file."""

    started: gr.Button
    failed: gr.Button


def build() -> UploadMarks:
    return UploadMarks(started=gr.Button(visible="hidden", elem_id="upload-started"),
                       failed=gr.Button(visible="hidden", elem_id="upload-failed"))


def wire(marks: UploadMarks, session: gr.State) -> None:
    # Not queued: a mark must reach the session before a question sent just after it looks.
    marks.started.click(started, [session], None, queue=False, api_visibility="private")
    marks.failed.click(ended, [session], None, queue=False, api_visibility="private")


def started(session: Session | None) -> None:
    if session is not None:
        session.uploading = True


def ended(session: Session | None) -> None:
    """The upload is over: it failed or was cleared, or its load began (`paper_tab`)."""
    if session is not None:
        session.uploading = False
