"""The settings the app was built with: read once by its entry point and handed to `build_demo`.

Gradio calls the app's handlers long after the app is built, in whatever thread serves a request;
they read the settings here, never the environment, so an app built with given settings (a test,
an embedding application) runs with exactly those.
"""

from __future__ import annotations

from spiqa_demo.settings import Settings

_installed: list[Settings] = []


def install(settings: Settings) -> None:
    """The settings every handler of this process's app reads from now on."""
    _installed[:] = [settings]


def app_settings() -> Settings:
    """The settings `build_demo` was given; a `RuntimeError` before the app is built."""
    if not _installed:
        raise RuntimeError("the app's settings are not installed: build the app with build_demo(settings)")
    return _installed[0]
