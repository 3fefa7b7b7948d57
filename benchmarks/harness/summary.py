"""What a run ends with (and ``gui-bench report`` rebuilds): the summary, with the suite's own
report, the outside layouts (Online-Mind2Web's, OSWorld's, AndroidWorld's) a killed run did not write, the HTML
report, and the table printed on the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def finalize(store: Any, jobs: list[Any], suite: Any, wall_s: float | None, *, images: str = "link",
             suite_report: str | None = None) -> dict[str, Any]:
    """Summary (with the suite's own report when it has one, else `suite_report`), the outside
    layouts a killed run did not write, and the HTML report. Returns the summary."""
    from gui_gym.benchmarks.harness.outside_layouts import RunLayouts, write_episode_layouts
    from gui_gym.benchmarks.harness.report import build_report
    from gui_gym.benchmarks.harness.results import summarize, task_facts

    results = store.results(jobs)
    run = store.read_run()
    summary = summarize(results, wall_s=wall_s, run=run)
    hook = getattr(suite, "report", None)
    summary["suite_report"] = hook([task_facts(r) for r in results]) if callable(hook) and results else suite_report
    store.write_summary(summary)
    layouts = RunLayouts.of_run(run or {}, str(store.root / "run.json"))
    for job in jobs:
        write_episode_layouts(store, job, layouts, keep_written=True)
    build_report(store.root, images=images, summary=summary, store=store)
    return summary


def print_summary(summary: dict[str, Any], root: Path) -> None:
    from gui_gym.benchmarks.harness.results import format_table, short_error

    print(format_table(summary))
    errors = summary.get("errors") or []
    for error in errors[:10]:
        print(f"  error in {error['key']} ({error['kind']}): {short_error(error['error'])}")
    if len(errors) > 10:
        print(f"  ... and {len(errors) - 10} more errors (summary.json lists them all)")
    if summary.get("suite_report"):
        print()
        print(summary["suite_report"])
    print(f"\nresults: {root}\nreport:  {root / 'report.html'} (open it in a browser)")
