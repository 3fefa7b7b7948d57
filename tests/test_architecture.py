"""The layering rules of docs/architecture.md, checked on the import graph between files: a
module imports only from its own floor or the floors below it, unless the import carries
``# upward: <reason>``; no two files reach each other through imports (no circle); and at most
one marked upward arrow in the whole house.

An arrow is every ``import`` and ``from ... import`` anywhere in a file (the lazy ones inside
functions and under ``TYPE_CHECKING`` included), and every string constant that names one of
our modules (``"gui_gym.envs.demo:make_env"`` in the id registry, the agent loader's
``BUILTIN_AGENTS``, ``gui-bench``'s ``COMMANDS``, the lazy ``__getattr__`` tables): a
registry's string is an import that runs later. The floors are read from the table in
docs/architecture.md, so the doc and the check cannot drift apart."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = {"gui_gym": "gui_gym", "agents": "gui_gym.agents", "trainers": "gui_gym.trainers",
            "benchmarks": "gui_gym.benchmarks"}
"""The repository's folders and the names they install as (setup.py)."""
MOST_MARKED_UPWARD = 1
"""Architecture issue 41's bar: at most one upward arrow, and that one marked."""
MODULE_STRING = re.compile(r"gui_gym(?:\.\w+)+(?::\w+(?:\.\w+)*)?")
UPWARD_MARK = re.compile(r"#.*\bupward:\s*\S")


@dataclass(frozen=True)
class Arrow:
    """One file using another: ``source`` imports (or names) ``target``, at ``line`` of its file."""
    source: str
    target: str
    line: int
    marked: bool

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line})"


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of ours by its installed name (``gui_gym.agents.loader`` from agents/loader.py);
    a package by its own name, for its ``__init__.py``."""
    found = {}
    for folder, package in PACKAGES.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            found[".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted name lands in: itself, else its longest prefix that is a module of ours
    (``gui_gym.errors.ActionError`` is ``gui_gym.errors``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
              modules: dict[str, Path]) -> list[str]:
    """The modules of ours one import statement loads (a ``from p import m`` of a submodule ``m``
    is an arrow to ``p.m``, not to ``p``)."""
    if isinstance(node, ast.Import):
        return [found for alias in node.names if (found := _resolve(alias.name, modules))]
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    targets = []
    for alias in node.names:
        found = f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else _resolve(base, modules)
        if found:
            targets.append(found)
    return targets


def arrows_of(module: str, path: Path, modules: dict[str, Path]) -> list[Arrow]:
    """The arrows out of one file, to other files of ours."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    is_package = path.name == "__init__.py"

    def marked(node: ast.AST) -> bool:
        return any(UPWARD_MARK.search(lines[number - 1]) for number in range(node.lineno, node.end_lineno + 1))

    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            targets = _imported(node, module, is_package, modules)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_STRING.fullmatch(node.value):
            targets = [found_ for found_ in [_resolve(node.value.partition(":")[0], modules)] if found_]
        else:
            continue
        found += [Arrow(module, target, node.lineno, marked(node)) for target in targets if target != module]
    return found


def import_graph(root: Path = ROOT) -> list[Arrow]:
    modules = module_files(root)
    return [arrow for module, path in modules.items() for arrow in arrows_of(module, path, modules)]


def read_floors(doc: Path = DOC) -> dict[str, int]:
    """The floors table of docs/architecture.md: the ```floors block, one ``<floor> <module> ...``
    line per floor; a module's floor is that of its longest listed prefix."""
    block = re.search(r"```floors\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    if not block:
        raise ValueError(f"{doc} has no ```floors block")
    floors = {}
    for line in block.group(1).splitlines():
        number, *names = line.split()
        floors.update((name, int(number)) for name in names)
    return floors


def floor_of(module: str, floors: dict[str, int]) -> int:
    name = module
    while name:
        if name in floors:
            return floors[name]
        name = name.rpartition(".")[0]
    raise LookupError(f"{module} is on no floor of docs/architecture.md")


def circles(arrows: list[Arrow]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan's algorithm, iterative)."""
    graph: dict[str, set[str]] = {}
    for arrow in arrows:
        graph.setdefault(arrow.source, set()).add(arrow.target)
        graph.setdefault(arrow.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def upward(arrows: list[Arrow], floors: dict[str, int]) -> list[Arrow]:
    return [arrow for arrow in arrows if floor_of(arrow.target, floors) > floor_of(arrow.source, floors)]


ARROWS = import_graph()
FLOORS = read_floors()


def test_the_graph_holds_lazy_imports_and_registry_strings():
    pairs = {(arrow.source, arrow.target) for arrow in ARROWS}
    # a registry's string: the id table names each env factory
    assert ("gui_gym.registration", "gui_gym.envs.demo") in pairs
    assert ("gui_gym.agents.loader", "gui_gym.agents.policies.vlm") in pairs
    assert ("gui_gym.benchmarks.cli", "gui_gym.benchmarks.commands.run") in pairs
    assert len(module_files()) > 250 and len(ARROWS) > 1000


def test_every_module_has_a_floor():
    for module in module_files():
        floor_of(module, FLOORS)


def test_no_circle_between_files():
    found = circles(ARROWS)
    assert not found, "files that import each other (move what both need to a module below them):\n" + "\n".join(
        " <-> ".join(component) for component in found)


def test_no_unmarked_upward_arrow():
    found = [arrow for arrow in upward(ARROWS, FLOORS) if not arrow.marked]
    assert not found, ("imports that reach a higher floor (docs/architecture.md); move the code down, "
                       "or mark the line `# upward: <reason>`:\n" + "\n".join(map(str, found)))


def test_at_most_one_marked_upward_arrow():
    marked = upward(ARROWS, FLOORS)
    assert len(marked) <= MOST_MARKED_UPWARD, "\n".join(map(str, marked))


def test_a_mark_is_only_where_an_arrow_runs_up():
    stray = [arrow for arrow in ARROWS if arrow.marked and arrow not in upward(ARROWS, FLOORS)]
    assert not stray, "`# upward:` on an arrow that does not run up:\n" + "\n".join(map(str, stray))


# The checker itself, on a small house of its own: it must catch what it claims to catch.

def _house(tmp_path: Path, files: dict[str, str]) -> list[Arrow]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    for folder in PACKAGES:
        (tmp_path / folder).mkdir(exist_ok=True)
    return import_graph(tmp_path)


def test_the_checker_sees_a_lazy_circle_and_a_registry_string(tmp_path):
    arrows = _house(tmp_path, {
        "gui_gym/__init__.py": "",
        "gui_gym/env.py": "def f():\n    from gui_gym import snapshots\n",
        "gui_gym/snapshots.py": "from .env import f\n",
        "gui_gym/registration.py": 'IDS = {"GUI/X-v0": "gui_gym.env:f"}\n',
    })
    assert circles(arrows) == [["gui_gym.env", "gui_gym.snapshots"]]
    assert any(arrow.source == "gui_gym.registration" and arrow.target == "gui_gym.env" for arrow in arrows)


def test_the_checker_sees_an_upward_arrow_and_its_mark(tmp_path):
    arrows = _house(tmp_path, {
        "gui_gym/__init__.py": "",
        "gui_gym/errors.py": "import gui_gym.env  # upward: a reason\n",
        "gui_gym/actions.py": "from gui_gym.env import (\n    GUIEnv,\n)\n",
        "gui_gym/env.py": "",
    })
    floors = {"gui_gym": 8, "gui_gym.errors": 0, "gui_gym.actions": 0, "gui_gym.env": 5}
    found = {(arrow.source, arrow.marked) for arrow in upward(arrows, floors)}
    assert found == {("gui_gym.errors", True), ("gui_gym.actions", False)}


def test_a_module_on_no_floor_is_an_error():
    with pytest.raises(LookupError, match="gui_gym.nowhere is on no floor"):
        floor_of("gui_gym.nowhere", {"gui_gym.env": 5})


# The desktop folder's two programs (docs/architecture.md, "The desktop backend").

DESKTOP = "gui_gym.backends.desktop"
INSIDE = f"{DESKTOP}.inside"


def read_crossings(doc: Path = DOC) -> dict[str, set[tuple[str, str]] | set[str]]:
    """The ```desktop-crossings block: ``host-to-inside <host module> <inside module>`` (one
    arrow) and ``inside-to-host <module> ...`` (what the inside may import of the host folder)."""
    block = re.search(r"```desktop-crossings\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    if not block:
        raise ValueError(f"{doc} has no ```desktop-crossings block")
    lines = dict(line.split(maxsplit=1) for line in block.group(1).splitlines())
    source, target = lines["host-to-inside"].split()
    return {"host-to-inside": {(source, target)}, "inside-to-host": set(lines["inside-to-host"].split())}


def _inside(module: str) -> bool:
    return module == INSIDE or module.startswith(INSIDE + ".")


def test_the_desktop_host_and_inside_meet_only_at_the_named_crossings():
    crossings = read_crossings()
    into = [arrow for arrow in ARROWS if _inside(arrow.target) and not _inside(arrow.source)
            and (arrow.source, arrow.target) not in crossings["host-to-inside"]]
    out = [arrow for arrow in ARROWS if _inside(arrow.source) and arrow.target.startswith(DESKTOP + ".")
           and not _inside(arrow.target) and arrow.target not in crossings["inside-to-host"]]
    assert not into, "the host reaches into the desktop's inside:\n" + "\n".join(map(str, into))
    assert not out, "the desktop's inside imports the host side:\n" + "\n".join(map(str, out))
    used = {(arrow.source, arrow.target) for arrow in ARROWS}
    assert crossings["host-to-inside"] <= used, "a named crossing that no longer exists"


def test_the_desktop_server_loads_nothing_of_the_host_side():
    """The imports as they run, package ``__init__`` files included: the server's process,
    inside the sandbox, loads of the desktop folder only the inside and the named crossings."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {INSIDE}.server; print(*sorted(sys.modules))"],
        capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
    allowed = read_crossings()["inside-to-host"] | {DESKTOP}
    host = [m for m in loaded if m.startswith(DESKTOP + ".") and not _inside(m) and m not in allowed]
    assert not host, f"the desktop server loads host modules: {host}"
    assert f"{INSIDE}.session" in loaded
