"""What one visitor's Error analysis tab holds (a `gr.State`, never shared between visitors).

A handler that changes it returns a new one (`dataclasses.replace`), which Gradio keeps as the session's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spiqa_demo.evaluation.analysis import Results, SideBySide


@dataclass(frozen=True)
class ResultsState:
    """The result file read (`a`) and the rows its table shows (`view`, in order), and the second file it is
    compared with (`b`), their side by side (`side`) and the rows that table shows (`side_view`). Each
    `*_source` is the upload or server file a result was read from: the same one again is not read again."""

    a: Results | None = None
    a_source: str | None = None
    view: list[int] = field(default_factory=list)
    b: Results | None = None
    b_source: str | None = None
    side: SideBySide | None = None
    side_view: list[int] = field(default_factory=list)
