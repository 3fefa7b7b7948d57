"""Desktops started ahead of time for the local provider: while an episode runs, the next
episode's sandbox (Xvfb, window manager, session bus, our server) boots in the background,
so a reset takes one that is already up instead of waiting the ~0.7 s a boot takes.

A pooled desktop is only ever handed out once, fresh from its boot; a desktop an episode has
used is never given back to the pool, it is stopped (`retire`, also in the background). So
nothing an episode did can reach the next one: each episode still gets a sandbox of its own,
exactly what a cold start gives, only started earlier.

Every boot and every stop runs on the pool's worker threads; `close` waits for all of them
and stops the spares, so no process of the pool outlives it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec

logger = logging.getLogger(__name__)


class SandboxPool:
    """Keeps `size` spare sandboxes of `spec` booting or ready.

    Args:
        spec: what every spare looks like; `take` of another spec starts one cold.
        size: spares kept ahead (0: none, every `take` starts its sandbox cold).
        make: builds a sandbox from a spec (the sandbox class; a test may wrap it).
    """

    def __init__(self, spec: SandboxSpec, size: int, make: Callable[[SandboxSpec], Sandbox] = Sandbox):
        if size < 0:
            raise ValueError(f"pool size must be 0 or more, received {size}")
        self.spec, self.size, self._make = spec, size, make
        self._spares: list[Future[Sandbox]] = []
        self._stopping: list[Future[None]] = []
        self._workers = (ThreadPoolExecutor(max_workers=size + 1, thread_name_prefix="gui-gym-desktop-pool")
                         if size else None)
        self.hits = 0
        """Takes served by a spare."""
        self.misses = 0
        """Takes that started their sandbox cold (another spec, no spare, or a spare that failed)."""

    def take(self, spec: SandboxSpec) -> Sandbox:
        """A started sandbox of `spec` that no episode has used. The next spare boots at the
        next `fill` (the provider calls it once the episode is set up, so that boot does not
        compete with this episode's setup)."""
        sandbox = self._spare(spec)
        if sandbox is None:
            self.misses += 1
            return self._boot(spec)
        self.hits += 1
        return sandbox

    def fill(self) -> None:
        """Start booting spares until `size` are booting or ready."""
        if self._workers is None:
            return
        while len(self._spares) < self.size:
            self._spares.append(self._workers.submit(self._boot, self.spec))

    def retire(self, sandbox: Sandbox) -> None:
        """Stop a used sandbox, in the background when the pool has workers."""
        if self._workers is None:
            sandbox.stop()
            return
        self._stopping = [f for f in self._stopping if not f.done()]
        self._stopping.append(self._workers.submit(self._stop_logged, sandbox))

    @property
    def spares(self) -> list[Sandbox]:
        """The spares that have booted (for inspection; the pool still owns them)."""
        return [f.result() for f in self._spares if f.done() and f.exception() is None]

    def close(self) -> None:
        """Wait for every boot and stop, then stop the spares. Safe twice."""
        spares, self._spares = self._spares, []
        for future in spares:
            sandbox = _result(future)
            if sandbox is not None:
                self._stop_logged(sandbox)
        stopping, self._stopping = self._stopping, []
        for future in stopping:
            future.result()
        if self._workers is not None:
            self._workers.shutdown(wait=True)
            self._workers = None

    # ---- internals --------------------------------------------------------------------------

    def _spare(self, spec: SandboxSpec) -> Sandbox | None:
        """The first spare of `spec`, waited for if it is still booting; None when there is none
        or it failed (logged: the caller starts one cold, which reports the failure if it lasts)."""
        if spec != self.spec or not self._spares:
            return None
        sandbox = _result(self._spares.pop(0))
        if sandbox is not None and not sandbox.alive():
            logger.warning("a pooled desktop exited before it was used: %s", sandbox.log_tail(300))
            self._stop_logged(sandbox)
            return None
        return sandbox

    def _boot(self, spec: SandboxSpec) -> Sandbox:
        sandbox = self._make(spec)
        sandbox.start()  # stops what it started when it fails
        return sandbox

    @staticmethod
    def _stop_logged(sandbox: Sandbox) -> None:
        try:
            sandbox.stop()
        except Exception:  # a stop that fails leaves processes: say which, loudly, but go on
            logger.error("a desktop sandbox did not stop cleanly", exc_info=True)


def _result(future: Future[Sandbox]) -> Sandbox | None:
    """The booted sandbox, or None (logged) when its boot failed."""
    try:
        return future.result()
    except Exception as exc:
        logger.warning("a pooled desktop failed to start (%s: %s); the next reset starts one itself",
                       type(exc).__name__, exc)
        return None
