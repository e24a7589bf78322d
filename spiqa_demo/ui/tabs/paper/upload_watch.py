"""The server knows while this session's paper is still uploading, so a question asked meanwhile waits for it.

Gradio tells the server of an upload only once the file has arrived (the File's `upload` event, which
starts the load); a question typed while a large PDF travels on a slow link would find no paper and
no load, and answer "Load a paper first". So the browser says when the upload box starts uploading
(a hidden button's event, sent as the box shows "Uploading"), and when an upload ends without a file
(failed, or cleared meanwhile); a finished upload's own event ends the mark when its load begins.
The page numbers its uploads and each word names its upload (`state.uploads`): a start mark that
reaches the server after its upload's load has begun changes nothing.
Nothing waits in the browser: each mark is an event of its own, and the question's wait is the
server's (`chat`), which a Stop ends like any other wait.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from spiqa_demo.ui.state.session import Session

# Run once on page load: watches the upload box (`#upload`), numbers its uploads (`data-uploads`: how
# many started) and clicks the marks' hidden buttons. An upload that ended with the box showing its file
# (`.file-preview`) is over when its load begins. `data-watched` on the box says the watch is on (an
# upload before it gets only the question's grace).
WATCH_JS = """() => { const box = document.querySelector('#upload'); if (!box) return; let uploading = false;
  box.dataset.uploads = '0';
  new MutationObserver(() => {
    const now = Boolean(box.querySelector('.uploading'));
    if (now === uploading) return;
    uploading = now;
    if (now) { box.dataset.uploads = String(Number(box.dataset.uploads) + 1); document.querySelector('#upload-started')?.click(); }
    else if (!box.querySelector('.file-preview')) document.querySelector('#upload-failed')?.click();
  }).observe(box, {childList: true, subtree: true});
  box.dataset.watched = 'true'; }"""


def numbered(position: int, inputs: int) -> str:
    """The js put before an event's handler to send, as its input at `position` of `inputs`, the number of
    the page's latest upload: the one a mark or a load is about (each is sent as its upload starts or
    ends). Gradio hands the js the outputs' values after the inputs': only the inputs go on."""
    return (f"(...values) => {{ values[{position}] = Number(document.querySelector('#upload')?.dataset.uploads ?? 0); "
            f"return values.slice(0, {inputs}); }}")


@dataclass(frozen=True)
class UploadMarks:
    """The hidden buttons the browser clicks when an upload starts, and when one ends with no file, and
    the upload's number they and the upload's load send (`numbered`)."""

    started: gr.Button
    failed: gr.Button
    number: gr.Number


def build() -> UploadMarks:
    return UploadMarks(started=gr.Button(visible="hidden", elem_id="upload-started"),
                       failed=gr.Button(visible="hidden", elem_id="upload-failed"),
                       number=gr.Number(0, visible="hidden", precision=0, elem_id="upload-number",
                                        label="the page's upload number (0: none)"))


def wire(marks: UploadMarks, session: gr.State) -> None:
    # Not queued: a mark must reach the session before a question sent just after it looks.
    for button, fn in ((marks.started, started), (marks.failed, ended)):
        button.click(fn, [session, marks.number], None, js=numbered(1, 2), queue=False, api_visibility="private")


def started(session: Session | None, number: float | None) -> None:
    if session is not None:
        session.uploads.start(int(number or 0))


def ended(session: Session | None, number: float | None = 0) -> None:
    """Upload `number` is over: it failed or was cleared, or its load began (`paper_tab`); 0 (not
    numbered: another loader's paper, an API client) ends every upload started so far."""
    if session is not None:
        session.uploads.end(int(number or 0))
