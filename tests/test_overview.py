"""A start on every shared paper: its overview without a model, and suggested questions drawn from the
paper that, asked through the reader's flow, each get evidence from it about what they name."""

from __future__ import annotations

import pytest
from retrieval_fixtures import encoded_once
from shared_papers import hard_manifest, manifest, shared_papers

from spiqa_demo.conversation import Conversation, ask_turn
from spiqa_demo.conversation.overview import SUMMARY_CHARS, overview, summary_messages
from spiqa_demo.conversation.sections import headings, named_words
from spiqa_demo.settings import get_settings
from spiqa_demo.types import Paper

pytestmark = pytest.mark.usefixtures("encoded_once")  # every shared paper indexed: its vectors kept between runs


def test_every_shared_papers_suggestions_find_what_they_name(shared_papers: dict[str, Paper]) -> None:
    settings = get_settings()
    failures = []
    for name, paper in shared_papers.items():
        seen = overview(paper, settings.qa, settings.retrieval)
        assert seen.title and seen.counts == paper.summary() and seen.opening and seen.opening_page >= 1, name
        assert 3 <= len(seen.suggestions) <= 4, (name, seen.suggestions)
        under = {id(p): h for p, h in zip(paper.passages, headings(paper))}
        for suggestion in seen.suggestions:
            if suggestion.kind == "section":  # asked in words its section's heading answers to
                assert named_words(suggestion.question, suggestion.about), suggestion
            else:
                assert suggestion.about in suggestion.question and suggestion.hint, suggestion
            turn = ask_turn(paper, Conversation(), suggestion.question, None, settings.qa, retrieval=settings.retrieval)
            found = ([under.get(id(e.passage)) for e in turn.evidence if e.passage is not None] if suggestion.kind == "section"
                     else [e.label for e in turn.evidence[:1]])
            if suggestion.about not in found:
                failures.append((name, suggestion.question, suggestion.about, found))
    assert failures == []


def test_the_summary_request_holds_the_abstract_and_captions_with_their_pages(shared_papers: dict[str, Paper]) -> None:
    paper = shared_papers["resnet-1512.03385.pdf"]
    [message] = summary_messages(paper)
    assert "three sentences" in message.text and "[p. 3]" in message.text
    assert "[p. 1] Deeper neural networks are more difﬁcult to train." in message.text
    assert "Figure 1. Training error" in message.text and len(message.text) < SUMMARY_CHARS + 1000


def test_the_summary_streams_then_ends_whole_and_closes_its_request(shared_papers: dict[str, Paper]) -> None:
    """`summary_stream` passes the model's pieces on as written, ends with the whole `Summary`, asks for a
    bounded reply, and closing it early closes the model's stream (a fake backend in addition to the app's
    loopback-listener test)."""
    from collections.abc import Iterator

    from spiqa_demo.conversation.overview import SUMMARY_TOKENS, Summary, summary_stream

    closed: list[bool] = []

    class Backend:
        def stream(self, messages: list, max_new_tokens: int = 512, usage: object = None) -> Iterator[str]:
            assert max_new_tokens == SUMMARY_TOKENS and "three sentences" in messages[0].text
            try:
                yield from ("It proposes residual learning [p. 1].", " It wins ILSVRC 2015 [p. 8].")
            finally:
                closed.append(True)

    paper = shared_papers["resnet-1512.03385.pdf"]
    events = list(summary_stream(paper, Backend()))  # type: ignore[arg-type]
    assert events[:2] == ["It proposes residual learning [p. 1].", " It wins ILSVRC 2015 [p. 8]."]
    assert events[2] == Summary("It proposes residual learning [p. 1]. It wins ILSVRC 2015 [p. 8].") and closed == [True]
    stopped = summary_stream(paper, Backend())  # type: ignore[arg-type]
    next(stopped)
    stopped.close()
    assert closed == [True, True]


def test_a_suggestion_is_shown_whole_with_its_captions_gist() -> None:
    """The app shows at most `SHOWN_CHARS` of a suggestion's question or gist (Gradio cuts a longer one mid-word):
    a caption's first sentence is its gist whole when it fits, else its longest opening that fits and ends where a
    clause or a phrase does, never cut mid-phrase; every topic question fits whole."""
    from spiqa_demo.conversation.overview import SHOWN_CHARS, TOPIC_QUESTIONS, _hint
    from spiqa_demo.types import Figure

    def gist(caption: str) -> str:
        return _hint(Figure(kind="figure", label="Fig. 2", number="2", page=4, bbox=(0.0, 0.0, 1.0, 1.0), caption=caption))

    assert gist("Fig. 2 | PARP1 is UFMylated on K548. Immunoblots of the cells.") == "PARP1 is UFMylated on K548"
    assert gist("Fig. 1 | Origin of eukaryotic EF-1A within Asgard archaea and the distribution of optimal growth "
                "temperatures. Trees of the species.") == "Origin of eukaryotic EF-1A within Asgard archaea"
    assert gist("Fig. 3 | Divergent evolution of OGTs across the Asgard phylogeny, inferred from ancestral sequence "
                "reconstruction. Trees of the species.") == "Divergent evolution of OGTs across the Asgard phylogeny"
    assert gist("Fig. 4 | Defective UFMylation impairs replication fork degradation and promotes genome instability.") \
        == "Defective UFMylation impairs replication fork degradation"
    assert gist("Figure 2: Results of single and multiple FRMap (S-FRMap and M-FRMap blocks with pooling) on "
                "AFEW.") == "Results of single and multiple FRMap"  # never inside brackets
    assert all(len(q) <= SHOWN_CHARS for q in TOPIC_QUESTIONS)


def test_the_start_reads_an_abstract_in_capitals_and_a_caption_opening_with_a_panel() -> None:
    """"ABSTRACT" opening the paragraph is its heading, not its first word; a caption with no title sentence
    is told by its first panel's words, not "(a)"."""
    from spiqa_demo.conversation.overview import _hint, _opening
    from spiqa_demo.types import Figure

    assert _opening("ABSTRACT The two species differ. They are common. A third sentence.") == "The two species differ. They are common."
    assert _opening("Abstract—We present MoCo. It learns.") == "We present MoCo. It learns."
    figure = Figure(kind="figure", label="FIG 7", number="7", page=14, bbox=(0.0, 0.0, 1.0, 1.0),
                    caption="FIG 7 (a) The survival of AB and AL strains in serum. (b) Survival of larvae.")
    assert _hint(figure) == "The survival of AB and AL strains in serum"
