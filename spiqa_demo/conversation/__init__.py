"""The reader's conversation with one paper: follow-ups, answers from the figures, tables and text,
every answer shown with the evidence it rests on. It sits beside SPIQA's tasks (`spiqa_demo.qa`),
which stay the reproduction's.

How the UI (or any caller) uses it:

    conversation = Conversation(paper_key=paper.sha256)    # one per loaded paper; a new paper, a new one
    for event in ask_turn_stream(paper, conversation, question, backend, settings.qa,
                                 retrieval=settings.retrieval):
        if isinstance(event, Status): show the step (event.text)
        elif isinstance(event, str): append the answer text as it streams
        else: the final Turn (already appended to `conversation`): show `turn.answer` in place of
              the streamed text, since it names the model's "Image 0" by the item's label
    stopped_turn(paper, conversation, question)             # the reader stopped it: a follow-up still reads against it
    conversation.clear()                                    # "Clear" keeps the paper

`ask_turn(...)` is the same without streaming. A `Turn` has `question`, `read_as` (show "Read as: ..."
when `turn.followup`), `answer` (the model's, or without a model a quote of the paper's best
sentence(s) with "[p. N]"), `evidence` (ranked `Evidence`: kind figure/table/passage, page, label,
text, box in PDF points, the `Figure`/`Passage`, `cited`, and a passage's `quotes` to box), `messages`
(notes for the reader) and `abstained` (the model said it does not know: show no evidence as
supporting; `turn.cited` is then empty). `Turn.to_json()` is the CLI's JSON. An empty question raises
`InputError`; everything that goes wrong with the model is in `messages`, with the quoted answer.
"""

from spiqa_demo.conversation.flow import Event, Status, ask_turn, ask_turn_stream, stopped_turn
from spiqa_demo.conversation.followup import Reading, read_question
from spiqa_demo.conversation.types import Conversation, Evidence, EvidenceKind, Turn

__all__ = [
    "Conversation",
    "Event",
    "Evidence",
    "EvidenceKind",
    "Reading",
    "Status",
    "Turn",
    "ask_turn",
    "ask_turn_stream",
    "read_question",
    "stopped_turn",
]
