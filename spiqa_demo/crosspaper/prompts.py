"""The cross-paper reader's prompts, versioned together: a change of wording is a new version.

Two calls: the model ranks the anchor's cited papers for a figure question (its reply is JSON in
the `{"ranking": [...]}` format the M3SciQA benchmark asks for, so its parser serves both), and it
answers from numbered passages of the cited papers, citing them by number. SPIQA's own prompts are
in `spiqa_demo.qa.prompts`; the benchmarks' judges and M3SciQA's stage-2 prompts are measurement
and live in `spiqa_demo.evaluation.prompts`.
"""

from __future__ import annotations

CROSSPAPER_PROMPT_VERSION = "crosspaper-1"

IDK = "I don't know"

RANKING_INSTRUCTIONS = (
    "You are given a figure or table from a scientific paper, a question about it, and the papers "
    "that paper cites, numbered. The answer to the question is an entity shown in the figure; find "
    "the cited paper that introduced that entity. Reply with JSON only: "
    '{"ranking": [numbers of the most likely papers, best first]}. You may leave out irrelevant papers.'
)

CITED_ANSWER_PROMPT = (
    "Below are numbered passages from scientific papers cited by another paper, each with its paper's "
    "title and page. Using only these passages, answer the question in one or two sentences and cite "
    "the passages you used by their numbers in square brackets, e.g. [1]. If the passages do not "
    f'contain the answer, reply exactly "{IDK}". Do not guess.\n\n{{passages}}\n\nQuestion: {{question}}\nAnswer:'
)
