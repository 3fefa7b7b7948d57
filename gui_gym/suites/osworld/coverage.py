"""What each OSWorld task needs, and which of those needs this install meets.

A task is *evaluable* when every metric (with its options) and getter type it uses is
implemented here: gui-gym then scores it as OSWorld's code does. It is *runnable* on the
local provider when, besides, its setup steps, its getters and the programs its commands
start all work in the local sandbox on this machine, given its files in the cache (and the
internet for tasks that open web pages; *offline* counts those that need none). For a task
that is not runnable, `local_blocker` gives the one reason (the first that applies).

    python -m gui_gym.suites.osworld path/to/evaluation_examples
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import shutil
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gui_gym.backends.desktop.shell import DEFAULT_SHELL, SHELLS
from gui_gym.suites.osworld.cache_manifest import cache_entries
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.getters import GETTER_TYPES, NETWORK_GETTERS, WEB_GETTERS
from gui_gym.suites.osworld.loader import OSWorldTaskSpec, load_tasks
from gui_gym.suites.osworld.metrics import has_metric
from gui_gym.suites.osworld.setup import STEP_TYPES, UNAVAILABLE

WEB_STEPS = frozenset({"chrome_open_tabs", "googledrive", "login", "update_browse_history", "proxy"})
LOCAL_GETTER_NEEDS = {"googledrive_file": "a Google Drive account (OSWorld's credentials)",
                      "vm_wallpaper": "a GNOME desktop (its wallpaper setting)"}
"""Getters the local provider cannot serve -> what they need."""
LOCAL_METRIC_NEEDS = {"check_gnome_favorite_apps": "GNOME Shell (its favourite apps)"}
COMMAND_NEEDS = {
    "code": "VS Code (Microsoft's editor, which Debian does not package)",
    "timedatectl": "systemd's time service (timedatectl), which the sandbox does not run",
    "gsettings": "GNOME's settings (gsettings schemas of a GNOME desktop)",
    "su": "other user accounts on the desktop (su)", "pip": "installing Python packages on the desktop (pip)",
}
"""Programs the local sandbox cannot run as the task means -> the reason."""
GNOME_PROVIDES = frozenset({"check_gnome_favorite_apps", "gsettings"})
"""Needs above that the local desktop meets when it runs GNOME Shell (``shell="gnome"``): its
settings (gsettings, dconf) and favourite apps."""
STAND_INS = {"google-chrome": "chromium", "gnome-terminal": "lxterminal", "python": "python3"}
"""OSWorld's programs -> what the local provider starts for them (see the desktop session)."""
SHELL_WORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "do", "done", "while", "case", "esac", "[", "[[",
                         "]", "]]", "!", "{", "}", "(", ")", "cd", "export", "echo", "true", "false", "exit", "test",
                         "source", ".", "history", "set", "unset", "read", "local", "return", "break", "sleep",
                         "printf", "eval", "exec", "wait", "trap", "shift", "time"})
RELATED_APPS = {"vscode": "code", "vs_code": "code"}
"""``related_apps`` names that name a program (the task needs it even if no command starts it)."""


@dataclass(frozen=True)
class Needs:
    """Everything one task asks of the install."""

    setup_types: frozenset[str]
    getters: frozenset[str]
    metrics: tuple[tuple[str, dict], ...]
    downloads: tuple[str, ...]
    """URLs of files the task fetches (setup ``download`` and ``cloud_file`` getters)."""
    web: bool
    """The task opens web pages or services (it needs the internet whatever is cached)."""
    programs: tuple[str, ...]
    """Programs its commands start (setup, postconfig and command getters), in order."""


def _commands(spec: OSWorldTaskSpec) -> list[Any]:
    steps = (*spec.config, *spec.evaluator.postconfig)
    found = [s.parameters.get("command") for s in steps if s.type in ("launch", "execute", "command")]
    found += [g.get("command") for g in spec.evaluator.getters if g.get("type") in ("vm_command_line", "vm_command_error")]
    return [c for c in found if c]


OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "$(", "`", "\n", ";;", "|&"})
PACKAGE_PROGRAMS = {"sysstat": "sar"}
"""Debian packages tasks install whose program has another name."""


def _script_programs(script: str) -> list[str]:
    """The programs a shell script starts: the first word of each simple command (after
    variable assignments and ``sudo``'s options; ``apt install X`` counts as X's program)."""
    lexer = shlex.shlex(script.replace("$(", " ( "), posix=True, punctuation_chars=True)
    lexer.whitespace = " \t\r"
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = script.split()
    commands, current = [], []
    for token in tokens:
        if token in OPERATORS or set(token) <= set(";&|()\n"):
            commands.append(current)
            current = []
        else:
            current.append(token)
    commands.append(current)
    programs = []
    for words in commands:
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]
        if words and words[0] == "sudo":
            words = [w for w in words[1:] if not w.startswith("-")]
        if not words or words[0] in SHELL_WORDS or not re.match(r"^[\w./~+-]+$", words[0]):
            continue
        if words[0] in ("apt", "apt-get") and "install" in words:
            programs.extend(PACKAGE_PROGRAMS.get(w, w) for w in words[words.index("install") + 1:] if not w.startswith("-"))
        elif words[0] not in ("apt", "apt-get"):
            programs.append(words[0])
    return programs


def command_programs(command: Any) -> list[str]:
    if isinstance(command, list):
        if command and command[0] in ("bash", "/bin/bash", "sh", "/bin/sh") and len(command) > 2 and command[1] == "-c":
            return _script_programs(command[2])
        if command and command[0] in ("python", "python3") and len(command) > 1 and command[1] == "-c":
            return ["python"]
        return _script_programs(shlex.join(str(c) for c in command))
    return _script_programs(str(command))


def needs(spec: OSWorldTaskSpec) -> Needs:
    steps = (*spec.config, *spec.evaluator.postconfig)
    getters = spec.evaluator.getters
    downloads = [f["url"] for s in steps if s.type == "download" for f in s.parameters.get("files", [])]
    for getter in getters:
        if getter.get("type") in NETWORK_GETTERS:
            paths = getter["path"] if getter.get("multi") else [getter["path"]]
            downloads.extend(paths)
    web = spec.proxy or any(s.type in WEB_STEPS for s in steps) or any(g.get("type") in WEB_GETTERS for g in getters)
    programs = [p for c in _commands(spec) for p in command_programs(c)]
    programs += [RELATED_APPS[a] for a in spec.related_apps if a in RELATED_APPS]
    return Needs(setup_types=frozenset(s.type for s in steps), getters=frozenset(g["type"] for g in getters),
                 metrics=tuple(zip(spec.evaluator.funcs, spec.evaluator.options)), downloads=tuple(downloads),
                 web=bool(web), programs=tuple(dict.fromkeys(programs)))


def unmet(spec: OSWorldTaskSpec, cache: FileCache | None = None, network: bool = True) -> dict[str, list[str]]:
    """What this install lacks to run `spec`, by kind (empty lists: all met). With a `cache`,
    downloads not cached count as needing the network; `network` says whether it is there."""
    need = needs(spec)
    missing_net: list[str] = []
    if not network:
        if need.web:
            missing_net.append("web access")
        if cache is not None:
            missing_net.extend(e.url for e in cache_entries(spec, cache)
                               if not e.path.is_file() and not _cached(cache, spec, e.url))
        elif need.downloads:
            missing_net.append(f"{len(need.downloads)} file download(s)")
    return {
        "setup": sorted(need.setup_types - set(STEP_TYPES)),
        "getters": sorted(need.getters - GETTER_TYPES),
        "metrics": sorted({f for f, options in need.metrics if not has_metric(f, options)}),
        "network": missing_net,
    }


def _cached(cache: FileCache, spec: OSWorldTaskSpec, url: str) -> bool:
    """Whether a download of `url` for this task is in the cache (under any file name)."""
    task_dir = cache.task_dir(spec.id)
    prefix = str(uuid.uuid5(uuid.NAMESPACE_URL, url))
    return task_dir.is_dir() and any(p.name.startswith(prefix) for p in task_dir.iterdir())


def evaluable(spec: OSWorldTaskSpec) -> bool:
    """Every metric and getter the task uses is implemented: gui-gym scores it as OSWorld does."""
    gaps = unmet(spec)
    return not (gaps["getters"] or gaps["metrics"])


def _program_available(program: str) -> bool:
    if program.startswith(("./", "~/", "/home/")):
        return True  # a file the task itself puts on the desktop
    return shutil.which(STAND_INS.get(program, program)) is not None


def local_blocker(spec: OSWorldTaskSpec, shell: str = DEFAULT_SHELL) -> str | None:
    """Why the task cannot run end to end on the local provider with the desktop `shell`
    (None: it can)."""
    met = GNOME_PROVIDES if shell == "gnome" else frozenset()
    if not evaluable(spec):
        gaps = unmet(spec)
        return "not evaluable: " + ", ".join(gaps["metrics"] + gaps["getters"])
    need = needs(spec)
    for step in sorted(need.setup_types):
        if step in UNAVAILABLE:
            return UNAVAILABLE[step]
        if step not in STEP_TYPES:
            return f"setup step {step!r}"
    for getter in sorted(need.getters):
        if getter in LOCAL_GETTER_NEEDS:
            return LOCAL_GETTER_NEEDS[getter]
    for func, _ in need.metrics:
        if func in LOCAL_METRIC_NEEDS and func not in met:
            return LOCAL_METRIC_NEEDS[func]
    for program in need.programs:
        name = program.rsplit("/", 1)[-1]
        if name in COMMAND_NEEDS and name not in met and not (name == "pip" and _pip_needs_met(spec)):
            return COMMAND_NEEDS[name]
        if not _program_available(program):
            return f"{program} (not installed on this machine)"
    return None


def _pip_needs_met(spec: OSWorldTaskSpec) -> bool:
    """The packages a task pip-installs are importable on the desktop already."""
    modules = []
    for command in _commands(spec):
        text = command if isinstance(command, str) else " ".join(map(str, command))
        for match in re.finditer(r"pip3? install ((?:[\w.-]+\s*)+)", text):
            modules += [m for m in match.group(1).split() if not m.startswith("-")]
    return all(importlib.util.find_spec(m) is not None for m in modules)


def coverage_table(specs: Iterable[OSWorldTaskSpec], shell: str = DEFAULT_SHELL) -> list[dict[str, object]]:
    """Per domain (and a total row): tasks, evaluable, runnable on the local provider (with the
    desktop `shell`), and runnable without internet."""
    rows: dict[str, Counter] = defaultdict(Counter)
    for spec in specs:
        ok = evaluable(spec)
        runs = ok and local_blocker(spec, shell) is None
        need = needs(spec)
        for domain in (spec.domain, "TOTAL"):
            row = rows[domain]
            row["tasks"] += 1
            row["evaluable"] += ok
            row["runnable"] += runs
            row["offline"] += runs and not need.web
    order = sorted(d for d in rows if d != "TOTAL") + ["TOTAL"]
    return [{"domain": d, **{k: rows[d][k] for k in ("tasks", "evaluable", "runnable", "offline")}} for d in order]


def format_table(rows: list[dict[str, object]]) -> str:
    headers = list(rows[0])
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in headers]
    lines = ["  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    for row in rows:
        lines.append("  ".join(str(row[h]).ljust(w) if i == 0 else str(row[h]).rjust(w)
                               for i, (h, w) in enumerate(zip(headers, widths))))
    return "\n".join(lines)


def missing_counts(specs: Iterable[OSWorldTaskSpec]) -> dict[str, Counter]:
    """How many tasks each missing setup type / getter / metric blocks."""
    counts: dict[str, Counter] = {"setup": Counter(), "getters": Counter(), "metrics": Counter()}
    for spec in specs:
        for kind, names in unmet(spec).items():
            if kind in counts:
                counts[kind].update(names)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Per-domain coverage of OSWorld tasks by this install.")
    parser.add_argument("tasks", help="'sample' or a folder holding examples/ and test_all.json")
    parser.add_argument("--index", default=None, help="index file (default test_all.json when present)")
    parser.add_argument("--quiet", action="store_true", help="only the table and the reasons' counts")
    parser.add_argument("--shell", choices=SHELLS, default=DEFAULT_SHELL,
                        help=f"the local desktop's shell (default {DEFAULT_SHELL}; openbox lacks GNOME's settings and favourites)")
    args = parser.parse_args(argv)
    specs = load_tasks(args.tasks, index=args.index)
    print(f"{len(specs)} tasks loaded from {args.tasks}")
    print("evaluable: scored as OSWorld's code scores it; runnable: end to end on the local provider, given the "
          "task's files in the cache (and the internet for tasks that open web pages); offline: runnable without it")
    print(format_table(coverage_table(specs, args.shell)))
    for kind, counter in missing_counts(specs).items():
        if counter:
            print(f"not implemented ({kind}): " + ", ".join(f"{name} ({n})" for name, n in counter.most_common()))
    blocked = [(spec, local_blocker(spec, args.shell)) for spec in specs]
    blocked = [(spec, reason) for spec, reason in blocked if reason]
    reasons = Counter(reason for _, reason in blocked)
    if reasons:
        print("not runnable locally, by reason: " + "; ".join(f"{r} ({n})" for r, n in reasons.most_common()))
    if blocked and not args.quiet:
        print("not runnable locally, by task:")
        for spec, reason in sorted(blocked, key=lambda b: (b[0].domain, b[0].id)):
            print(f"  {spec.domain}/{spec.id}: {reason}")


if __name__ == "__main__":
    main()
