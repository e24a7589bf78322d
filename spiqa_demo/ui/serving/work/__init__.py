"""Waits that hold no thread, and the bounded pools, fair between sessions, where models, paper loads, cited loads, page images and result files run."""
