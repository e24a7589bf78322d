"""The exceptions the library raises for problems a person can act on.

`PaperError` is the base of them all: the CLI prints its message as a single line and exits 2, the
app shows it in the UI. Its two kinds say what to do next: an `InputError` is permanent (fix the
file, question or configuration), a `BackendError` comes from a model or its server and says
whether retrying can help. Any other exception escaping the library is a bug.
"""


class PaperError(Exception):
    """A user-facing problem (input, configuration or model backend); `str()` is the message."""


class InputError(PaperError):
    """Bad input or configuration: retrying the same thing fails the same way."""


class BackendError(PaperError):
    """A model or its server failed; `retryable` says whether the same call may succeed later.

    Timeouts, rate limits, 5xx replies and dropped connections are retryable; a rejected key, a
    missing model or a model that cannot be loaded are not.
    """

    def __init__(self, message: str, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable
