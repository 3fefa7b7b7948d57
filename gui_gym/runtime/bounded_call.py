"""Run one function on untrusted content in a fresh interpreter with bounded memory and time.

Parsing a file someone else made (an agent's spreadsheet, its text file) can take any amount
of memory and time: a 50 KiB workbook can hold a sheet of 100k rows. Done in the caller's own
process, that grows the host's memory without limit. `call_bounded` runs ``module:function``
in a child interpreter that first limits itself (address space, CPU seconds) and is killed at
a wall-clock deadline; past a bound the caller gets `LimitExceededError`, and the host process
only ever holds the arguments and the JSON answer.

The arguments go to the child pickled (the caller made them); the answer comes back as JSON
(the child handled hostile input, so the caller never unpickles what it sends), bounded in
bytes, values and depth before it is written, so reading it back is cheap too. What the
function prints goes to the child's stderr, kept for the error message.

    python -m gui_gym.runtime.bounded_call MEMORY_BYTES CPU_SECONDS   (arguments on stdin)
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from gui_gym.errors import GUIGymError, LimitExceededError

MAX_ANSWER_BYTES = 16 << 20
"""The largest JSON answer the caller reads back."""
MAX_ANSWER_VALUES = 500_000
"""The most values (numbers, strings, list items, keys) of an answer: reading JSON back costs
the caller up to ~25 times its bytes (16 MiB of ``[],`` are +360 MiB of lists), so the child
refuses an answer past this many (~35 MiB to read back), whatever its bytes."""
MAX_ANSWER_DEPTH = 100
"""The deepest nesting of an answer (JSON past Python's recursion limit cannot be written)."""
SINGLE_THREADED = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
"""Numerical libraries reserve memory per thread: one thread keeps the address-space bound
about the data."""


@dataclass(frozen=True)
class Bounds:
    """What one call may use."""

    memory_bytes: int = 2 << 30
    """Address space of the child (the interpreter and its imports take ~350 MiB of it with pandas)."""
    cpu_s: int = 120
    """CPU seconds of the child."""
    wall_s: float = 300.0
    """Wall-clock seconds before the child is killed (a loaded machine runs it slower than its CPU time)."""


class CallFailed(GUIGymError):
    """The function raised in the child; the message names the exception (``Type: message``)."""


def call_bounded(target: str, args: tuple[Any, ...], bounds: Bounds) -> Any:
    """``module:function(*args)`` in a bounded child interpreter; its JSON-able result.

    Raises `LimitExceededError` past a bound (memory, CPU, wall clock, answer size), the
    function's own `GUIGymError` or `NotImplementedError` as it was raised (typed errors keep
    their meaning: a missing dependency is not the input's fault), and `CallFailed` for any
    other exception it raised."""
    command = [sys.executable, "-m", __name__, str(bounds.memory_bytes), str(bounds.cpu_s)]
    with tempfile.TemporaryFile() as answer, tempfile.TemporaryFile() as log:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=answer, stderr=log,
                                 env={**os.environ, **SINGLE_THREADED})
        try:
            child.communicate(pickle.dumps((target, args)), timeout=bounds.wall_s)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            raise LimitExceededError(f"{target} ran past its {bounds.wall_s:g} s wall-clock bound") from None
        finally:
            if child.poll() is None:  # interrupted: never leave it running
                child.kill()
                child.wait()
        size = answer.seek(0, os.SEEK_END)
        if size > MAX_ANSWER_BYTES:
            raise LimitExceededError(f"{target} answered {size} bytes, over the {MAX_ANSWER_BYTES} bytes read back")
        answer.seek(0)
        text = answer.read().decode(errors="replace")
        tail = _tail(log)
    if child.returncode != 0 or not text:
        raise LimitExceededError(_death(target, child.returncode, bounds, tail))
    return _result(target, json.loads(text))


def _death(target: str, code: int, bounds: Bounds, tail: str) -> str:
    """What a child that gave no answer ran into."""
    if code == -signal.SIGXCPU or code == -signal.SIGKILL:
        return f"{target} ran past its {bounds.cpu_s} CPU-second bound"
    what = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
    return (f"{target} died ({what}) under its {bounds.memory_bytes >> 20} MiB memory bound, most likely "
            f"out of memory: {tail[-300:] or '(no output)'}")


def _result(target: str, answer: dict[str, Any]) -> Any:
    if "result" in answer:
        return answer["result"]
    kind, message = answer["error"], answer["message"]
    if kind == "MemoryError":
        raise LimitExceededError(f"{target} ran out of its memory bound (MemoryError)")
    error = _typed(kind)
    if error is not None:
        raise error(message)
    raise CallFailed(f"{kind}: {message}")


def _typed(kind: str) -> type[Exception] | None:
    """The class of a typed error (ours, or NotImplementedError) by its qualified name."""
    if kind == "NotImplementedError":
        return NotImplementedError
    module, _, name = kind.rpartition(".")
    if module == "gui_gym.errors":
        cls = getattr(sys.modules[module], name, None)
        if isinstance(cls, type) and issubclass(cls, GUIGymError):
            return cls
    return None


def _tail(log, chars: int = 2000) -> str:
    size = log.seek(0, os.SEEK_END)
    log.seek(max(0, size - chars))
    return log.read().decode(errors="replace").strip()


def _plain(value: Any) -> Any:
    """JSON for numpy scalars and arrays (metrics return them)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def check_answer(value: Any) -> None:
    """Raise `LimitExceededError` unless `value` has at most `MAX_ANSWER_VALUES` values
    (a key counts as one) nested at most `MAX_ANSWER_DEPTH` deep; a value that holds itself
    runs past the count."""
    stack, count = [(value, 0)], 1
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children, count = item.values(), count + 2 * len(item)
        elif isinstance(item, (list, tuple)):
            children, count = item, count + len(item)
        else:
            count += int(getattr(item, "size", 0)) if hasattr(item, "tolist") else 0  # numpy, written by `_plain`
            children = ()
        if count > MAX_ANSWER_VALUES:
            raise LimitExceededError(f"the answer holds over {MAX_ANSWER_VALUES} values, more than is read back")
        if children and depth >= MAX_ANSWER_DEPTH:
            raise LimitExceededError(f"the answer is nested over {MAX_ANSWER_DEPTH} levels deep")
        stack.extend((child, depth + 1) for child in children)


def _serve(memory_bytes: int, cpu_s: int) -> None:
    """The child: bound itself, then read the call, run it and write the answer."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))  # SIGXCPU at the bound, SIGKILL soon after
    answer = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what the function prints must not mix with the answer
    target, args = pickle.load(sys.stdin.buffer)
    try:
        module, _, name = target.partition(":")
        value = getattr(importlib.import_module(module), name)(*args)
        check_answer(value)
        result = {"result": value}
    except BaseException as exc:  # the caller decides what it means
        cls = type(exc)
        kind = f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ == "gui_gym.errors" else cls.__name__
        result = {"error": kind, "message": str(exc)[:2000]}
    answer.write(json.dumps(result, default=_plain))
    answer.flush()


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]))
