"""Which of the browser's uploads of a session are still on their way, told by marks that may arrive in any order.

The page numbers its uploads (1, 2, …) and sends the number with each word about one: its start, its
failure, and its load (the upload's own event, sent once the file has arrived). Each word is its own
request, and the start's (unqueued) can reach the server after the load's (queued) has begun; a plain
"uploading" flag set by a late start would then stay set, and every question would wait for an upload
that is long over. Kept as the highest number started and the highest number over, the order of
arrival does not matter: an upload is on its way only while a start is newer than every end.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Uploads:
    started: int = 0  # the newest upload the browser said has started
    over: int = 0  # every upload up to this one has failed, been cleared or begun its load

    @property
    def on_the_way(self) -> bool:
        return self.started > self.over

    def start(self, number: int) -> None:
        self.started = max(self.started, number)

    def end(self, number: int) -> None:
        """Upload `number` (and every earlier one) is over; 0, a load that says no number (an API
        client, a page without the watch), ends every upload started so far."""
        self.over = max(self.over, number or self.started)
