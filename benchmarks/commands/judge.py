"""``gui-bench judge``: recorded web episodes judged by a WebJudge-style LVLM judge (resumable
by task), and the judge's agreement with the env's own success where that is known."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gui_gym.benchmarks.harness.results import slug
from gui_gym.errors import HarnessError

HELP = ("judge recorded web episodes with a WebJudge-style LVLM judge (resumable by task) and print its agreement "
        "with the env's own success where that is known")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="gui-bench results folders, or Online-Mind2Web results folders "
                        "(<task_id>/result.json with trajectory/, v1 or v2)")
    parser.add_argument("--model", help="the judge model (default $GUI_GYM_JUDGE_MODEL)")
    parser.add_argument("--base-url", help="its OpenAI-compatible API root (default $GUI_GYM_JUDGE_BASE_URL, then $OPENAI_BASE_URL)")
    parser.add_argument("--api-key", help="its API key (default $GUI_GYM_JUDGE_API_KEY, then $OPENAI_API_KEY)")
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    parser.add_argument("--score-threshold", type=int, default=3, help="screenshots scoring at least this (1-5) reach the verdict (default 3)")
    parser.add_argument("--max-images", type=int, default=50, help="at most this many screenshots reach the verdict (default 50)")
    parser.add_argument("--attempts", type=int, default=3, help="tries per question when the judge answers off-format (default 3)")
    parser.add_argument("--workers", type=int, default=4, help="screenshots scored concurrently (default 4)")
    parser.add_argument("--protocol", action="append", choices=("strict", "official", "keypoint"),
                        help="strict (ours, the default), official (the benchmark's script: its order, parsing and "
                             "evidence), or keypoint (a verdict per key point); repeat to judge under several and "
                             "compare their agreement")
    parser.add_argument("--max-tokens", type=int, default=1024,
                        help="the judge's answer length cap (default 1024; the script's is 512)")
    parser.add_argument("--max-tokens-field", choices=("max_tokens", "max_completion_tokens"), default="max_tokens",
                        help="the request field of that cap (default max_tokens; OpenAI's reasoning models, such as "
                             "o4-mini, take only max_completion_tokens)")
    parser.add_argument("--max-image-side", type=int, default=1280,
                        help="screenshots are downscaled so no side exceeds this (default 1280; the script sends them "
                             "full size)")
    parser.add_argument("--name", help="verdicts go to <task folder>/webjudge/<name>/, <name>-official/, "
                        "<name>-keypoint/ (default: the model's name)")
    parser.add_argument("--labels", help="JSON {task_id: true|false}: ground truth for folders without it (e.g. human labels)")
    parser.add_argument("--cache", help="a folder where judge answers are cached by content")


def run(args: argparse.Namespace) -> int:
    from gui_gym.benchmarks.harness.mind2web_layout import find_web_episodes, read_labels
    from gui_gym.models.openai_client import OpenAIClient
    from gui_gym.suites.mind2web.agreement import agreement_of

    labels = read_labels(args.labels) if args.labels else None
    folders = {Path(d): find_web_episodes(d, labels) for d in args.dirs}
    try:
        chat = OpenAIClient(args.model, args.base_url, args.api_key, temperature=args.temperature,
                            max_tokens=args.max_tokens, max_tokens_field=args.max_tokens_field,
                            max_image_side=args.max_image_side)
    except ValueError as exc:
        raise HarnessError(f"judge: {exc}") from exc
    protocols = list(dict.fromkeys(args.protocol or ["strict"]))
    agreements = {}
    try:
        for protocol in protocols:
            rows = _judge_folders(args, chat, protocol, folders)
            agreements[protocol] = agreement_of(rows)
    finally:
        chat.close()
    if len(protocols) > 1:
        print("\nagreement with ground truth by protocol:")
        print(_agreement_table(agreements))
    return 0


def _judge_folders(args: argparse.Namespace, chat: Any, protocol: str, folders: dict[Path, list[Any]]) -> list[dict]:
    """Judge every episode of `folders` under `protocol` (resuming what is recorded), write
    each folder's ``webjudge-<name>.json``, print the counts and the agreement; the rows."""
    from gui_gym.benchmarks.harness.results import short_error
    from gui_gym.judges.cache import CachedJudge
    from gui_gym.judges.webjudge.judge import WebJudge
    from gui_gym.records import atomic_write_json
    from gui_gym.suites.mind2web.agreement import agreement_of

    try:
        judge = WebJudge(CachedJudge(chat, args.cache) if args.cache else chat, score_threshold=args.score_threshold,
                         max_images=args.max_images, attempts=args.attempts, workers=args.workers, protocol=protocol)
    except ValueError as exc:
        raise HarnessError(f"judge: {exc}") from exc
    name = slug(args.name or chat.model) + ("" if protocol == "strict" else f"-{protocol}")
    total, rows = sum(map(len, folders.values())), []
    for root, episodes in folders.items():
        judged = []
        for episode in episodes:
            verdict, resumed = judge.evaluate_or_resume(episode.trajectory, episode.folder / "webjudge" / name)
            judged.append({"key": episode.key, "task_id": episode.trajectory.task_id, "schema": episode.schema,
                           "status": verdict.status, "ground_truth": episode.ground_truth, "error": verdict.error})
            print(f"[{len(rows) + len(judged)}/{total}] {verdict.status}{' (recorded earlier)' if resumed else ''} "
                  f"{root / episode.key}" + (f"  ({short_error(verdict.error)})" if verdict.error else ""), flush=True)
        atomic_write_json(root / f"webjudge-{name}.json", {"judge": judge.judge.identity, "settings": judge.settings,
                                                           "agreement": agreement_of(judged).to_dict(),
                                                           "episodes": judged})
        rows += judged
    counts = {s: sum(r["status"] == s for r in rows) for s in ("success", "failure", "error")}
    print(f"judged {len(rows)} episode(s) with {judge.judge.identity} ({protocol} protocol): {counts['success']} "
          f"success, {counts['failure']} failure, {counts['error']} judge error(s) (never counted as either)")
    truth = agreement_of(rows)
    print(f"agreement with ground truth: {truth.describe()}" if truth.n else
          "agreement with ground truth: none known (pass --labels for folders whose env has no success check)")
    return rows


def _agreement_table(agreements: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    lines = ["| protocol | n | accuracy | precision | recall | tp | fp | fn | tn |",
             "|---|---|---|---|---|---|---|---|---|"]
    for protocol, a in agreements.items():
        lines.append(f"| {protocol} | {a.n} | {pct(a.accuracy)} | {pct(a.precision)} | {pct(a.recall)} | "
                     f"{a.tp} | {a.fp} | {a.fn} | {a.tn} |")
    return "\n".join(lines)
