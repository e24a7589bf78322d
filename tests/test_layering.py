"""The pipeline runs one way: the installed packages' imports form no cycle and keep their layers.

Read from the source (every import, lazy ones inside functions too), so a shortcut taken for
convenience fails here instead of surfacing later as an import cycle or a UI the library needs.
Units are `retrieval` and each top-level module or subpackage of `spiqa_demo`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The small core every layer may use: the typed boundary, paper-text conventions, errors, settings,
# files written whole.
CORE = {"spiqa_demo.types", "spiqa_demo.paper_text", "spiqa_demo.errors", "spiqa_demo.settings", "spiqa_demo.questions",
        "spiqa_demo.files"}
OUTSIDE_THE_PACKAGES = ("evalsuite", "benchmarks", "tests")
# The product's measurement (SPIQA and M3SciQA data, harness, metrics, judges, benchmarks) and the entry
# points above both; every other unit is the product a reader runs.
MEASUREMENT = "spiqa_demo.evaluation"
ENTRY_POINTS = {"spiqa_demo.ui", "spiqa_demo.cli", "spiqa_demo.__main__"}
# Words that name a benchmark or its scoring; the product's code defines and imports none of them.
BENCHMARK_WORDS = ("m3sciqa", "l3score", "l3judge", "bertscore", "benchmark", "score_records", "judge_records")


def _unit(module: str) -> str:
    parts = module.split(".")
    return "retrieval" if parts[0] == "retrieval" else ".".join(parts[:2])


def _files() -> list[tuple[str, Path]]:
    """(module name, file) for every file of the installed packages."""
    files = [*ROOT.glob("spiqa_demo/**/*.py"), *ROOT.glob("retrieval/**/*.py")]
    return [(".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"), f) for f in files]


def _product_units() -> set[str]:
    return {_unit(module) for module, _ in _files()} - ENTRY_POINTS - {MEASUREMENT}


def _imports() -> dict[str, set[str]]:
    """Unit -> the modules its files import (absolute imports; the packages use no relative ones)."""
    found: dict[str, set[str]] = {}
    for module, file in _files():
        names = found.setdefault(_unit(module), set())
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                assert node.level == 0, f"{file}: relative import"
                names.add(node.module)
    return found


def _graph() -> dict[str, set[str]]:
    """Unit -> the other first-party units it imports."""
    return {
        unit: {_unit(name) for name in names if name.split(".")[0] in ("spiqa_demo", "retrieval")} - {unit}
        for unit, names in _imports().items()
    }


def test_the_units_import_each_other_without_a_cycle() -> None:
    graph = _graph()

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph.get(todo.pop(), set()) - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    cycles = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if a in reachable(b)})
    assert cycles == []


def test_retrieval_and_the_core_use_only_the_core() -> None:
    graph = _graph()
    assert graph["retrieval"] <= CORE
    for unit in CORE:
        assert graph.get(unit, set()) <= CORE, unit


def test_only_the_app_entry_points_use_the_ui() -> None:
    users = {unit for unit, imported in _graph().items() if "spiqa_demo.ui" in imported}
    assert users == set()  # app.py (outside the packages) is the only importer


def test_the_packages_never_import_evaluation_suite_benchmark_or_test_code() -> None:
    offending = {unit: sorted(n for n in names if n.split(".")[0] in OUTSIDE_THE_PACKAGES) for unit, names in _imports().items()}
    assert {unit: names for unit, names in offending.items() if names} == {}


def test_the_product_never_imports_its_measurement() -> None:
    graph = _graph()
    assert {unit for unit in _product_units() if MEASUREMENT in graph.get(unit, set())} == set()


def test_the_product_names_no_benchmark_or_its_scoring() -> None:
    """Definitions and imports only: a docstring may say where a format comes from (M3SciQA's JSON).

    The settings are the one validated configuration of every entry point, the measurement's included.
    """
    named: dict[str, set[str]] = {}
    for module, file in _files():
        if _unit(module) not in _product_units() - {"spiqa_demo.settings"}:
            continue
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names = [alias.asname or alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            elif isinstance(node, ast.Name):
                names = [node.id]
            else:
                continue
            bad = {n for n in names if any(word in n.lower() for word in BENCHMARK_WORDS)}
            if bad:
                named.setdefault(module, set()).update(bad)
    assert named == {}


def test_only_the_entry_points_read_the_environments_settings() -> None:
    """`get_settings()` reads the environment: app.py and the CLI's commands call it and hand each
    library function the settings group it uses (the app's handlers read what `build_demo` was given)."""
    readers = {
        module
        for module, file in _files()
        if "get_settings" in {n.id for n in ast.walk(ast.parse(file.read_text(encoding="utf-8"))) if isinstance(n, ast.Name)}
    }
    assert {m for m in readers if not m.startswith("spiqa_demo.cli")} == set()


# Inside the app, one level deeper: its folders by role, each importing only those below it.
UI = "spiqa_demo.ui"
UI_SERVING = f"{UI}.serving"
UI_STATE = f"{UI}.state"
UI_TABS = f"{UI}.tabs"


def _module_imports() -> dict[str, set[str]]:
    """Module -> the first-party modules it imports, every import counted (inside functions and under
    `TYPE_CHECKING` too): `from package import name` is the module `package.name` where there is one."""
    modules = {module for module, _ in _files()}
    found: dict[str, set[str]] = {}
    for module, file in _files():
        names = found.setdefault(module, set())
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    names.add(submodule if submodule in modules else node.module)
        found[module] = (names & modules) - {module}
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, set())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def test_no_module_of_the_packages_is_in_an_import_cycle() -> None:
    assert _cycles(_module_imports()) == []


def _ui_imports(prefix: str) -> dict[str, set[str]]:
    """Each ui module under `prefix` -> the ui modules it imports."""
    return {module: {n for n in names if n.startswith(f"{UI}.")}
            for module, names in _module_imports().items() if module.startswith(f"{prefix}.")}


def test_the_apps_serving_machinery_imports_nothing_above_it() -> None:
    above = {module: sorted(n for n in names if not n.startswith(f"{UI_SERVING}.") and n != UI_SERVING)
             for module, names in _ui_imports(UI_SERVING).items()}
    assert {module: names for module, names in above.items() if names} == {}


def test_the_apps_per_visitor_state_imports_only_the_serving_machinery() -> None:
    above = {module: sorted(n for n in names if not n.startswith((f"{UI_SERVING}.", f"{UI_STATE}.")))
             for module, names in _ui_imports(UI_STATE).items()}
    assert {module: names for module, names in above.items() if names} == {}


def test_no_tab_imports_another_tab() -> None:
    def tab(module: str) -> str:
        return ".".join(module.split(".")[:4])

    crossing = {module: sorted(n for n in names if n.startswith(f"{UI_TABS}.") and tab(n) != tab(module))
                for module, names in _ui_imports(UI_TABS).items()}
    assert {module: names for module, names in crossing.items() if names} == {}


def test_nothing_below_the_app_imports_its_composition_root() -> None:
    """`app` builds the Blocks from the folders below it; they never reach back up to it."""
    users = {module for module, names in _module_imports().items()
             if not module.startswith(f"{UI}.app") and any(n.startswith(f"{UI}.app.") for n in names)}
    assert users == set()
