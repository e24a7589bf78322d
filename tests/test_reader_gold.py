"""Reading a reader question set's gold (evalsuite.reader_gold): printed labels, quotes, table cells,
and the blind sets' gold checked against their PDFs' text layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalsuite.reader_gold import gold_errors, printed_label, quotes, states_cell

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


def test_printed_labels() -> None:
    assert printed_label("Fig. 2") == ("figure", "2")
    assert printed_label("FIG 4") == ("figure", "4")
    assert printed_label("Figure 10") == ("figure", "10")
    assert printed_label("TABLE IV") == ("table", "4")
    assert printed_label("Table 1") == ("table", "1")
    with pytest.raises(ValueError):
        printed_label("Algorithm 2")


def test_quotes_ignore_spacing_punctuation_and_hyphenation() -> None:
    quote = "we used a learning rate of 0.05/training-size"
    assert quotes("For the weight updates, we used a learn-\ning rate of 0.05 / training-size.", quote)
    assert quotes("ﬁne: We used a learning rate of 0.05/training\u00adsize", quote)
    assert not quotes("we used a learning rate of 0.5", quote)


def test_cells_need_the_printed_value_and_the_row() -> None:
    assert states_cell("Real UI-RBM reaches an MAE of 0.645 on 1M.", "Real UI-RBM", "0.645")
    assert not states_cell("Real UI-RBM reaches an MAE of 10.645.", "Real UI-RBM", "0.645")
    assert not states_cell("Real UI-RBM reaches an MAE of 0.6451.", "Real UI-RBM", "0.645")
    assert not states_cell("An MAE of 0.645.", "Real UI-RBM", "0.645")
    assert states_cell("Macroscopic currents at \u221260 mV for Sign-vectors", "Sign-vectors", "-60 mV")


@pytest.mark.parametrize("path", sorted([*DATA.glob("reader_questions_*.json"), *DATA.glob("table_lookups_dev*.json"),
                                         DATA / "quote_questions_dev.json", DATA / "followups_dev.json"]), ids=lambda path: path.stem)
def test_question_set_gold_is_printed(shared: Path, path: Path) -> None:
    """Every quote is on its page, every cell printed with its label, in the PDF itself."""
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {row["paper"] for row in data["questions"]} == set(data["papers"])
    assert [(row["paper"], error) for row in data["questions"] for error in gold_errors(row, shared)] == []
    assert gold_errors({"paper": data["questions"][0]["paper"], "page": 1, "quote": "no such sentence in this paper"}, shared)
