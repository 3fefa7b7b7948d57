"""Run a command of the desktop and keep what it prints, within a size: the output of a
command the evaluation runs is made of the agent's files (``cat ~/.bash_history``), and so
is the accessibility tree of its apps. `subprocess.run` holds all of it in the server's
memory, which a file of gigabytes would exhaust, taking the server, and the episode, down.

`run` reads both streams as they come and stops at `max_bytes` on either: the command is
killed and `OutputTooLarge` raised, so the server answers with a refusal that the evaluator
scores (docs/security.md). A command past its time is killed and reported with what it
printed, as `subprocess.run` reports it.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

CHUNK = 1 << 16


class OutputTooLarge(Exception):
    """A command printed more than it was allowed to (it was killed)."""


@dataclass(frozen=True)
class Completed:
    """How a command ended: its exit status (None when it was killed past its time) and what it
    printed."""

    returncode: int | None
    stdout: bytes
    stderr: bytes

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run(command: str | Sequence[str], *, max_bytes: int, timeout_s: float, stdin: IO[bytes] | int = subprocess.DEVNULL,
        **popen: Any) -> Completed:
    """`command` to completion (both its streams closed, as `subprocess.run` waits for them),
    at most `timeout_s`, keeping at most `max_bytes` of each stream: OutputTooLarge past it.
    `popen` goes to `subprocess.Popen` (``shell``, ``env``, ``cwd``, ``user``...)."""
    proc = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)
    kept = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    deadline = time.monotonic() + timeout_s
    timed_out = False
    try:
        with selectors.DefaultSelector() as streams:
            for fd in kept:
                streams.register(fd, selectors.EVENT_READ)
            while streams.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                for key, _ in streams.select(left):
                    chunk = os.read(key.fd, CHUNK)
                    if not chunk:
                        streams.unregister(key.fd)
                        continue
                    kept[key.fd] += chunk
                    if len(kept[key.fd]) > max_bytes:
                        raise OutputTooLarge(f"printed more than the {max_bytes} bytes allowed")
        if not timed_out:
            try:
                return Completed(proc.wait(max(0.0, deadline - time.monotonic())), bytes(kept[proc.stdout.fileno()]),
                                 bytes(kept[proc.stderr.fileno()]))
            except subprocess.TimeoutExpired:
                pass
        return Completed(None, bytes(kept[proc.stdout.fileno()]), bytes(kept[proc.stderr.fileno()]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
