"""Names a package exports but imports only when first used (PEP 562's module ``__getattr__``).

Importing such a package loads none of the modules behind its names: ``import gui_gym.models``
imports no HTTP client or torch, and the desktop server, which runs inside its sandbox as
``gui_gym.backends.desktop.inside.server``, loads none of the host side that the package
``gui_gym.backends.desktop`` exports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, table: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of `package` for `table` (a public name -> the module
    that defines it): ``__getattr__, __dir__ = lazy_names(__name__, _LAZY)``."""
    exported = sorted(table)

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}; expected one of {exported}")
        return getattr(importlib.import_module(table[name]), name)

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exported))

    return __getattr__, __dir__
