"""The measurement's prompts, one section per protocol, each with its version.

L3Score is the SPIQA paper's judge (Appendix F, verbatim: scores are comparable with the paper's
only with this wording). M3SciQA's stage 2 answers from the top-ranked cited papers' texts and is
graded 1 / 0.5 / 0 by a judge; the benchmark's own wording is not reproduced (its source has no
licence), so these restate its protocol (KIT-NOTES §4.2). The reader's prompts are the product's:
SPIQA's tasks in `spiqa_demo.qa.prompts`, the cross-paper reader in `spiqa_demo.crosspaper.prompts`.
"""

from __future__ import annotations

from spiqa_demo.crosspaper.prompts import IDK

L3SCORE_PROMPT_VERSION = "spiqa-appendix-f"
L3SCORE_PROMPT = (
    "You are given a question, ground-truth answer, and a candidate answer. "
    "Question: {question} \nGround-truth answer: {ground_truth} \nCandidate answer: {candidate} \n"
    "Is the semantic meaning of the ground-truth and candidate answers similar? "
    "Answer in one word - Yes or No."
)

M3SCIQA_PROMPT_VERSION = "m3sciqa-restated-1"
M3SCIQA_ANSWER_PROMPT = (
    "Below are the {what} of {count} scientific paper(s) cited by another paper; the full texts are "
    "not available. Using only this text, answer the question in short form. If the text does not "
    f'contain the answer, reply exactly "{IDK}". Do not guess.\n\n{{context}}\n\nQuestion: {{question}}\nAnswer:'
)
M3SCIQA_MERGE_PROMPT = (
    "Several readers answered the same question, each from a different part of the same papers' titles and "
    f'abstracts. Combine their answers into one short answer. If none of them answers it, reply exactly "{IDK}".'
    "\n\nQuestion: {question}\n\n{answers}\n\nCombined answer:"
)
M3SCIQA_JUDGE_PROMPT = (
    "You are checking an answer to a question about a scientific paper against the reference answer.\n"
    "Question: {question}\nReference answer: {reference}\nCandidate answer: {candidate}\n"
    "Does the candidate answer mean the same as the reference answer? Reply with JSON only: "
    '{{"selection": "1"}} if it means the same, {{"selection": "0.5"}} if it is partially correct, '
    '{{"selection": "0"}} if it is irrelevant or wrong.'
)
