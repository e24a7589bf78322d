"""Across papers, retrieval only: does the cited paper a question names rank first, with a passage?

    python -m benchmarks.named_papers          (from the repository root)

Questions name a method as a reader would ("In the paper that proposed the Transformer, ...",
"In ResNet's paper, ..."). Anchors and questions differ from the test suite's (tests/
test_cited_answer.py asks about Coordinate Attention, A2-Nets and CBAM): here every other shared
paper is the anchor's library, so the cited paper competes with every reference the anchor prints
and with uncited papers. A question counts as right when the named paper ranks first and the
first passage comes from it. Printed (never asserted): one line per question, then the share
right; the last line is JSON. Data: `SPIQA_SHARED` (default ../shared).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from evalsuite.paths import SHARED
from spiqa_demo.crosspaper.cited_answer import ask_cited
from spiqa_demo.library import PaperLibrary
from spiqa_demo.settings import get_settings

RESNET = "resnet-1512.03385.pdf"
BERT = "bert-1810.04805.pdf"
TRANSFORMER = "attention-is-all-you-need-1706.03762.pdf"
CASES = [
    ("vit-2010.11929.pdf", "ResNet is the backbone of BiT in Table 2. In the paper that proposed ResNet, how deep is the "
                           "deepest model?", RESNET),
    ("vit-2010.11929.pdf", "In the paper that introduced BERT, which pre-training tasks are used?", BERT),
    ("vit-2010.11929.pdf", "In the original Transformer paper, how many attention heads are used?", TRANSFORMER),
    ("moco-1911.05722.pdf", "ResNet-50 is the encoder in Table 1. In the paper that proposed ResNet, what is the top-5 "
                            "error of the ensemble?", RESNET),
    ("res2net-tpami-1904.01169.pdf", "In ResNet's paper, how many layers does the deepest CIFAR-10 network have?", RESNET),
    ("flashattention-2205.14135.pdf", "In the paper that proposed the Transformer, what is the model dimension?", TRANSFORMER),
    ("flashattention-2205.14135.pdf", "BERT-large is trained in Table 1. In BERT's paper, how many layers does "
                                      "BERT-large have?", BERT),
    ("ecapa-tdnn-interspeech2020-2005.07143.pdf", "In the paper that proposed Res2Net, what does the scale dimension "
                                                  "mean?", "res2net-tpami-1904.01169.pdf"),
    ("deep-transformer-mt-acl2019-1906.01787.pdf", "In the original Transformer paper, what BLEU does the big model "
                                                   "reach on WMT14 En-De?", TRANSFORMER),
    ("bert-1810.04805.pdf", "In the paper that introduced the Transformer, how is positional encoding done?", TRANSFORMER),
]  # fmt: skip


def main() -> int:
    papers = SHARED / "papers"
    libraries: dict[str, PaperLibrary] = {}
    right = 0
    with tempfile.TemporaryDirectory() as tmp:
        for anchor, question, expected in CASES:
            if anchor not in libraries:
                folder = Path(tmp) / anchor
                folder.mkdir()
                for pdf in papers.glob("*.pdf"):
                    if pdf.name != anchor:
                        shutil.copy(pdf, folder / pdf.name)
                libraries[anchor] = PaperLibrary.open(papers / anchor, get_settings())
                libraries[anchor].add([folder])
            answer = ask_cited(libraries[anchor], question)
            first = answer.cited_papers[0]
            got = Path(first.source).name if first.source else None
            ok = got == expected and bool(answer.passages) and Path(answer.passages[0].source).name == expected
            right += ok
            print(f"{'right' if ok else 'WRONG'}  {anchor[:28]:28s} {question[:60]:60s} -> {first.title[:50]}")
    print(f"named paper first with a passage: {right}/{len(CASES)}")
    print(json.dumps({"questions": len(CASES), "right": right, "share": round(right / len(CASES), 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
