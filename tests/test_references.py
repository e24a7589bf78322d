"""The bibliography: references parsed in the printed styles, citations linked, odd input survived.

Real papers (../shared) cover the styles: numbered "[n]" (ResNet), numbered "n." with Springer's
"Surname, I.: Title" (CBAM), author-year with a hanging indent (BERT, ACL 2019 deep Transformer).
Alphabetic keys ("[DCLT19]") are in none of them, so a small PDF is written here for that style.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from evalsuite.pdf_factory import two_column_paper
from spiqa_demo.extraction import extract_paper
from spiqa_demo.extraction.citations import CitationIndex, link_citations
from spiqa_demo.extraction.references import Row, find_references, parse_entry
from spiqa_demo.types import Figure, Mention, Paper, Passage, Reference

PRINTED = {"resnet-1512.03385.pdf": 50, "cbam-eccv2018.pdf": 42, "bert-1810.04805.pdf": 56,
           "deep-transformer-mt-acl2019-1906.01787.pdf": 36}  # fmt: skip


@pytest.fixture(scope="module")
def papers(shared: Path) -> dict[str, Paper]:
    return {name: extract_paper(shared / "papers" / name) for name in PRINTED}


def _by_key(paper: Paper) -> dict[str, Reference]:
    return {r.key: r for r in paper.references}


def _keys(paper: Paper, indices: tuple[int, ...]) -> list[str]:
    return [paper.references[i].key for i in indices]


# Styles on real papers ----------------------------------------------------------------------------


def test_every_printed_reference_is_parsed(papers: dict[str, Paper]) -> None:
    for name, printed in PRINTED.items():
        refs = papers[name].references
        assert len(refs) == printed, name
        assert all(r.title for r in refs), name
        # CBAM's "36. : Pytorch. http://pytorch.org/" prints no authors
        assert all(r.authors for r in refs if not r.text.startswith(":")), name


def test_numbered_style_keys_titles_and_ids(papers: dict[str, Paper]) -> None:
    refs = papers["resnet-1512.03385.pdf"].references
    assert [r.key for r in refs] == [f"[{n}]" for n in range(1, 51)]
    first = refs[0]
    assert first.title == "Learning long-term dependencies with gradient descent is difficult"
    assert first.authors == ("Y. Bengio", "P. Simard", "P. Frasconi") and first.year == 1994


def test_dotted_numbers_with_springer_author_lists(papers: dict[str, Paper]) -> None:
    refs = _by_key(papers["cbam-eccv2018.pdf"])
    assert list(refs)[:3] == ["1.", "2.", "3."]
    assert refs["1."].title == "Imagenet: A large-scale hierarchical image database"
    assert refs["1."].authors[:2] == ("Deng, J.", "Dong, W.") and refs["1."].year == 2009
    # the page numbers printed after an entry (where it is cited) are not part of its title
    assert refs["2."].title == "Learning multiple layers of features from tiny images"


def test_author_year_keys_with_year_letters(papers: dict[str, Paper]) -> None:
    refs = _by_key(papers["bert-1810.04805.pdf"])
    assert refs["Peters et al., 2018a"].title == "Deep contextualized word representations"
    assert refs["Peters et al., 2018b"].title.startswith("Dissecting contextual word embeddings")
    assert refs["Dai and Le, 2015"].title == "Semi-supervised sequence learning"
    assert refs["Taylor, 1953"].year == 1953


def test_an_entry_running_across_pages_stays_whole(papers: dict[str, Paper]) -> None:
    first = papers["deep-transformer-mt-acl2019-1906.01787.pdf"].references[0]
    assert first.key == "Al-Rfou et al., 2018" and first.page == 9
    assert first.text.endswith("arXiv preprint arXiv:1808.04444.")  # its last rows are on page 10
    assert first.arxiv_id == "1808.04444"


# Citations linked -------------------------------------------------------------------------------


def test_table_rows_cite_the_references_they_name(papers: dict[str, Paper]) -> None:
    resnet = papers["resnet-1512.03385.pdf"]
    table = resnet.get("table-3")
    assert table is not None and "VGG-16 [41]" in table.text
    cited = {r.key: r.title for r in resnet.cited_by(table)}
    assert cited["[41]"] == "Very deep convolutional networks for large-scale image recognition"
    # an author-year row: "Bapna et al. (2018) | 28.0"
    deep = papers["deep-transformer-mt-acl2019-1906.01787.pdf"]
    assert "Bapna et al., 2018" in _keys(deep, deep.get("table-2").citations)


def test_mentions_and_passages_cite_references(papers: dict[str, Paper]) -> None:
    bert = papers["bert-1810.04805.pdf"]
    mention = next(m for m in bert.get("table-2").mentions if "top published systems" in m.sentence)
    assert "Seo et al., 2017" in _keys(bert, mention.citations)
    # the paragraph of the mention cites the whole list "(Seo et al., 2017; Clark and Gardner, 2018; ...)"
    assert {"Seo et al., 2017", "Clark and Gardner, 2018", "Peters et al., 2018a"} <= set(
        _keys(bert, bert.passages[mention.passage].citations)
    )
    passage = next(p for p in bert.passages if "(Peters et al., 2017, 2018a)" in p.text)
    assert {"Peters et al., 2017", "Peters et al., 2018a"} <= set(_keys(bert, passage.citations))
    passage = next(p for p in bert.passages if "Unlike Peters et al. (2018a) and Radford et al. (2018)" in p.text)
    assert _keys(bert, passage.citations)[:2] == ["Peters et al., 2018a", "Radford et al., 2018"]


def test_bracket_citations_lists_and_ranges() -> None:
    refs = [Reference(key=f"[{n}]", text=f"Entry {n}.") for n in range(1, 11)]
    index = CitationIndex.of(refs)
    assert index.cited("as in [3, 5\u20137] and [10]") == (2, 4, 5, 6, 9)
    assert index.cited("see [2, Sec. 3]") == (1,)
    assert index.cited("values in [0, 1] and [1, 256]") == ()  # intervals, not citations


def test_author_year_citations() -> None:
    refs = [parse_entry(text) for text in (
        "Jacob Devlin, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. 2019. BERT: Pre-training of deep bidirectional transformers for language understanding. In NAACL.",
        "Yinhan Liu, Myle Ott, and Naman Goyal. 2019a. RoBERTa: A robustly optimized BERT pretraining approach. arXiv preprint arXiv:1907.11692.",
        "Xiaodong Liu, Pengcheng He, Weizhu Chen, and Jianfeng Gao. 2019b. Multi-task deep neural networks for natural language understanding. In ACL.",
        "Andrew M Dai and Quoc V Le. 2015. Semi-supervised sequence learning. In NIPS.",
    )]  # fmt: skip
    assert [r.key for r in refs] == ["Devlin et al., 2019", "Liu et al., 2019a", "Liu et al., 2019b", "Dai and Le, 2015"]
    assert refs[1].arxiv_id == "1907.11692"
    index = CitationIndex.of(refs)
    assert index.cited("(Devlin et al., 2019; Liu et al., 2019a)") == (0, 1)
    assert index.cited("Devlin et al. (2019) and Dai and Le (2015)") == (0, 3)
    assert index.cited("as Liu et al. (2019a,b) show") == (1, 2)
    assert index.cited("In 2019, BERT (2019) was new") == ()


# Alphabetic keys, no bibliography, JSON ---------------------------------------------------------


def _alphabetic_paper(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    body = [
        "Pre-trained encoders [DCLT19] build on the Transformer [Vas+17; DCLT19], with attention only,",
        "and Table 1 compares them with earlier language models [RWC+19].",
    ]
    y = 90.0
    for line in body:
        page.insert_text((72, y), line, fontsize=10, fontname="tiro")
        y += 13
    page.insert_text((72, 200), "References", fontsize=12, fontname="tibo")
    entries = [
        ("[DCLT19]", ["Jacob Devlin, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. BERT: Pre-training of deep",
                      "bidirectional transformers for language understanding. In NAACL, 2019."]),
        ("[RWC+19]", ["Alec Radford, Jeffrey Wu, Rewon Child, David Luan, Dario Amodei, and Ilya Sutskever.",
                      "Language models are unsupervised multitask learners. Technical report, 2019."]),
        ("[Vas+17]", ["Ashish Vaswani, Noam Shazeer, Niki Parmar, and Jakob Uszkoreit. Attention is all you",
                      "need. In NeurIPS, 2017."]),
    ]  # fmt: skip
    y = 222.0
    for key, lines in entries:
        page.insert_text((72, y), key, fontsize=9, fontname="tiro")
        for line in lines:
            page.insert_text((120, y), line, fontsize=9, fontname="tiro")
            y += 11
        y += 4
    doc.save(path)
    return path


def test_alphabetic_keys(tmp_path: Path) -> None:
    paper = extract_paper(_alphabetic_paper(tmp_path / "alpha.pdf"))
    assert [r.key for r in paper.references] == ["[DCLT19]", "[RWC+19]", "[Vas+17]"]
    assert [r.title for r in paper.references] == [
        "BERT: Pre-training of deep bidirectional transformers for language understanding",
        "Language models are unsupervised multitask learners",
        "Attention is all you need",
    ]
    cited = [_keys(paper, p.citations) for p in paper.passages]
    assert any(keys[:2] == ["[DCLT19]", "[Vas+17]"] for keys in cited), cited


def test_a_paper_without_a_bibliography(tmp_path: Path) -> None:
    paper = extract_paper(two_column_paper(tmp_path / "plain.pdf").path)
    assert paper.references == []
    assert not any(p.citations for p in paper.passages) and not any(i.citations for i in paper.items)
    assert not any("reference" in w.lower() for w in paper.warnings)


def test_references_and_citations_round_trip_through_json() -> None:
    ref = parse_entry("K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning for image recognition. "
                      "In CVPR, 2016. doi:10.1109/CVPR.2016.90 https://example.org/resnet", "[7]", page=9)  # fmt: skip
    assert ref.doi == "10.1109/CVPR.2016.90" and ref.url == "https://example.org/resnet" and ref.venue == "CVPR"
    item = Figure(kind="table", label="Table 1", number="1", page=1, bbox=(0, 0, 1, 1), text="| ResNet [7] | 3.57 |")
    item.mentions.append(Mention(0, "Table 1 compares ResNet [7]."))
    passages, items = link_citations([Passage("ResNet [7] is deep.", 1, (0, 0, 1, 1))], [item], [ref])
    paper = Paper(sha256="0" * 64, source="x.pdf", title="", arxiv_id=None, page_sizes=[(612.0, 792.0)],
                  passages=passages, items=items, references=[ref])  # fmt: skip
    again = Paper.from_json(paper.to_json())
    assert again == paper
    assert again.items[0].citations == (0,) and again.items[0].mentions[0].citations == (0,)
    assert again.passages[0].citations == (0,) and again.cited_by(again.items[0]) == [ref]
    assert json.loads(paper.to_json())["references"][0]["authors"] == ["K. He", "X. Zhang", "S. Ren", "J. Sun"]


# Odd input --------------------------------------------------------------------------------------


def _rows(texts: list[str], x: float = 72.0) -> list[Row]:
    return [Row(page=1, column=0, text=t, x0=x, y0=100.0 + 12 * i, y1=109.0 + 12 * i, size=9.0, bold=False)
            for i, t in enumerate(texts)]  # fmt: skip


@pytest.mark.parametrize(
    "texts",
    [
        [],
        ["References"],
        ["References", "[1]", "[2]", "[3]"],
        ["References", "[3] C. [1] A. [2]", "[1] B.", "[99] Z.", "[2] ....", "[3] \u201c\u201d \u201c,\u201d in ,"],
        ["References", "1. 2. 3. 4.", "2. :", "3. A, B.: : :", "4. et al. et al. 2019. 2019a."],
        ["References", "\x00\ufffd" * 500, "\u202e[1] reversed", "[" * 300, "(" * 300 + "2019"],
        ["References", "Smith, J. " * 400 + "2020. " + "Title. " * 300],
        ["Bibliography"] + ["Some text that never ends and has no year"] * 50,
    ],
)
def test_odd_reference_text_does_not_crash(texts: list[str]) -> None:
    refs = find_references(_rows(texts))
    index = CitationIndex.of(refs)
    for ref in refs:
        assert isinstance(ref, Reference) and Reference.from_dict(json.loads(json.dumps(ref.__dict__))) == ref
    for text in ["[", "[]", "[1-100000]", "[3\u20131]", "(Smith et al., 20199)", "Smith et al. (" * 50, "\x00[1]"]:
        assert isinstance(index.cited(text), tuple)
