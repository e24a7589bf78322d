"""The classic answer metrics, computed as SPIQA computed them.

BLEU-1..4, METEOR, ROUGE-L and CIDEr come from `pycocoevalcap` after its PTB tokenizer (Stanford
CoreNLP, lower-cased, punctuation removed), scored over the whole set at once: BLEU and METEOR are
corpus-level statistics and CIDEr's IDF comes from the set, so a subset's score is not the mean of
per-question scores. The tokenizer and METEOR are Java programs: a JRE must be installed.
BERTScore F1 uses `bert-score` with `bert-base-uncased` (its tuned layer 9), no IDF weighting and
no baseline rescaling, the SPIQA settings.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from spiqa_demo.errors import PaperError
from spiqa_demo.settings import EvaluationSettings

COCO_KEYS = ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "METEOR", "ROUGE-L", "CIDEr")
ANSWER_KEYS = ("ROUGE-L", "BLEU-1", "BLEU-4")  # the per-answer values (`CocoMetrics.per_answer`)

# Characters Java's PTBLexer treats as line breaks. pycocoevalcap maps only "\n" to a space before
# tokenizing one text per line, so any of these would shift every later text onto the wrong
# question; mapping them to spaces too keeps the alignment and changes nothing else.
_LINE_BREAKS = re.compile("[\r\n\u000b\u000c\u0085\u2028\u2029]")


def _require_java() -> None:
    if shutil.which("java") is None:
        raise PaperError(
            "BLEU, METEOR, ROUGE-L and CIDEr need Java for pycocoevalcap's PTB tokenizer and METEOR: "
            "install a JRE (e.g. `apt-get install default-jre-headless`)"
        )


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the Java tools' progress lines, which they write straight to file descriptor 2."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _clean(text: str) -> str:
    text = _LINE_BREAKS.sub(" ", text)
    return text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates cannot be written


def ptb_tokenize(texts: Sequence[str]) -> list[str]:
    """Each text tokenized by pycocoevalcap's PTBTokenizer (lower-cased, punctuation dropped)."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    if not texts:
        return []
    _require_java()
    with _quiet_stderr():
        out = PTBTokenizer().tokenize({i: [{"caption": _clean(t)}] for i, t in enumerate(texts)})
    if len(out) != len(texts):
        raise RuntimeError(f"PTB tokenizer returned {len(out)} lines for {len(texts)} texts")
    return [out[i][0] for i in range(len(texts))]


_meteor_lock = threading.Lock()
_meteor_process: Any = None
T = TypeVar("T")


def _with_meteor(task: Callable[[Any], T]) -> T:
    """`task` run on METEOR 1.5's process (pycocoevalcap's `Meteor`), one shared by the program.

    Starting METEOR is slow (it loads its paraphrase tables in Java), so live scoring in the app and
    every subset of a scored set reuse one; a process that died is replaced.
    """
    global _meteor_process
    from pycocoevalcap.meteor.meteor import Meteor

    def run() -> T:
        global _meteor_process
        if _meteor_process is None:
            with _quiet_stderr():
                _meteor_process = Meteor()
        with _meteor_process.lock:
            return task(_meteor_process)

    with _meteor_lock:
        try:
            return run()
        except (BrokenPipeError, ValueError):
            dead, _meteor_process = _meteor_process, None
            if dead.lock.locked():  # its __del__ takes this lock; it must not hang the collector
                dead.lock.release()
            return run()  # a fresh process; a second failure is a real error


def meteor_statistics(predictions: Sequence[str], references: Sequence[str]) -> list[str]:
    """Each tokenized pair's METEOR statistics: its alignment, the costly step of METEOR.

    A set's METEOR is computed from its pairs' statistics alone (`meteor_of`), which is how
    pycocoevalcap's `compute_score` does it; aligning each pair once serves every subset.
    """
    return _with_meteor(lambda meteor: [meteor._stat(p, [r]) for p, r in zip(predictions, references)])


def meteor_of(statistics: Sequence[str]) -> float:
    """The METEOR of a set from its pairs' statistics (`meteor_statistics`)."""

    def evaluate(meteor: Any) -> float:
        meteor.meteor_p.stdin.write(("EVAL ||| " + " ||| ".join(statistics) + "\n").encode())
        meteor.meteor_p.stdin.flush()
        for _ in statistics:  # each pair's own score comes first
            meteor.meteor_p.stdout.readline()
        return float(meteor.meteor_p.stdout.readline().strip())

    return _with_meteor(evaluate)


class CocoMetrics:
    """BLEU-1..4, METEOR, ROUGE-L and CIDEr for (prediction, reference) pairs and any subset of them.

    Texts are tokenized once (one Java call) and METEOR aligns each pair once; every subset is scored
    as a set of its own.
    Values are on pycocoevalcap's scale (0-1; CIDEr 0-10); the SPIQA tables print them x100.
    """

    def __init__(self, predictions: Sequence[str], references: Sequence[str]) -> None:
        if len(predictions) != len(references):
            raise ValueError("predictions and references differ in length")
        tokens = ptb_tokenize([*predictions, *references])
        self._res = {i: [t] for i, t in enumerate(tokens[: len(predictions)])}
        self._gts = {i: [t] for i, t in enumerate(tokens[len(predictions) :])}
        self._meteor: list[str] | None = None

    def __len__(self) -> int:
        return len(self._res)

    def score(self, subset: Sequence[int] | None = None) -> dict[str, float]:
        """The seven metrics over `subset` (indices into the pairs; default all), scored as one set."""
        from pycocoevalcap.bleu.bleu import Bleu
        from pycocoevalcap.cider.cider import Cider
        from pycocoevalcap.rouge.rouge import Rouge

        ids = list(range(len(self._res))) if subset is None else list(subset)
        if not ids:
            return {}
        gts = {i: self._gts[i] for i in ids}
        res = {i: self._res[i] for i in ids}
        bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
        rouge, _ = Rouge().compute_score(gts, res)
        cider, _ = Cider().compute_score(gts, res)
        if self._meteor is None:
            self._meteor = meteor_statistics([r[0] for r in self._res.values()], [g[0] for g in self._gts.values()])
        meteor = meteor_of([self._meteor[i] for i in ids])
        values = [*bleu, meteor, rouge, cider]
        return {key: float(v) for key, v in zip(COCO_KEYS, values)}

    def per_answer(self) -> list[dict[str, float]]:
        """ROUGE-L, BLEU-1 and BLEU-4 (`ANSWER_KEYS`) of each pair on its own, for reading one answer.

        A set's ROUGE-L is the mean of these; its BLEU is not (BLEU is a corpus statistic).
        """
        from pycocoevalcap.bleu.bleu import Bleu
        from pycocoevalcap.rouge.rouge import Rouge

        if not self._res:
            return []
        # pycocoevalcap rejects empty token lists; an empty answer scores 0 whatever the placeholder.
        res = {i: [t[0] or "<empty>"] for i, t in self._res.items()}
        gts = {i: [t[0] or "<empty>"] for i, t in self._gts.items()}
        _, rouge = Rouge().compute_score(gts, res)
        _, bleu = Bleu(4).compute_score(gts, res, verbose=0)
        return [
            {"ROUGE-L": 0.0 if not self._res[i][0] else float(rouge[i]),
             "BLEU-1": 0.0 if not self._res[i][0] else float(bleu[0][i]),
             "BLEU-4": 0.0 if not self._res[i][0] else float(bleu[3][i])}
            for i in range(len(self._res))
        ]



def coco_metrics(predictions: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """BLEU-1..4, METEOR, ROUGE-L and CIDEr over the whole set (see `CocoMetrics`)."""
    return CocoMetrics(predictions, references).score()


def answer_scores(predictions: Sequence[str], references: Sequence[str]) -> list[dict[str, float]]:
    """ROUGE-L, BLEU-1 and BLEU-4 of each (prediction, reference) pair (see `CocoMetrics.per_answer`)."""
    return CocoMetrics(predictions, references).per_answer()


def _check_downloadable(model: str) -> None:
    """Fail at once, not after the hub client's retries, when a hub model is neither cached nor reachable."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants, try_to_load_from_cache

    if os.path.exists(model) or constants.HF_HUB_OFFLINE:
        return  # a folder, or offline mode (which fails fast by itself)
    try:
        if try_to_load_from_cache(model, "config.json"):
            return
    except ValueError as exc:  # not a valid hub id either
        raise PaperError(f"BERTScore model {model!r} is neither a folder nor a Hugging Face model id") from exc
    endpoint = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((endpoint.hostname, endpoint.port or 443), timeout=5).close()
    except OSError as exc:
        raise PaperError(
            f"BERTScore needs the model {model!r}: it is not cached and {endpoint.hostname} cannot be reached "
            f"({exc.__class__.__name__}); run once with network access, or set SPIQA_BERTSCORE_MODEL to a local copy"
        ) from exc


@lru_cache(maxsize=2)
def _bert_scorer(model: str, num_layers: int | None, device: str | None) -> Any:
    _check_downloadable(model)
    from bert_score import BERTScorer
    from bert_score.utils import model2layers

    layers = num_layers or model2layers.get(model) or model2layers.get(os.path.basename(model.rstrip("/")))
    if layers is None:
        raise PaperError(
            f"BERTScore does not know which layer of {model!r} to use: set SPIQA_BERTSCORE_LAYERS"
        )
    try:
        return BERTScorer(model_type=model, num_layers=layers, idf=False, rescale_with_baseline=False, device=device)
    except OSError as exc:
        raise PaperError(
            f"BERTScore needs the model {model!r}, which could not be loaded ({exc.__class__.__name__}): "
            "run once with network access to cache it from the Hugging Face hub, or set "
            "SPIQA_BERTSCORE_MODEL to a local copy"
        ) from exc


def bert_score_f1(
    predictions: Sequence[str],
    references: Sequence[str],
    model: str | None = None,
    num_layers: int | None = None,
    device: str | None = None,
    settings: EvaluationSettings | None = None,
) -> list[float]:
    """BERTScore F1 per pair (SPIQA settings; `model`/`num_layers` default to `settings`' BERTScore model).

    An empty prediction or reference scores 0, as bert-score itself does (its own empty-text path
    no longer works with transformers 5, so those pairs never reach it).
    """
    if len(predictions) != len(references):
        raise ValueError("predictions and references differ in length")
    settings = settings or EvaluationSettings()
    scorer = _bert_scorer(model or settings.bertscore_model, num_layers or settings.bertscore_layers or None, device)
    keep = [i for i, (p, r) in enumerate(zip(predictions, references)) if p.strip() and r.strip()]
    scores = [0.0] * len(predictions)
    if keep:
        _, _, f1 = scorer.score([predictions[i] for i in keep], [references[i] for i in keep])
        for i, value in zip(keep, f1.tolist()):
            scores[i] = float(value)
    return scores
