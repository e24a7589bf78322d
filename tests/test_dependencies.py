"""Every third-party package the product imports is pinned in requirements.txt.

A package that arrives only as another's dependency can vanish or change with that package's next
release, so each one the code imports (lazily inside a function too) is declared on its own.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "spiqa_demo", ROOT / "retrieval", ROOT / "app.py"]
FIRST_PARTY = {"spiqa_demo", "retrieval"}
# Imported only where the platform itself installs it, never from requirements.txt.
PLATFORM_PROVIDED = {"spaces": "Hugging Face ZeroGPU Spaces preinstall it; models/zerogpu.py and ui/app/preload.py import it only there"}


def _normalize(dist: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def _python_files() -> list[Path]:
    return [f for source in SOURCES for f in ([source] if source.is_file() else sorted(source.rglob("*.py")))]


def imported_packages() -> dict[str, set[str]]:
    """Top-level third-party import names -> the files that import them."""
    found: dict[str, set[str]] = {}
    for file in _python_files():
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                    found.setdefault(top, set()).add(str(file.relative_to(ROOT)))
    return found


def requirements() -> dict[str, str]:
    """requirements.txt: normalized distribution name -> its line."""
    declared = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
        if match and not line.startswith("-"):
            declared[_normalize(match.group())] = line
    return declared


def test_every_imported_package_is_declared() -> None:
    distributions = packages_distributions()
    declared = requirements()
    undeclared = {
        module: sorted(files)
        for module, files in imported_packages().items()
        if module not in PLATFORM_PROVIDED
        and not {_normalize(d) for d in distributions.get(module, [])} & declared.keys()
    }
    assert not undeclared, f"imported but not in requirements.txt (or not installed): {undeclared}"


def test_every_requirement_is_pinned() -> None:
    loose = [line for line in requirements().values() if "==" not in line]
    assert not loose, f"requirements.txt pins every package (the set is verified together): {loose}"


def test_the_scan_sees_imports_inside_functions() -> None:
    # openai and torch are imported only inside functions (they are slow to import).
    assert {"openai", "torch", "numpy", "pydantic"} <= imported_packages().keys()
