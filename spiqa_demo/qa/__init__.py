"""Question answering over one paper's figures and tables, following the SPIQA tasks.

`ask(paper, question, backend, task="cot")` -> `Answer`; `ask_stream(...)` streams the reply's text
first. Prompts live in `prompts` (versioned), reply parsing in `parsing`, the flows in `flows`.
"""

from spiqa_demo.qa.answer import TASKS, Answer, Candidate, Task
from spiqa_demo.qa.flows import Shortlister, ask, ask_stream
from spiqa_demo.qa.parsing import CotReply, parse_cot, parse_direct
from spiqa_demo.qa.prompts import PROMPT_VERSION

__all__ = [
    "PROMPT_VERSION",
    "TASKS",
    "Answer",
    "Candidate",
    "CotReply",
    "Shortlister",
    "Task",
    "ask",
    "ask_stream",
    "parse_cot",
    "parse_direct",
]
