"""OSWorld's own metric code (desktop-env 1.0.2) as a test-only reference, and a tally of
how our metrics compare with it.

`reference_dir` installs desktop-env with ``pip install --no-deps --target`` into
``~/.cache/gui-gym/osworld-reference/<key>/`` (``$GUI_GYM_REFERENCE_CACHE`` overrides the
folder above ``<key>``) once per machine, together with the libraries its metric modules
import, pinned: the key is a hash of that pinned list, so a folder never goes stale, and a
fresh clone of the project reuses it (the install takes ~150 s on a quiet machine, several
minutes on a loaded one). A lock keeps parallel test processes from installing twice; a
stamp names what was installed. ``python -m tests.osworld_reference`` installs it ahead of
the tests (`scripts/test` does), so no test waits for it under its own time limit. `Reference` then loads one module of
``desktop_env/evaluators/metrics/`` at a time from that folder, without the package's
``__init__`` (which imports every provider and agent), with the few libraries no compared
metric calls replaced by stubs that raise when used. desktop-env is never a dependency of
gui-gym; nothing here is imported by the project.

`Parity` runs our function and OSWorld's on the same generated inputs and records, per
metric, the cases, the agreements and the documented deliberate differences; the conftest
prints the table at the end of the session.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import math
import os
import subprocess
import sys
import types
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.machine_cache import filled_once

CACHE_ENV_VAR = "GUI_GYM_REFERENCE_CACHE"
DESKTOP_ENV = "desktop-env==1.0.2"
PACKAGES = (
    DESKTOP_ENV,
    # table.py, getters: pandas as desktop-env pins it (pandas<2.3)
    "pandas==2.2.3", "pytz==2026.6",
    # utils.py
    "formulas==1.3.4", "schedula==1.6.15", "numpy-financial==1.0.0", "xmltodict==1.0.4",
    "tldextract==5.4.0", "requests-file==3.0.1",
    # gimp.py, vlc.py, docs.py: structural similarity, colour distance, perceptual hashes
    "scikit-image==0.26.0", "imageio==2.38.2", "tifffile==2026.3.3", "lazy-loader==0.6",
    "ImageHash==4.3.2", "PyWavelets==1.9.0",
    # vlc.py: compare_audios, compare_videos
    "librosa==0.11.0", "numba==0.68.1", "llvmlite==0.50.0", "audioread==3.1.0", "scikit-learn==1.9.1",
    "joblib==1.6.0", "threadpoolctl==3.8.0", "decorator==5.3.1", "pooch==1.9.0", "msgpack==1.2.4",
    "platformdirs==4.14.9", "fastdtw==0.3.4", "opencv-python-headless==5.0.0.93",
    # chrome.py, pdf.py, vscode.py: PDF text and images
    "pymupdf==2.1", "PyPDF2==3.0.1",
)
"""What the reference folder holds (the rest of desktop-env's imports are in gui-gym's
``dev`` extra: openpyxl, python-docx, python-pptx, odfpy, lxml, cssselect, rapidfuzz, bs4,
mutagen, pypdf, PyYAML, numpy, scipy, Pillow, soundfile, soxr)."""
STUBBED = ("easyocr", "acoustid", "borb", "borb.pdf", "pdfplumber")
"""Imported at the top of metric modules, used by no metric compared here: easyocr
(compare_image_text, which needs downloaded OCR models), acoustid, borb (imported, unused),
pdfplumber (is_gold_text_included_in_pdf, which no task uses)."""
KEY = hashlib.sha256("\n".join(PACKAGES).encode()).hexdigest()[:12]


def reference_dir() -> Path:
    """The installed reference folder (installed on first use; later calls are instant)."""
    root = Path(os.environ.get(CACHE_ENV_VAR) or Path.home() / ".cache" / "gui-gym" / "osworld-reference")

    def install(folder: Path) -> None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--target", str(folder), *PACKAGES], check=True)

    return filled_once(root, KEY, ".installed", "\n".join(PACKAGES) + "\n", install)


class _Stub(types.ModuleType):
    """A module whose every attribute is a callable that raises: importing works, using does not."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def unavailable(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"{self.__name__}.{name} is a stub in the OSWorld reference")
        return unavailable


class Reference:
    """OSWorld's metric modules, importable while this context is open.

    >>> with Reference() as ref:                      # doctest: +SKIP
    ...     ref.metrics("general").exact_match("a", {"expected": "a"})
    1.0
    """

    PACKAGES = ("desktop_env", "desktop_env.evaluators", "desktop_env.evaluators.metrics",
                "desktop_env.evaluators.getters")

    def __init__(self) -> None:
        self.folder = reference_dir()
        self._added: list[str] = []

    def __enter__(self) -> Reference:
        sys.path.insert(0, str(self.folder))
        self._before = set(sys.modules)
        for name in self.PACKAGES:  # namespace stand-ins: the real __init__ files are never run
            package = types.ModuleType(name)
            package.__path__ = [str(self.folder.joinpath(*name.split(".")))]
            sys.modules[name] = package
        for name in STUBBED:
            sys.modules.setdefault(name, _Stub(name))
        import tldextract

        # the bundled public-suffix snapshot, never a download (the default extractor fetches it)
        tldextract.extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
        return self

    def metrics(self, module: str) -> types.ModuleType:
        return importlib.import_module(f"desktop_env.evaluators.metrics.{module}")

    def getters(self, module: str) -> types.ModuleType:
        return importlib.import_module(f"desktop_env.evaluators.getters.{module}")

    def __exit__(self, *exc: Any) -> None:
        for name in set(sys.modules) - self._before:
            if name.startswith("desktop_env") or name in STUBBED:
                del sys.modules[name]
        for name in (*self.PACKAGES, *STUBBED):
            sys.modules.pop(name, None)
        with contextlib.suppress(ValueError):
            sys.path.remove(str(self.folder))


@dataclass
class Tally:
    cases: int = 0
    agree: int = 0
    documented: int = 0


@dataclass
class Parity:
    """Runs our metric and OSWorld's on each case; a case is ``(label, args, kwargs)``.

    A score is a float, or ``"error"`` when the function raised: OSWorld's evaluation then
    fails and gui-gym scores 0 with the reason, so an error agrees with an error or a 0.
    `documented` maps a case label to the row of ``docs/osworld.md``'s deliberate differences
    that explains it: such a case may differ (it is counted when it does); every other case
    must agree.
    """

    metric: str
    ours: Callable[..., Any]
    theirs: Callable[..., Any]
    documented: dict[str, str] = field(default_factory=dict)
    tolerance: float = 1e-6

    def check(self, cases: list[tuple[str, tuple, dict]]) -> list[str]:
        """Run every case; return the disagreements that are not documented (empty: all good)."""
        tally = TALLIES[self.metric]
        failures = []
        for label, args, kwargs in cases:
            ours, theirs = _score(self.ours, args, kwargs), _score(self.theirs, args, kwargs)
            tally.cases += 1
            if _same(ours, theirs, self.tolerance):
                tally.agree += 1
            elif label in self.documented:
                tally.documented += 1
            else:
                failures.append(f"{self.metric}[{label}]: ours {ours!r}, OSWorld {theirs!r}")
        return failures


TALLIES: dict[str, Tally] = defaultdict(Tally)
"""Per metric: cases run in this session (printed by the conftest)."""


def _score(func: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    try:
        value = func(*_fresh(args), **_fresh(kwargs))
    except Exception:  # noqa: BLE001 - a crash is a result here
        return "error"
    if value is None:
        return "error"
    return float(value)


def _fresh(value: Any) -> Any:
    """A deep copy of list/dict arguments: some OSWorld metrics change their rules in place."""
    import copy

    return copy.deepcopy(value)


def _same(a: Any, b: Any, tolerance: float) -> bool:
    if a == "error" or b == "error":
        return {a, b} <= {"error", 0.0}
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tolerance


def format_tallies() -> Iterator[str]:
    if not TALLIES:
        return
    width = max(len(name) for name in TALLIES)
    yield f"{'metric'.ljust(width)}  cases  agree  documented"
    for name in sorted(TALLIES):
        t = TALLIES[name]
        yield f"{name.ljust(width)}  {t.cases:5d}  {t.agree:5d}  {t.documented:10d}"
    total = Tally(sum(t.cases for t in TALLIES.values()), sum(t.agree for t in TALLIES.values()),
                  sum(t.documented for t in TALLIES.values()))
    yield f"{'TOTAL'.ljust(width)}  {total.cases:5d}  {total.agree:5d}  {total.documented:10d}"


if __name__ == "__main__":
    print(reference_dir())
