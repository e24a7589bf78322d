"""The page's selectable text in the browser, for every page view (the Paper tab's viewer, the Across
tab's cited page): the worker that draws a page writes its printed lines with their boxes
(`page_view.page_text`), and the browser lays them over the image as transparent text
(`TEXT_LAYER`), each line stretched to its printed width and scaled with the page, so a reader selects
and copies the paper's words where they are printed. The lines are set as DOM text (`textContent`),
never as markup, so a PDF's text stays inert there too. `assets/app.css` styles the layer.
"""

from __future__ import annotations

# The page's text laid over its image (`text` parsed from `page_text`), replacing the previous page's:
# one transparent line per printed line, placed in the image's own pixels times `--s` (the shown size over
# the natural one), so a zoom or a resize only sets `--s`. Each line is stretched to its printed width,
# measured once at `--s` 1 (a font's width grows with its size, so the stretch holds at any zoom).
TEXT_LAYER = """(view, img, text) => {
    const frame = img.parentElement, layer = document.createElement('div');
    layer.className = 'text-layer';
    layer.dataset.image = text.image;
    layer.style.setProperty('--s', '1');
    for (const [x0, y0, x1, y1, words] of text.lines) {
        const line = document.createElement('span');
        line.textContent = words;
        line.style.left = `calc(var(--s) * ${x0}px)`; line.style.top = `calc(var(--s) * ${y0}px)`;
        line.style.fontSize = `calc(var(--s) * ${y1 - y0}px)`;
        line.dataset.width = x1 - x0;
        layer.append(line, document.createElement('br'));
    }
    frame.append(layer);
    const lines = [...layer.querySelectorAll('span')], widths = lines.map(line => line.getBoundingClientRect().width);
    lines.forEach((line, i) => { if (widths[i] > 0) line.style.transform = `scaleX(${line.dataset.width / widths[i]})`; });
    const place = () => {  // on the image as shown: Gradio may fit it in its box (object-fit: contain)
        if (!img.isConnected || !img.naturalWidth) return;
        const s = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
        layer.style.left = `${img.offsetLeft + (img.clientWidth - s * img.naturalWidth) / 2}px`;
        layer.style.top = `${img.offsetTop + (img.clientHeight - s * img.naturalHeight) / 2}px`;
        layer.style.width = `${s * img.naturalWidth}px`; layer.style.height = `${s * img.naturalHeight}px`;
        layer.style.setProperty('--s', String(s));
    };
    place();
    const follow = new ResizeObserver(() => layer.isConnected ? place() : follow.disconnect());
    follow.observe(img); follow.observe(frame);
}"""


# The page view `viewId`'s image once it is the page named `shown` and has loaded (Gradio mounts and fetches it
# after the event ends): [view, img, frame], or null after about 20 s of frames (a page still being fetched).
SHOWN_IMAGE = """async (viewId, shown) => {
    for (let frames = 0; frames < 1200; frames++, await new Promise(r => requestAnimationFrame(r))) {
        const view = document.getElementById(viewId), img = view?.querySelector('img.base-image');
        const frame = view?.querySelector('.image-container');
        if (img && frame && img.src.includes(shown) && img.complete && img.naturalHeight) return [view, img, frame];
    }
    return null;
}"""


# `text_layer_js`'s script: the view's previous layer removed, the new one laid once its image is shown.
_LAY_TEXT = """async (pageText) => {
    document.querySelector('#%s .text-layer')?.remove();
    let text = null;
    try { text = pageText ? JSON.parse(pageText) : null; } catch (error) { return; }
    if (!text) return;
    const found = await (%s)('%s', text.image);
    if (found) (%s)(found[0], found[1], text);
}"""


def text_layer_js(view_id: str) -> str:
    """Run in the browser after a page view other than the viewer (the Across tab's) shows a page (its input:
    the page's text layer, `page_view.page_text`): the layer is laid over the image (`TEXT_LAYER`)."""
    return _LAY_TEXT % (view_id, SHOWN_IMAGE, view_id, TEXT_LAYER)
