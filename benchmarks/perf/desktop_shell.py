"""What each local desktop shell costs: boot time, memory at rest, stop time.

    python -m gui_gym.benchmarks.perf.desktop_shell                  # both shells, 3 boots each
    python -m gui_gym.benchmarks.perf.desktop_shell --shell gnome --boots 5 --screen 1280x800

Each boot is a fresh sandbox started the way a reset without the warm pool starts one (the
time until our server answers, the shell ready); its memory is the resident memory of all
its processes (our server, Xvfb and the shell's processes) once the desktop has been at rest
for `--rest` seconds; then the sandbox is stopped and the stop timed. Medians are printed with
the load average: on a shared machine a figure means little without it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from gui_gym.backends.desktop.sandbox import Sandbox, SandboxSpec
from gui_gym.backends.desktop.shell import SHELLS
from gui_gym.runtime.processes import descendants


def resident_mib(pids: list[int]) -> dict[str, float]:
    """Resident memory (MiB) of `pids`, by command name."""
    by_name: dict[str, float] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as comm, open(f"/proc/{pid}/status") as status:
                name = comm.read().strip()
                kib = next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
        except OSError:
            continue
        by_name[name] = by_name.get(name, 0.0) + kib / 1024
    return by_name


def boot_once(shell: str, size: tuple[int, int], rest_s: float) -> dict[str, object]:
    sandbox = Sandbox(SandboxSpec(width=size[0], height=size[1], shell=shell))
    start = time.monotonic()
    sandbox.start()
    boot_s = time.monotonic() - start
    try:
        time.sleep(rest_s)  # a measurement, not a wait for readiness: memory once the desktop idles
        memory = resident_mib(descendants(sandbox.pid))
    finally:
        start = time.monotonic()
        sandbox.stop()
        stop_s = time.monotonic() - start
    return {"boot_s": boot_s, "stop_s": stop_s, "memory": memory}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shell", action="append", choices=SHELLS, help="repeatable; default: every shell")
    parser.add_argument("--boots", type=int, default=3)
    parser.add_argument("--screen", default="1920x1080", help="screen size WxH (default OSWorld's 1920x1080)")
    parser.add_argument("--rest", type=float, default=5.0, help="seconds at rest before the memory is read")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.screen.lower().split("x"))
    for shell in args.shell or SHELLS:
        runs = [boot_once(shell, size, args.rest) for _ in range(args.boots)]
        totals = [sum(r["memory"].values()) for r in runs]
        print(f"shell={shell} {size[0]}x{size[1]}, {args.boots} boots, load average {os.getloadavg()[0]:.2f}")
        boots, stops = [r["boot_s"] for r in runs], [r["stop_s"] for r in runs]
        print(f"  boot s: median {statistics.median(boots):.1f} ({', '.join(f'{b:.1f}' for b in boots)})")
        print(f"  stop s: median {statistics.median(stops):.1f} ({', '.join(f'{s:.1f}' for s in stops)})")
        print(f"  resident MiB at rest: median {statistics.median(totals):.0f} ({', '.join(f'{t:.0f}' for t in totals)})")
        last = sorted(runs[-1]["memory"].items(), key=lambda item: -item[1])
        print("  largest (last boot): " + ", ".join(f"{name} {mib:.0f}" for name, mib in last[:8]))


if __name__ == "__main__":
    main()
