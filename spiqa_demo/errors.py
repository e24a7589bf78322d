"""The one exception type the library raises for bad user input.

The CLI prints its message as a single line and exits non-zero; the app shows it in the UI. Any
other exception escaping the library is a bug.
"""


class PaperError(Exception):
    """A user-facing problem with an input (file, question, configuration); `str()` is the message."""
