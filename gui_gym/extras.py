"""The optional extras of the distribution, and the check each door makes before it needs one.

``pip install gui-gym`` brings what the browser envs need (Playwright, Gymnasium, numpy,
Pillow, httpx). The OSWorld desktop, Android, training, Ray and verl need an extra each; an
entry point that needs one calls `require_extra` first, so a core install fails at once with
one line naming the extra (``pip install 'gui-gym[desktop]'``) instead of deep inside a child
process after a start-up timeout. The check only looks modules up (`importlib.util.find_spec`),
it imports nothing: it costs microseconds and cannot start a display or a cluster.
"""

from __future__ import annotations

import importlib.util

from gui_gym.errors import MissingDependencyError

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "desktop": ("mss", "pyautogui", "Xlib", "openpyxl", "docx", "pptx", "odf", "pypdf", "rapidfuzz", "lxml",
                "cssselect", "bs4", "mutagen", "soundfile", "soxr", "tldextract", "yaml", "pandas", "xmltodict",
                "formulas"),
    "android": ("adbutils",),
    "train": ("torch", "transformers", "peft", "matplotlib", "tensorboard"),
    "distributed": ("ray", "psutil"),
    "verl": ("ray", "omegaconf", "tensordict", "codetiming", "orjson", "cloudpickle", "pyvers", "hydra", "datasets",
             "cachetools", "uvicorn", "fastapi", "torchdata", "aiohttp", "zmq", "msgspec", "prometheus_client"),
    "miniwob": ("miniwob",),
    "cube": ("cube",),
}
"""Extra -> the top-level modules its distributions install (pyproject.toml's
``optional-dependencies``; a test keeps the two in step)."""

EXTRA_NOTES: dict[str, str] = {
    "cube": " on Python >= 3.12 (cube-standard needs it; docs/cube.md)",
    "verl": " and pip install --no-deps 'verl==0.9.1' (scripts/setup.sh does both)",
}
"""What an extra needs beyond ``pip install 'gui-gym[extra]'``: verl itself is installed without
its own requirements, which pin an older transformers and pull a CUDA torch."""

OUTSIDE_THE_EXTRA: dict[str, tuple[str, ...]] = {"verl": ("verl",)}
"""Modules an extra's doors need that the extra does not install (see `EXTRA_NOTES`)."""


def missing_modules(extra: str) -> tuple[str, ...]:
    """The modules of `extra` that this interpreter cannot find, in the table's order."""
    if extra not in EXTRA_MODULES:
        raise KeyError(f"no extra named {extra!r}; the extras are {', '.join(EXTRA_MODULES)}")
    wanted = EXTRA_MODULES[extra] + OUTSIDE_THE_EXTRA.get(extra, ())
    return tuple(name for name in dict.fromkeys(wanted) if importlib.util.find_spec(name) is None)


def require_extra(extra: str, what: str) -> None:
    """Raise `MissingDependencyError` unless every module of `extra` can be imported; `what`
    names the thing that needs it (``"GUI/OSWorld-v0"``, ``"gui-train"``) at the head of the
    one-line message."""
    missing = missing_modules(extra)
    if missing:
        raise MissingDependencyError(
            f"{what} needs the '{extra}' extra, which this install lacks (no module {', '.join(missing)}): "
            f"pip install 'gui-gym[{extra}]'{EXTRA_NOTES.get(extra, '')}", extra=extra, missing=missing)
