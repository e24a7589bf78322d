"""The CoT and direct reply parsers, on the 1,972 official SPIQA test-C CoT responses and edge cases."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from spiqa_demo.qa.parsing import clean_answer, parse_cot, parse_direct

# ---- SPIQA's official parser (Metrics/close_models_metrics_CoT.py), reproduced as the reference

_OFFICIAL_IMAGE = re.compile(r"Image \b([0-9]|10|11|12|13|14|15)\b", flags=re.IGNORECASE)
_OFFICIAL_IMAGE_2 = re.compile(r"'Image': \b([0-9]|10|11|12|13|14|15)\b", flags=re.IGNORECASE)


def official_image(response: str) -> object:
    """The chosen image as `acc_top_1` reads it (None where it counts a parse failure)."""
    head = response.split("The answer is:")[0]
    try:
        return ast.literal_eval(head)["Image"]
    except Exception:
        try:
            return int(_OFFICIAL_IMAGE.findall(head)[0])
        except Exception:
            try:
                return int(_OFFICIAL_IMAGE_2.findall(head)[0])
            except Exception:
                return None


def official_answer(response: str) -> str | None:
    """The answer text as `calculate_all_metrics` reads it (None: it falls back to the whole reply)."""
    for marker in ("The answer is", "The answer to the question is"):
        if len(response.split(marker)) == 2:
            return response.split(marker)[-1]
    return None


@pytest.fixture(scope="module")
def cot_responses(shared: Path) -> list[str]:
    files = sorted((shared / "spiqa" / "test-C-responses").glob("*cot*"))
    responses = [
        entry["response"]
        for f in files
        for paper in json.loads(f.read_text()).values()
        for entry in paper.values()
    ]
    assert len(responses) == 1972
    return responses


def test_finds_the_image_wherever_the_official_parser_does(cot_responses: list[str]) -> None:
    official_hits = mine_more = 0
    for response in cot_responses:
        reference = official_image(response)
        reply = parse_cot(response)
        if isinstance(reference, int):
            official_hits += 1
            assert reply.image == reference, response
        elif reply.image is not None:
            mine_more += 1  # e.g. {'Image': '2', ...} (a quoted index), which the reference drops
    assert official_hits >= 1950
    assert mine_more >= 3


def test_recovers_the_answer_text_and_rationale(cot_responses: list[str]) -> None:
    for response in cot_responses:
        reply = parse_cot(response)
        reference = official_answer(response)
        if reference is not None:
            assert reply.answer == clean_answer(reference), response
        assert reply.answer, response
        assert reply.rationale, response
        assert reply.method != "failed", response


def test_declined_images_are_recorded_not_guessed(cot_responses: list[str]) -> None:
    declined = [r for r in cot_responses if parse_cot(r).method == "declined"]
    assert declined and all(parse_cot(r).image is None for r in declined)
    assert all(re.search(r"'Image': '?(None|Not Applicable)", r) for r in declined)


@pytest.mark.parametrize(
    ("response", "image", "method", "answer"),
    [
        ("{'Image': 3, 'Rationale': 'It has the table.'}\nThe answer is: 42%", 3, "dict", "42%"),
        ("{'Image': 2, 'Rationale': 'Image 2 plots accuracy per epoch'} The answer is : 0.92", 2, "dict", "0.92"),
        ('```json\n{"Image": 2, "Rationale": "plot"}\n```\nThe answer is: "Yes."', 2, "dict", "Yes."),
        ("{'Image': 'Image 5', 'Rationale': 'x'} The answer is : The answer is : BLEU", 5, "dict", "BLEU"),
        ("{'Image': 12, 'Rationale': 'out of range'}\nThe answer is: no", 12, "dict", "no"),
        ("{'Image': 1, 'Rationale': 'unterminated}\nThe answer is: 7", 1, "field", "7"),
        ("I think Image 4 is best because of the bars. The answer is: 0.81", 4, "mention", "0.81"),
        ("{'Image': None, 'Rationale': 'nothing fits'}\nThe answer is: unknown", None, "declined", "unknown"),
        ("The answer is: 3 layers.", None, "failed", "3 layers."),
        ("", None, "failed", ""),
        ("ukt}}{{'Imag 9 ;;", None, "failed", "ukt}}{{'Imag 9 ;;"),
        ("{'Image': 0, 'Rationale': 'r', 'Answer': 'from the dict'}", 0, "dict", "from the dict"),
    ],
)
def test_cot_edge_cases(response: str, image: int | None, method: str, answer: str) -> None:
    reply = parse_cot(response)
    assert (reply.image, reply.method, reply.answer) == (image, method, answer)


def test_cot_parser_survives_hostile_text() -> None:
    for text in ["{" * 5000, "}" * 5000, "{'Image': " + "9" * 5000 + "}", "\x00\uffff" * 100, "{'a': [" * 300]:
        parse_cot(text)  # never raises


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        ("{'Answer': 'The model with attention.'}", "The model with attention."),
        ('{"Answer": "Yes"}', "Yes"),
        ("{'Answer': 'It's 5.'}", "It's 5."),
        ("Sure! The answer is: 12 ms", "12 ms"),
        ("  plain reply  ", "plain reply"),
        ("", ""),
    ],
)
def test_direct_answers(response: str, answer: str) -> None:
    assert parse_direct(response) == answer
