"""A stopped answer closes its model request: the server stops sending (on a paid API, billing).

Against the real loopback listener (`evalsuite.openai_listener`), streaming a piece only when the
test releases it: the test stops while the stream is held, so the listener sees the hang-up only if
the app closed the connection itself, and counts the pieces it sent after the stop. A server that
holds even its headers (`silent`: a slow or queued model) is hung up on too, and nothing is retried.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from evalsuite.openai_listener import openai_listener
from spiqa_demo.models.base import Message, closed_after
from spiqa_demo.models.openai_api import OpenAIBackend
from spiqa_demo.models.stopping import CallStop, Stopped, stoppable
from spiqa_demo.ui.serving.work.fair_queue import FairQueue
from spiqa_demo.ui.serving.work.model_calls import ModelCall

HANG_UP_S = 30  # a bound for a broken build only: the hang-up comes at once


def test_closing_the_stream_closes_the_request() -> None:
    with openai_listener(paced=True, chunks=40) as server:
        pieces = OpenAIBackend("m", base_url=server.url).stream([Message("user", ["Which method is best?"])])
        server.release(2)
        assert [next(pieces) for _ in range(3)][-1] == "SPDNet"
        server.mark_stop()
        pieces.close()  # the reader stopped iterating (its generator closed)
        assert server.disconnected.wait(HANG_UP_S)
        assert server.sent_after_stop == 0 and not server.finished.is_set()


def test_stopping_from_another_thread_hangs_up_a_stream_waiting_for_its_next_piece() -> None:
    """The thread reading the reply is blocked on the socket: the stopping thread hangs it up, and
    the reader ends with `Stopped`, not a connection error."""
    with openai_listener(paced=True, chunks=40) as server:
        stop = CallStop()
        pieces = OpenAIBackend("m", base_url=server.url).stream([Message("user", ["Which method is best?"])])
        with stoppable(stop):
            next(pieces)
            server.mark_stop()
            threading.Timer(0, stop.stop).start()  # another thread, while this one waits for a piece
            with pytest.raises(Stopped):
                next(pieces)
        assert server.disconnected.wait(HANG_UP_S)
        assert server.sent_after_stop == 0


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
def test_stopping_before_the_servers_headers_hangs_up_at_once_and_retries_nothing(streamed: bool) -> None:
    """The server holds its reply's headers (until the test's go, which never comes before the
    check): the stop hangs up the connection it waits on, and the call ends in `Stopped`."""
    with openai_listener(answer_first=0, silent=True) as server:
        stop = CallStop()
        backend = OpenAIBackend("m", base_url=server.url, first_byte_timeout_s=600, max_retries=3)
        messages = [Message("user", ["Which method is best?"])]
        ended: list[BaseException] = []

        def ask() -> None:
            with stoppable(stop):
                try:
                    list(backend.stream(messages)) if streamed else backend.generate(messages)
                except Exception as exc:
                    ended.append(exc)

        asking = threading.Thread(target=ask)
        asking.start()
        assert server.held.wait(HANG_UP_S)
        stop.stop()
        assert server.disconnected.wait(HANG_UP_S), "the request stayed open after Stop"
        asking.join(HANG_UP_S)
        assert not asking.is_alive() and not server.go.is_set()
        assert len(ended) == 1 and isinstance(ended[0], Stopped), ended
        assert len(server.requests) == 1  # no retry asked again


def test_a_stopped_model_call_in_the_apps_pool_closes_its_request() -> None:
    """As the reader's chat, SPIQA's tasks and the Across tab run a model: in a pool thread, relayed
    to the handler through a `ModelCall`; Stop (or a cancelled event) calls `stop()` from elsewhere."""
    with openai_listener(paced=True, chunks=40) as server:
        backend = OpenAIBackend("m", base_url=server.url)
        events = relayed(backend.stream([Message("user", ["Which method is best?"])]))
        pool: FairQueue[ModelCall] = FairQueue(1, "test-model")
        call = ModelCall(events, pool)
        pool.submit("reader", call)
        server.release(1)
        taken: list[object] = []
        while len(taken) < 2:  # the first two pieces reached the handler; the stream is held now
            taken += call.take()
        server.mark_stop()
        call.stop()
        assert server.disconnected.wait(HANG_UP_S)
        assert server.sent_after_stop == 0


def relayed(pieces: Iterator[str]) -> Iterator[str]:
    """A flow wrapping a backend's stream, as the app's flows do."""
    with closed_after(pieces) as stream:
        yield from stream
