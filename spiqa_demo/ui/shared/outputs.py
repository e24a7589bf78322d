"""A handler's named outputs and the widgets they fill, in one order.

A handler returns a `NamedTuple` whose fields are named after the widgets it updates (`chatbot`,
`state`, ...); `components` lists those widgets in the fields' order for the event's `outputs`, so
the order is written once, by the fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gradio.blocks import Block


def components(outputs: type[NamedTuple], widgets: object, **others: Block) -> list[Block]:
    """The widgets `outputs` (a NamedTuple type) fills, in its fields' order: each field is the widget of
    that name in `widgets` (a tab's dataclass), or in `others` (a state the tab is handed, `session`)."""
    return [others[name] if name in others else getattr(widgets, name) for name in outputs._fields]
