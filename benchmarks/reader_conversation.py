"""The reader's conversation without a model: does the shortlist hold the right evidence, and does
the answer say what the paper says?

    python -m benchmarks.reader_conversation [--set first|broad|fresh|blind|blind2|tables|all]    (from the repository root)

Five question sets, all written from the papers' own text before the system was asked them
(`SPIQA_SHARED`, default ../shared; papers read through the extraction cache); `--set` picks one
(default: all). Printed, never asserted.

The first set, benchmarks/data/reader_questions.json, on the shared CS papers:
- text questions: a passage from the page of the answering sentence among the top 3 passages of the
  shortlist (bar 0.80), and how often the extractive answer quotes that sentence;
- follow-ups: the second, elliptical turn ("and on CIFAR-10?") asked after the first in one
  conversation, with the right figure/table among the top 3 figures/tables of its shortlist (bar
  0.80), beside today's one-question-at-a-time baseline (the second turn searched alone); printed for
  two groups: pairs whose second turn names what changed ("and on CIFAR-10?", often right even asked
  alone) and pairs whose second turn points back and cannot stand alone ("which figure shows its
  training curves?", "and on the other detection dataset?");
- figure questions that do not name the figure: top-1/top-3 of the shortlist's figures/tables beside
  today's figure-only `search` ranking (bar: no worse).
- per kind, the median and 95th percentile of the answer time once the paper is loaded and indexed
  (wall and CPU seconds of the measured turn, as for the broad set below).

The broad set, benchmarks/data/reader_questions_broad.json (its "about" says how it was written), on
litqa articles from biology and medicine journals, the ICML 2013 papers and little-used shared CS
papers, printed per question kind and per corpus (litqa, CS):
- the right evidence in the top 1 / top 3: for a text question a passage from the gold page among the
  shortlist's passages; for a table, figure or "What does <label> show?" question the gold item among
  its figures/tables (beside today's `search` ranking); for a follow-up pair the second turn's, asked
  after the first in one conversation;
- the answer says the gold: it quotes the gold sentence (its words, whatever the spacing, punctuation
  and hyphenation) or states the gold cell (the printed value and the row's name);
- "not found": how often `Turn.not_found` is said where the paper does not say it, and how often it is
  wrongly said on the answerable questions;
- the latency of `ask_turn` once the paper is loaded and its index built (the follow-up's second turn),
  median and 95th percentile per kind, in wall seconds and in the process's CPU seconds (which other
  jobs on a shared machine do not inflate);
- and, to tell the extraction's misses from the ranking's, how many gold sentences are in the
  extracted passages of their page at all.

The fresh set, benchmarks/data/reader_questions_fresh.json, is written and measured as the broad one,
on litqa articles no other set uses (and a few new questions on CS papers of the first set, printed
as the CS corpus): the papers nobody tuned on. The blind set, benchmarks/data/reader_questions_blind.json,
is written the same way on the ten litqa articles that no earlier set uses: unseen papers again, now
that some of the fresh set's misses were read. The blind2 set, benchmarks/data/reader_questions_blind2.json,
is a second one on those ten articles, in other words and on other facts, written before the system
was asked any of its questions: held out again once the blind set's misses have been read.
`--set tables` prints the broad set's figures for benchmarks/data/table_lookups_dev.json, a dev set
of table lookups the table rules were tuned on (its "about" says so): not a held-out measure; so does
`--set quotes` for benchmarks/data/quote_questions_dev.json, text questions the choice of the quoted
sentence was tuned on. `--set tables2` and `--set tables3` print them for the two halves of a second
set of lookups written blind on other tables and in other words (table_lookups_dev2.json, tuned on;
table_lookups_dev3.json, held out: measured, not tuned on, but for one rule written after its
summary, cf9852d, that kept a question the rule before it had cost there).
`--set followups` prints benchmarks/data/followups_dev.json, a dev set of follow-up pairs, tuned on;
`--set followups2` benchmarks/data/followups_dev2.json, follow-ups of the kinds a reader's pass found
("and for morphine?" replacing the term of the same kind, "it" after "What does Fig. 2 show?",
follow-ups piling up after earlier turns: a pair may name the `earlier` turns asked before it), whose
second turn's reading must hold the words of its `keeps` and none of its `drops` ("read right").
The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalsuite.paths import SHARED
from evalsuite.reader_gold import gold_errors, printed_label, quotes, states_cell, words
from spiqa_demo.conversation import Conversation, Evidence, Turn, ask_turn
from spiqa_demo.library import open_paper
from spiqa_demo.settings import Settings, get_settings
from spiqa_demo.types import Figure, Paper

DATA = Path(__file__).parent / "data" / "reader_questions.json"
BLIND_SETS = {name: Path(__file__).parent / "data" / f"reader_questions_{name}.json" for name in ("broad", "fresh", "blind", "blind2")}
# dev sets (table lookups, quoted sentences, follow-up pairs): tuned on, but for the held-out half
# "tables3" (its summary prompted one rule); printed like the blind sets, never in "all"
DEV_SETS = {"tables": Path(__file__).parent / "data" / "table_lookups_dev.json",
            **{f"tables{n}": Path(__file__).parent / "data" / f"table_lookups_dev{n}.json" for n in (2, 3)},
            "quotes": Path(__file__).parent / "data" / "quote_questions_dev.json",
            "followups": Path(__file__).parent / "data" / "followups_dev.json",
            "followups2": Path(__file__).parent / "data" / "followups_dev2.json"}
TOP = 3
BARS = {"text_top3": 0.80, "followup_top3": 0.80}
KINDS = ("text", "table", "followup", "figure", "figure_show", "not_found")


def normalised(text: str) -> str:
    """Text compared the way a reader reads it: ligatures unfolded, whitespace collapsed, case folded."""
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def _papers(names: set[str], settings: Settings) -> dict[str, Paper]:
    """The papers loaded, each asked one question first: that question builds the paper's index,
    not a reader's per-question wait."""
    papers = {name: open_paper(SHARED / "papers" / name, settings).paper for name in sorted(names)}
    for paper in papers.values():
        _timed_turn(paper, ["What is this paper about?"], settings)
    return papers


def _labels(evidence: Sequence[Evidence]) -> list[str]:
    return [e.label for e in evidence if e.figure is not None]


def _ask(paper: Paper, questions: Sequence[str], settings: Settings) -> list[Any]:
    conversation = Conversation(paper.sha256)
    return [ask_turn(paper, conversation, q, None, settings.qa, retrieval=settings.retrieval) for q in questions]


def _latency(kind: str, times: Sequence[tuple[float, float]]) -> dict[str, float]:
    """Print and return the median and 95th percentile of a kind's answer time (wall and CPU
    seconds of the measured turn, the paper loaded and indexed before)."""
    wall, cpu = [t for t, _ in times], [c for _, c in times]
    figures = {f"{kind}_median_s": statistics.median(wall), f"{kind}_p95_s": _p95(wall),
               f"{kind}_median_cpu_s": statistics.median(cpu), f"{kind}_p95_cpu_s": _p95(cpu)}
    print(f"{kind.replace('_', ' ')} answer time, the paper loaded: median {figures[f'{kind}_median_s']:.2f} s, "
          f"p95 {figures[f'{kind}_p95_s']:.2f} s wall; median {figures[f'{kind}_median_cpu_s']:.2f} s, p95 {figures[f'{kind}_p95_cpu_s']:.2f} s CPU")
    return {key: round(value, 3) for key, value in figures.items()}


def _text(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings) -> dict[str, float]:
    top3 = quoted = 0
    times: list[tuple[float, float]] = []
    for row in rows:
        paper = papers[row["paper"]]
        assert any(p.page == row["page"] and normalised(row["quote"]) in normalised(p.text) for p in paper.passages), row
        turn, wall, cpu = _timed_turn(paper, [row["question"]], settings)
        times.append((wall, cpu))
        pages = [e.page for e in turn.evidence if e.passage is not None][:TOP]
        hit = row["page"] in pages
        says = normalised(row["quote"]) in normalised(turn.answer)
        top3 += hit
        quoted += says
        print(f"{'right' if hit else 'WRONG'} {'quoted' if says else '      '} {row['paper'][:18]:18s} {row['question'][:70]:70s} p{row['page']} <- {pages}")
    n = len(rows)
    print(f"text questions: passage from the right page in the top {TOP}: {top3}/{n} = {top3 / n:.3f} "
          f"(bar {BARS['text_top3']:.2f}); answer quotes the sentence: {quoted}/{n} = {quoted / n:.3f}")
    return {"text_questions": n, "text_top3": round(top3 / n, 3), "text_quoted": round(quoted / n, 3)} | _latency("text", times)


def _followups(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings, group: str) -> dict[str, float]:
    """One group of follow-up pairs; the keys of its figures start with `group` ("followup", "pointing_followup")."""
    chat = alone = chat1 = alone1 = 0
    times: list[tuple[float, float]] = []
    for row in rows:
        paper = papers[row["paper"]]
        labels = {item.title for item in paper.items}
        assert row["first_label"] in labels and row["second_label"] in labels, row
        turn, wall, cpu = _timed_turn(paper, [row["first"], row["second"]], settings)
        times.append((wall, cpu))
        baseline = _ask(paper, [row["second"]], settings)[0]
        got, got_alone = _labels(turn.evidence)[:TOP], _labels(baseline.evidence)[:TOP]
        chat += row["second_label"] in got
        alone += row["second_label"] in got_alone
        chat1 += got[:1] == [row["second_label"]]
        alone1 += got_alone[:1] == [row["second_label"]]
        print(f"{'right' if row['second_label'] in got else 'WRONG'} {'(alone right)' if row['second_label'] in got_alone else '             '} "
              f"{row['paper'][:18]:18s} {row['second'][:40]:40s} read as {turn.read_as[:90]!r:92s} {row['second_label']} <- {got}")
    n = len(rows)
    print(f"{group.replace('_', ' ')}s: right figure/table in the top {TOP}: in the conversation {chat}/{n} = {chat / n:.3f} "
          f"(bar {BARS['followup_top3']:.2f}); asked alone (today) {alone}/{n} = {alone / n:.3f}; "
          f"top-1: in the conversation {chat1 / n:.3f}, alone {alone1 / n:.3f}")
    return {f"{group}s": n, f"{group}_top3": round(chat / n, 3), f"{group}_alone_top3": round(alone / n, 3),
            f"{group}_top1": round(chat1 / n, 3), f"{group}_alone_top1": round(alone1 / n, 3)} | _latency(group, times)


def _figures(rows: list[dict[str, Any]], papers: dict[str, Paper], settings: Settings) -> dict[str, float]:
    from spiqa_demo.qa.shortlist import paper_index

    top1 = top3 = base1 = base3 = 0
    times: list[tuple[float, float]] = []
    for row in rows:
        paper = papers[row["paper"]]
        assert row["label"] in {item.title for item in paper.items}, row
        turn, wall, cpu = _timed_turn(paper, [row["question"]], settings)
        times.append((wall, cpu))
        got = _labels(turn.evidence)[:TOP]
        search = [hit.item.title for hit in paper_index(paper, settings.retrieval).search(row["question"], TOP)]
        top1 += got[:1] == [row["label"]]
        top3 += row["label"] in got
        base1 += search[:1] == [row["label"]]
        base3 += row["label"] in search
        print(f"{'right' if row['label'] in got[:1] else 'top3 ' if row['label'] in got else 'WRONG'} "
              f"{row['paper'][:18]:18s} {row['question'][:70]:70s} {row['label']} <- {got} (search {search})")
    n = len(rows)
    print(f"figure questions: top-1 {top1}/{n} = {top1 / n:.3f}, top-{TOP} {top3}/{n} = {top3 / n:.3f}; "
          f"today's search top-1 {base1 / n:.3f}, top-{TOP} {base3 / n:.3f}")
    return {"figure_questions": n, "figure_top1": round(top1 / n, 3), "figure_top3": round(top3 / n, 3),
            "search_top1": round(base1 / n, 3), "search_top3": round(base3 / n, 3)} | _latency("figure", times)


def _first_set(settings: Settings) -> dict[str, Any]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    names = {row["paper"] for part in ("text", "followups", "pointing_followups", "figures") for row in data[part]}
    papers = _papers(names, settings)
    return (_text(data["text"], papers, settings)
            | _followups(data["followups"], papers, settings, "followup")
            | _followups(data["pointing_followups"], papers, settings, "pointing_followup")
            | _figures(data["figures"], papers, settings))


@dataclass(frozen=True)
class Outcome:
    """One broad-set question measured: right evidence in the top 1 / top 3 (None: the kind has no
    evidence gold), the answer says the gold (None: no quote or cell gold), `Turn.not_found`, the
    wall and CPU seconds of the measured turn, today's `search` ranking for the item questions (None:
    not one), and whether the gold quote is in the extracted passages of its page (None: no quote)."""

    kind: str
    corpus: str
    top1: bool | None
    top3: bool | None
    says: bool | None
    not_found: bool
    seconds: float
    cpu_seconds: float
    search1: bool | None = None
    search3: bool | None = None
    extracted: bool | None = None
    read_right: bool | None = None


def _is_item(figure: Figure | None, label: str) -> bool:
    """`figure` is the paper's own (not a supplement's) item printed as `label`."""
    return figure is not None and not figure.part and (figure.kind, figure.number) == printed_label(label)


def _timed_turn(paper: Paper, questions: Sequence[str], settings: Settings) -> tuple[Turn, float, float]:
    """The last question's turn, asked after the others in one conversation, and its wall and CPU seconds."""
    conversation = Conversation(paper.sha256)
    for question in questions[:-1]:
        ask_turn(paper, conversation, question, None, settings.qa, retrieval=settings.retrieval)
    start, cpu = time.perf_counter(), time.process_time()
    turn = ask_turn(paper, conversation, questions[-1], None, settings.qa, retrieval=settings.retrieval)
    return turn, time.perf_counter() - start, time.process_time() - cpu


def _ranks(hits: Sequence[bool]) -> tuple[bool, bool]:
    return any(hits[:1]), any(hits[:TOP])


def _broad_question(row: dict[str, Any], corpus: str, paper: Paper, settings: Settings) -> Outcome:
    from spiqa_demo.qa.shortlist import paper_index

    questions = [*row.get("earlier", ()), row["first"], row["second"]] if row["kind"] == "followup" else [row["question"]]
    turn, seconds, cpu_seconds = _timed_turn(paper, questions, settings)
    top1 = top3 = says = search1 = search3 = extracted = None
    if "label" in row:
        top1, top3 = _ranks([_is_item(e.figure, row["label"]) for e in turn.evidence if e.figure is not None])
        if row["kind"] != "followup":
            search1, search3 = _ranks([_is_item(h.item, row["label"]) for h in paper_index(paper, settings.retrieval).search(questions[-1], TOP)])
    elif "page" in row:
        top1, top3 = _ranks([e.page == row["page"] for e in turn.evidence if e.passage is not None])
    if "quote" in row:
        says = quotes(turn.answer, row["quote"])
        extracted = words(row["quote"]) in "".join(words(p.text) for p in paper.passages if p.page == row["page"])
    elif "value" in row:
        says = states_cell(turn.answer, row["row"], row["value"])
    read_right = None
    if "keeps" in row:
        read_as = turn.read_as.casefold()
        read_right = all(w.casefold() in read_as for w in row["keeps"]) and not any(w.casefold() in read_as for w in row["drops"])
    gold = row.get("label") or (f"p{row['page']}" if "page" in row else "not found")
    got = [e.label or f"p{e.page}" for e in turn.evidence][:TOP]
    mark = "-    " if top3 is None else "right" if top1 else "top3 " if top3 else "WRONG"
    said = {True: "says ", False: "     ", None: "     "}[says] + ("NOT-FOUND" if turn.not_found else "         ")
    lost = " (gold sentence not in the extracted passages of its page)" if extracted is False else ""
    reading = "" if read_right is None else f" read {'right' if read_right else 'WRONG'} as {turn.read_as!r}"
    print(f"{mark} {said} {row['kind']:11s} {row['paper'].rsplit('/', 1)[-1][:22]:22s} {questions[-1][:60]:60s} {gold} <- {got} {seconds:.2f}s{lost}{reading}")
    return Outcome(row["kind"], corpus, top1, top3, says, turn.not_found, seconds, cpu_seconds, search1, search3, extracted, read_right)


def _rate(values: Sequence[bool | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{sum(known)}/{len(known)} = {sum(known) / len(known):.3f}" if known else "-"


def _p95(seconds: Sequence[float]) -> float:
    return sorted(seconds)[max(0, math.ceil(0.95 * len(seconds)) - 1)]


def _fraction(values: Sequence[bool | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 3) if known else None


def _summary(outcomes: Sequence[Outcome]) -> dict[str, dict[str, Any]]:
    """Per kind (and per corpus within it): the figures printed and returned for the JSON line."""
    print(f"{'kind':12s} {'corpus':7s} {'n':>3s}  {'evidence top-1':17s} {'evidence top-3':17s} {'answer says gold':17s} "
          f"{'search top-1':14s} {'search top-3':14s} {'not found said':15s} {'median s':>8s} {'p95 s':>6s} {'median cpu s':>12s} {'p95 cpu s':>9s}")
    result: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        for corpus in ("all", "litqa", "CS"):
            rows = [o for o in outcomes if o.kind == kind and corpus in ("all", o.corpus)]
            if not rows:
                continue
            seconds, cpu = [o.seconds for o in rows], [o.cpu_seconds for o in rows]
            print(f"{kind:12s} {corpus:7s} {len(rows):3d}  {_rate([o.top1 for o in rows]):17s} {_rate([o.top3 for o in rows]):17s} "
                  f"{_rate([o.says for o in rows]):17s} {_rate([o.search1 for o in rows]):14s} {_rate([o.search3 for o in rows]):14s} "
                  f"{_rate([o.not_found for o in rows]):15s} {statistics.median(seconds):8.2f} {_p95(seconds):6.2f} "
                  f"{statistics.median(cpu):12.2f} {_p95(cpu):9.2f}")
            if corpus == "all":
                result[kind] = {"n": len(rows), "top1": _fraction([o.top1 for o in rows]), "top3": _fraction([o.top3 for o in rows]),
                                "says": _fraction([o.says for o in rows]), "search_top1": _fraction([o.search1 for o in rows]),
                                "search_top3": _fraction([o.search3 for o in rows]), "not_found": _fraction([o.not_found for o in rows]),
                                "median_s": round(statistics.median(seconds), 3), "p95_s": round(_p95(seconds), 3),
                                "median_cpu_s": round(statistics.median(cpu), 3), "p95_cpu_s": round(_p95(cpu), 3)}
    answerable = [o for o in outcomes if o.kind != "not_found"]
    asked = [o.says for o in outcomes if o.kind in ("text", "table")]
    print(f"'not found' wrongly said on answerable questions: {_rate([o.not_found for o in answerable])}; "
          f"the answer quotes the gold sentence or states the gold cell (text and table questions): {_rate(asked)}; "
          f"gold sentences found in the extracted passages of their page: {_rate([o.extracted for o in outcomes])}")
    read = [o.read_right for o in outcomes]
    if any(r is not None for r in read):
        print(f"follow-ups read right (their reading holds the gold's words and none it drops): {_rate(read)}")
        result["read_right"] = {"n": sum(r is not None for r in read), "fraction": _fraction(read)}
    result["answerable"] = {"n": len(answerable), "not_found": _fraction([o.not_found for o in answerable])}
    result["text_and_table"] = {"n": len(asked), "says": _fraction(asked)}
    result["gold_sentence_extracted"] = {"n": sum(o.extracted is not None for o in outcomes), "fraction": _fraction([o.extracted for o in outcomes])}
    return result


def _blind_set(set_name: str, settings: Settings) -> dict[str, Any]:
    """A set in the broad set's shape (`BLIND_SETS`, `DEV_SETS`), measured and printed per kind and corpus."""
    data = json.loads((BLIND_SETS | DEV_SETS)[set_name].read_text(encoding="utf-8"))
    rows = data["questions"]
    errors = [f"{row['paper']}: {error}" for row in rows for error in gold_errors(row, SHARED)]
    if errors:
        raise ValueError("the set's gold is not printed in its PDFs (a transcription error): " + "; ".join(errors))
    papers = {}
    for name in sorted(data["papers"]):
        start = time.perf_counter()
        papers[name] = open_paper(SHARED / name, settings).paper
        _timed_turn(papers[name], ["What is this paper about?"], settings)  # builds the index (see `_papers`)
        print(f"loaded {name} ({len(papers[name].items)} figures and tables) in {time.perf_counter() - start:.1f}s")
    corpus = {name: "litqa" if family.startswith("litqa") else "CS" for name, family in data["papers"].items()}
    outcomes = [_broad_question(row, corpus[row["paper"]], papers[row["paper"]], settings) for row in rows]
    print(f"{set_name} set:")
    return {set_name: _summary(outcomes)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reader_conversation", description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=("first", *BLIND_SETS, *DEV_SETS, "all"), default="all",
                        help="which question set: the first (reader_questions.json), the broad, fresh, blind or blind2 one "
                             "(reader_questions_<name>.json), all of them (default), or a dev set, not in 'all': the table "
                             "lookups' (table_lookups_dev.json and _dev2.json, tuned on; _dev3.json, held out but for one rule), the quoted "
                             "sentences' (quote_questions_dev.json) or the follow-ups' (followups_dev.json, followups_dev2.json), tuned on")
    chosen = parser.parse_args(argv).set
    settings = get_settings()
    result: dict[str, Any] = {}
    if chosen in ("first", "all"):
        result |= _first_set(settings)
    for name in BLIND_SETS:
        if chosen in (name, "all"):
            result |= _blind_set(name, settings)
    if chosen in DEV_SETS:
        result |= _blind_set(chosen, settings)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
