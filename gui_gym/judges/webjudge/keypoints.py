"""Keypoint-wise outcome judgment: ``WebJudge(..., protocol="keypoint")``.

The Online-Mind2Web paper compares two granularities of WebJudge's last stage (its Appendix
B.1): one chain-of-thought verdict over the whole task, which the benchmark's code implements,
and a fine-grained mode that judges each key point on its own and calls the task a success
only if every key point is met, whose prompt and code were not released (users ask for it:
Online-Mind2Web issue 20). This is that mode, built on the strict protocol: its key points and
screenshot selection, then one question per key point, showing the same evidence as strict's
verdict (task, all key points, action history, the final answer as a claim, the kept
screenshots with their reasoning) and naming the key point to check. Each answer is read
strictly (``Status: success`` meaning met, or ``failure``) and asked again when off-format;
one key point that cannot be judged makes the verdict a judge error. The key points are
judged concurrently (`WebJudge.workers`); ``Verdict.key_point_results`` keeps each one.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gui_gym.judges.fencing import DATA_RULE
from gui_gym.models.chat import Message
from gui_gym.judges.webjudge.common import Verdict, WebTrajectory, _CallLog, load_image, parse_status

KEY_POINT_SYSTEM = """You decide whether a web agent met ONE requirement, a key point, of a user's task on a website. \
You get the task, all its key points, the agent's action history (what it actually did), the agent's final answer, \
the screenshots of its trajectory that were judged relevant, each with the reason it was kept, and the one key point \
to check.

Judge that key point only, and strictly:
1. It is met only if the screenshots and actions show it met. The final answer is a claim: it counts only where the \
screenshots confirm it.
2. A filter, sort order or range (prices, dates, years, counts) must be applied with the website's own controls and \
match the key point exactly, neither broader nor narrower. Typing it into a search box does not apply it.
3. A superlative (cheapest, best, newest, highest-rated, ...) must be established by sorting or filtering.
4. A submission, a saved change or a displayed result counts only if it visibly happened.
5. A question is answered only if the final answer is right according to the screenshots.

Answer in exactly this format:
Thoughts: <your reasoning about this key point, against the evidence>
Status: success or failure (success: this key point is met)

""" + DATA_RULE


def judge_key_points(webjudge: Any, trajectory: WebTrajectory, log: _CallLog, verdict: Verdict) -> None:
    """Strict's key points and screenshots, then a verdict per key point; success iff all met. `webjudge` is the
    `gui_gym.judges.webjudge.judge.WebJudge` that runs the protocol (its asking and logging)."""
    verdict.key_points = webjudge._key_points(trajectory, log)
    verdict.screenshots = webjudge._score_screenshots(trajectory, verdict.key_points, log)
    kept = [s for s in verdict.screenshots if s.kept]
    images = [load_image(trajectory.screenshots[s.index]) for s in kept]
    evidence = webjudge._verdict_parts(trajectory, verdict, kept, images)
    answers: dict[int, str] = {}

    def judge(number: int) -> dict[str, Any]:
        point = verdict.key_points[number - 1]
        messages = [Message.system(KEY_POINT_SYSTEM),
                    Message.user(*evidence, f"\n\nThe key point to check: {number}. {point}")]

        def parse(text: str) -> tuple[str, str]:
            answers[number] = text
            return parse_status(text)

        status, thoughts = webjudge._ask(log, f"verdict:key_point:{number}", [s.name for s in kept], messages, parse)
        return {"key_point": point, "status": status, "thoughts": thoughts}

    with ThreadPoolExecutor(max_workers=webjudge.workers, thread_name_prefix="webjudge-keypoint") as pool:
        verdict.key_point_results = list(pool.map(judge, range(1, len(verdict.key_points) + 1)))
    met = [r["status"] == "success" for r in verdict.key_point_results]
    verdict.status = "success" if all(met) else "failure"
    verdict.thoughts = " ".join(f"{n}. {'met' if m else 'not met'}: {r['thoughts']}"
                                for n, (m, r) in enumerate(zip(met, verdict.key_point_results), 1))
    verdict.response = "\n---\n".join(answers[n] for n in sorted(answers))
