"""Reading model replies: SPIQA's CoT format and its direct `{'Answer': ...}` format, robustly.

The CoT reader finds the chosen image wherever SPIQA's official parser does (its test is run on
the 1,972 official test-C CoT responses) and more often: it reads the `{'Image': i, ...}` dict
(also inside code fences, with the index quoted, or with a broken string), then an `'Image': i`
field, then the first "Image i" mention. A reply that names no image is a recorded failure, never
an exception; a model saying that no image helps ("'Image': None") is recorded as declined.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Literal

Method = Literal["dict", "field", "mention", "declined", "failed"]

# "The answer is:", "The answer is :", "The answer to the question is" (SPIQA's parser splits on both).
_ANSWER_MARK = re.compile(r"the answer (?:to the question )?is\s*:?", re.IGNORECASE)
_DICT = re.compile(r"\{.*\}", re.DOTALL)
_IMAGE_FIELD = re.compile(r"""['"]?image['"]?\s*:\s*['"]?(?:image\s*)?(\d{1,6})\b""", re.IGNORECASE)
_DECLINED_FIELD = re.compile(r"""['"]image['"]\s*:\s*['"]?(none|null|n/?a|not applicable)\b""", re.IGNORECASE)
_RATIONALE_FIELD = re.compile(r"""['"]rationale['"]\s*:\s*(['"])(.*?)\1\s*[,}]""", re.IGNORECASE | re.DOTALL)
_LOOSE_RATIONALE = re.compile(r"""['"]rationale['"]\s*:\s*['"]?(.*)""", re.IGNORECASE | re.DOTALL)
_ANSWER_FIELD = re.compile(r"""['"]answer['"]\s*:\s*(['"])(.*)\1\s*\}""", re.IGNORECASE | re.DOTALL)
_MENTION = re.compile(r"\bimage\s+(\d{1,6})\b", re.IGNORECASE)
_DECLINED_VALUES = {"none", "null", "n/a", "na", "not applicable", ""}


@dataclass
class CotReply:
    """What a CoT reply says: the image index as written (maybe out of range), why, and the answer."""

    image: int | None
    rationale: str
    answer: str
    method: Method


def parse_cot(response: str) -> CotReply:
    """Read a reply in SPIQA's CoT format (`{'Image': i, 'Rationale': ...}` then `The answer is : ...`).

    The earlier prompt's "The answer is: ..." (no space before the colon) reads the same.
    """
    text = response or ""
    mark = _ANSWER_MARK.search(text)
    head = text[: mark.start()] if mark else text
    tail = text[mark.end() :] if mark else ""
    fields = _literal_dict(head)
    image, method = _image_from_fields(fields) if fields is not None else (None, None)
    if method is None:
        image, method = _image_from_text(head)
    if method is None and mark:  # the index may only appear after the marker
        image, method = _image_from_text(tail)
    rationale = _rationale(fields, head)
    if mark:
        answer = clean_answer(tail)
    elif fields is not None and _get(fields, "answer") is not None:
        answer = clean_answer(str(_get(fields, "answer")))
    else:
        answer = clean_answer(_DICT.sub("", text) if fields is not None else text)
    return CotReply(image=image, rationale=rationale, answer=answer, method=method or "failed")


def parse_direct(response: str) -> str:
    """The answer of a direct-QA reply: `{'Answer': ...}`, else the reply itself, cleaned."""
    text = response or ""
    fields = _literal_dict(text)
    if fields is not None and _get(fields, "answer") is not None:
        return clean_answer(str(_get(fields, "answer")))
    match = _ANSWER_FIELD.search(text)
    if match:
        return clean_answer(match.group(2))
    mark = _ANSWER_MARK.search(text)
    return clean_answer(text[mark.end() :] if mark else text)


def clean_answer(text: str) -> str:
    """Strip whitespace, a leading colon, a repeated "The answer is" and wrapping quotes."""
    text = text.strip()
    while True:
        stripped = _ANSWER_MARK.sub("", text, count=1).strip() if _ANSWER_MARK.match(text) else text
        stripped = stripped.lstrip(":").strip()
        if stripped == text:
            break
        text = stripped
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        text = text[1:-1].strip()
    elif len(text) >= 3 and text[0] in "'\"" and text.endswith(text[0] + "."):
        text = text[1:-2].strip()
    return text


def _literal_dict(text: str) -> dict[Any, Any] | None:
    """The first `{...}` of `text` as a Python/JSON dict, or None."""
    match = _DICT.search(text)
    if not match:
        return None
    candidate = match.group(0)
    for end in _closing_braces(candidate):
        try:
            value = ast.literal_eval(candidate[: end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            continue
        return value if isinstance(value, dict) else None
    return None


def _closing_braces(text: str) -> list[int]:
    """Positions of "}" from the last to the first: the longest well-formed dict wins."""
    return [i for i in range(len(text) - 1, -1, -1) if text[i] == "}"][:20]


def _get(fields: dict[Any, Any], key: str) -> Any:
    return next((v for k, v in fields.items() if isinstance(k, str) and k.strip().lower() == key), None)


def _image_from_fields(fields: dict[Any, Any]) -> tuple[int | None, Method | None]:
    if not any(isinstance(k, str) and k.strip().lower() == "image" for k in fields):
        return None, None
    value = _get(fields, "image")
    if isinstance(value, bool):
        return None, None
    if isinstance(value, int):
        return value, "dict"
    if isinstance(value, float) and value.is_integer():
        return int(value), "dict"
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], int):
        return value[0], "dict"
    if value is None or str(value).strip().lower() in _DECLINED_VALUES:
        return None, "declined"
    digits = re.search(r"\b\d{1,6}\b", str(value))
    return (int(digits.group(0)), "dict") if digits else (None, None)


def _image_from_text(text: str) -> tuple[int | None, Method | None]:
    field = _IMAGE_FIELD.search(text)
    if field:
        return int(field.group(1)), "field"
    if _DECLINED_FIELD.search(text):
        return None, "declined"
    mention = _MENTION.search(text)
    if mention:
        return int(mention.group(1)), "mention"
    return None, None


def _rationale(fields: dict[Any, Any] | None, head: str) -> str:
    if fields is not None and _get(fields, "rationale") is not None:
        return str(_get(fields, "rationale")).strip()
    match = _RATIONALE_FIELD.search(head)
    if match:
        return match.group(2).strip()
    loose = _LOOSE_RATIONALE.search(head)  # an unterminated string: up to the closing brace
    return loose.group(1).strip().rstrip("`").strip().rstrip("}").strip().strip("'\"").strip() if loose else ""
