"""Every repository path that the docs, the README, docstrings and comments quote exists, and
the test files follow the naming rule of docs/architecture.md ("tests of a module"). A moved or
renamed file otherwise leaves readers pointed at nothing, and no other test notices."""

from __future__ import annotations

import ast
import functools
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("gui_gym", "agents", "trainers", "benchmarks", "tests", "docs", "scripts", "examples", ".ci")
QUOTED_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./*-]*[\w*])(?![\w./*<{-])(?:::(\w+))?" % "|".join(re.escape(t) for t in TOPS))
"""A path under one of the repository's top folders, optionally followed by ``::test_name``; a glob
(``docs/learning_*.png``) must match a file; a placeholder (``test_<app>.py``) is not matched."""
TEST_FILE_NAME = re.compile(r"(?<![\w/.-])(test_\w+\.py)(?![\w.])(?:::(\w+))?")
AREA_NAMES = {"benchmarks": "bench"}
"""A folder whose test files use a shorter area name."""


def tracked_texts() -> list[Path]:
    """The tracked files a reader reads: Markdown, Python, shell scripts and pyproject.toml."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in listed
            if name.endswith((".md", ".py", ".sh", ".toml")) or name.startswith(("scripts/", ".ci/"))]


@functools.cache
def all_test_files() -> tuple[Path, ...]:
    return tuple(sorted(p for p in (ROOT / "tests").rglob("test_*.py") if "__pycache__" not in p.parts))


def prose(path: Path) -> str:
    """What a reader reads in a file: all of a Markdown or shell file; of a Python file, its
    docstrings and comments (its other strings are data: a test's made-up path is no reference)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return text
    # a string standing as a statement: the docstrings, and those under an attribute or constant
    docstrings = [node.value.value for node in ast.walk(ast.parse(text))
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    comments = [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
                if token.type == tokenize.COMMENT]
    return "\n".join(docstrings + comments)


def missing_references(path: Path, text: str) -> list[str]:
    """The quoted paths (and ``file::test`` names) in one file's text that point at nothing."""
    by_name = {}
    for test_file in all_test_files():
        by_name.setdefault(test_file.name, []).append(test_file)
    missing = []
    for quoted, test_name in QUOTED_PATH.findall(text):
        if "*" in quoted:
            if not any(ROOT.glob(quoted)):
                missing.append(quoted)
            continue
        target = ROOT / quoted.rstrip("./")
        if not target.exists():
            missing.append(quoted)
        elif test_name and f"def {test_name}(" not in target.read_text(encoding="utf-8"):
            missing.append(f"{quoted}::{test_name}")
    # a bare test file's name: in the docs only (code names files that do not exist on purpose)
    for file_name, test_name in TEST_FILE_NAME.findall(text) if path.suffix == ".md" else ():
        found = by_name.get(file_name)
        if not found:
            missing.append(file_name)
        elif test_name and not any(f"def {test_name}(" in f.read_text(encoding="utf-8") for f in found):
            missing.append(f"{file_name}::{test_name}")
    return missing


def test_every_quoted_repository_path_and_test_name_exists():
    here = Path(__file__).resolve()
    dangling = {}
    for path in tracked_texts():
        if path.resolve() == here or not path.is_file():
            continue
        missing = missing_references(path, prose(path))
        if missing:
            dangling[str(path.relative_to(ROOT))] = sorted(set(missing))
    assert not dangling, f"quoted paths that point at nothing: {dangling}"


def test_a_moved_file_is_caught():
    """The check itself: a quote of a path or a test that does not exist is reported."""
    doc = ROOT / "docs" / "example.md"
    assert missing_references(doc, "see `tests/gui_gym/test_env.py`, gui_gym/env.py and `docs/learning_*.png`") == []
    assert missing_references(doc, "see tests/gui_gym/test_no_such_file.py") == ["tests/gui_gym/test_no_such_file.py"]
    assert missing_references(doc, "`test_env.py::test_no_such_rule`") == ["test_env.py::test_no_such_rule"]
    assert missing_references(doc, "`tests/test_no_such_*.py`") == ["tests/test_no_such_*.py"]


def test_test_files_are_named_by_their_area_and_unique():
    """docs/architecture.md: ``tests/<package path>/test_<area>_<module>.py``, the area being one of
    the folders the file sits in below the package's own (``bench`` for ``benchmarks``), and no
    two test files share a name."""
    misnamed, seen, doubled = [], {}, []
    for path in all_test_files():
        folders = path.relative_to(ROOT / "tests").parts[:-1]
        if path.name in seen:
            doubled.append(path.name)
        seen[path.name] = path
        if len(folders) < 2:
            continue  # a package's own folder (tests/gui_gym/, tests/trainers/): the module's name is enough
        areas = {AREA_NAMES.get(folder, folder) for folder in folders}
        if not any(path.name.startswith(f"test_{area}_") for area in areas):
            misnamed.append(str(path.relative_to(ROOT)))
    assert not misnamed, f"test files not named test_<area>_<module>.py: {misnamed}"
    assert not doubled, f"test file names used twice: {doubled}"
