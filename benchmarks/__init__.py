"""Scripts that print quality and speed figures (never asserted); run each from the repository root
as a module, e.g. `python -m benchmarks.extraction`, so `evalsuite` and the packages import normally."""
