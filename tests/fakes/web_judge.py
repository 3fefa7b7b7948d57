"""A scripted WebJudge model for the three protocols, served by the loopback chat server.

It stands in for an LVLM judge where none can run (no GPU, no hosted API), so the whole path
(folders -> prompts -> HTTP -> parsing -> verdicts -> agreement) runs for real. It answers each
stage in the format that stage's prompt asks for, and decides only from what the prompt shows,
by one fixed rule: the key points are the task's clauses (split at commas and "and"); every
screenshot scores 4; a task is a success when the evidence holds a final answer or at least
three actions, and key point n is met when it holds a final answer or at least n actions. So
the protocols differ only where they differ in what they show and how they read: the official
protocol shows no final answer. Its numbers measure that mechanics, not a model's judgment.

    python -m tests.fakes.web_judge DIR [DIR ...]

judges gui-bench results folders under the strict, official and keypoint protocols (verdicts
in ``webjudge/scripted*/``) and prints their agreement with ground truth.
"""

from __future__ import annotations

import re
import sys

from gui_gym.judges.webjudge import judge as webjudge
from gui_gym.judges.webjudge import keypoints as webjudge_keypoints
from gui_gym.judges.webjudge import official as webjudge_official

PROTOCOLS = ("strict", "official", "keypoint")
_CLAUSES = re.compile(r",\s*(?:and\s+|then\s+)?|\s+and\s+(?:then\s+)?")


def key_points(task: str) -> list[str]:
    return [part.strip(" .") for part in _CLAUSES.split(task) if part.strip(" .")]


def _text(request) -> str:
    content = request.messages[1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def _evidence(text: str, official: bool) -> tuple[int, bool]:
    """(actions listed, whether a final answer is shown) in a verdict prompt."""
    if official:
        history = text.split("Action History:\n", 1)[1].split("\n\n", 1)[0]
        return len(re.findall(r"^\d+\. ", history, re.MULTILINE)), False
    history = text[text.index("Action history:"):text.index("The agent's final answer")]
    answer = re.search(r"not evidence\): (.*?)\n\n", text, re.DOTALL)
    return len(re.findall(r"^\d+\. ", history, re.MULTILINE)), bool(answer) and answer.group(1).strip() != "(none)"


def reply(request) -> str:
    system, text = request.messages[0]["content"], _text(request)
    if system in (webjudge.KEY_POINTS_SYSTEM, webjudge_official.KEY_POINTS_SYSTEM):
        points = key_points(text.split("Task: ", 1)[1])
        header = "**Key Points**:" if system == webjudge_official.KEY_POINTS_SYSTEM else "Key Points:"
        return header + "\n" + "\n".join(f"{n}. {p}" for n, p in enumerate(points, 1))
    if system == webjudge.SCREENSHOT_SYSTEM:
        return "Reasoning: the page after an action.\nScore: 4"
    if system == webjudge_official.SCREENSHOT_SYSTEM:
        return "1. **Reasoning**: the page after an action.\n\n2. **Score**: 4"
    actions, answered = _evidence(text, official=system == webjudge_official.VERDICT_SYSTEM)
    if system == webjudge_keypoints.KEY_POINT_SYSTEM:
        needed = int(re.search(r"The key point to check: (\d+)\.", text).group(1))
    elif system in (webjudge.VERDICT_SYSTEM, webjudge_official.VERDICT_SYSTEM):
        needed = 3
    else:
        raise AssertionError(f"unexpected system prompt {system[:60]!r}")
    met = answered or actions >= needed
    return f"Thoughts: {actions} action(s), answer {'shown' if answered else 'not shown'}.\n" \
           f"Status: {'success' if met else 'failure'}"


def main(argv: list[str]) -> int:
    from gui_gym.benchmarks.cli import main as gui_bench
    from tests.fakes.chat_server import ChatServer

    with ChatServer(reply) as server:
        protocols = [arg for p in PROTOCOLS for arg in ("--protocol", p)]
        return gui_bench(["judge", *argv, "--model", "scripted-judge", "--base-url", server.base_url,
                          "--name", "scripted", *protocols])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
