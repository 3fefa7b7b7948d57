"""A WebJudge-style evaluator: Online-Mind2Web's three-stage LVLM judge of web trajectories.

Three protocols (`PROTOCOLS`): ``strict``, ours, described below (the default);
``official``, the benchmark's own script step for step (`official.py`); and
``keypoint``, strict's first two stages with a verdict per key point, the task succeeding only
if all are met (`keypoints.py`). The strict protocol:

1. **Key points**: the model lists the requirements the task states explicitly; superlatives
   ("cheapest", "newest") become sort or filter requirements.
2. **Screenshots**: each screenshot is scored 1-5 for relevance to the key points, with its
   reasoning; those scoring at least `score_threshold` (3) are kept, at most `max_images`
   (50; over the cap the highest scores win, later screenshots breaking ties).
3. **Verdict**: the task, key points, the factual action history, the agent's final answer
   (shown apart, as a claim to check, never as an action) and the kept screenshots with their
   reasoning; the model answers ``Thoughts: ...`` and ``Status: success|failure``. What the
   agent wrote (each action, the final answer) is fenced as data and the screenshots'
   reasoning kept on one line (`gui_gym.judges.fencing`); the status is read from the judge's
   own lines only, and two different ones are off-format (`parse_status`).

Every answer is parsed strictly. An off-format answer is asked again (`ask` shows the model
its answer and the error); when the attempts run out, or the judge cannot be reached, the
verdict is ``"error"`` with the reason, never a success and never a failure. With a folder,
every call (prompt text, image names, answer, timing) is appended to ``calls.jsonl`` there and
the verdict is written last to ``verdict.json``, so a re-run skips the episodes already
judged with the same settings (`WebJudge.evaluate_or_resume`).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

from gui_gym.errors import JudgeError
from gui_gym.judges.fencing import DATA_RULE, fence, one_line
from gui_gym.judges.parsing import ask
from gui_gym.judges.webjudge.common import (  # noqa: F401 - the protocols' shared records, re-exported
    CALLS_FILE, STATUSES, VERDICT_FILE, ImageSource, ScreenshotScore, Verdict, WebTrajectory, _CallLog, _numbered,
    load_image, load_verdict, parse_key_points, parse_screenshot_score, parse_status)
from gui_gym.models.chat import ChatModel, ImageLike, Message, SharedOnCopy
from gui_gym.records import atomic_write_json

PROMPT_VERSION = "webjudge-v2"
PROTOCOLS = ("strict", "official", "keypoint")
PROMPT_VERSIONS = {"strict": PROMPT_VERSION, "official": "webjudge-official-v2", "keypoint": "webjudge-keypoint-v2"}
DEFAULT_SCORE_THRESHOLD = 3
DEFAULT_MAX_IMAGES = 50
KEY_POINTS_SYSTEM = """You read the task a web agent was given and list the requirements the task states explicitly.

Rules:
- List only what the task itself says: each item, value, condition and action it requires. Add nothing it does not state.
- A requirement phrased as a superlative or an order ("cheapest", "best-rated", "newest", "most recent", "highest", \
"lowest", "closest", "largest") must be met with the website's sort or filter controls: write it that way, \
e.g. "Sort by price, lowest first".

Answer in this format and nothing else:
Key Points:
1. <first requirement>
2. <second requirement>"""

SCREENSHOT_SYSTEM = """You judge one screenshot from a web agent's trajectory: does it show steps or evidence that \
the task's key points need?

First describe what the screenshot shows: the page, its visible elements and text, selections, applied filters or \
sort orders, entered values, results, confirmations. Then weigh how much of it is needed to complete the task or to \
prove it complete. Partial but relevant evidence still counts.

Scale:
1 - nothing relevant to the task
2 - little or ambiguous information, unlikely to matter
3 - some relevant steps or hints, incomplete or unclear
4 - important, highly relevant steps or evidence, though not everything
5 - clear, decisive evidence of a necessary step or of the task's completion

Answer in this format:
Reasoning: <what the screenshot shows and why it matters or not>
Score: <a number from 1 to 5>"""

VERDICT_SYSTEM = """You decide whether a web agent completed a user's task on a website. You get the task, its key \
points, the agent's action history (what it actually did), the agent's final answer, and the screenshots of its \
trajectory that were judged relevant, each with the reason it was kept.

Judge strictly:
1. Every key point must be met, as the screenshots and actions show. The final answer is a claim: it counts only \
where the screenshots confirm it.
2. Filters, sort orders and ranges (prices, dates, years, counts) must be applied with the website's own controls \
and match the task exactly, neither broader nor narrower. Typing every requirement into a search box does not apply \
them.
3. Superlatives (cheapest, best, newest, highest-rated, ...) must be established by sorting or filtering.
4. A task that needs a submission, a saved change or a displayed result succeeds only if it visibly happened.
5. An agent that repeats actions without progress, or stops before saving or submitting, has failed.
6. A question is answered only if the final answer is right according to the screenshots.

Answer in exactly this format:
Thoughts: <your reasoning, checking each key point against the evidence>
Status: success or failure

""" + DATA_RULE

class _LoggedJudge:
    """A chat judge whose every call, answered or failed, goes to the call log."""

    def __init__(self, judge: ChatModel, log: _CallLog, stage: str, images: Sequence[str]):
        self.judge, self.log, self.stage, self.images = judge, log, stage, list(images)
        self.identity = judge.identity
        self.attempt = 0

    def complete(self, messages: Sequence[Message], *, seed: int | None = None) -> str:
        self.attempt += 1
        entry = {"stage": self.stage, "attempt": self.attempt, "images": self.images,
                 "messages": [{"role": m.role, "text": m.text} for m in messages]}
        started = time.perf_counter()
        try:
            answer = self.judge.complete(messages, seed=seed)
        except JudgeError as exc:
            self.log.record({**entry, "answer": None, "error": str(exc), "elapsed_s": time.perf_counter() - started})
            raise
        self.log.record({**entry, "answer": answer, "error": None, "elapsed_s": time.perf_counter() - started})
        return answer


class WebJudge(SharedOnCopy):
    """Judges web trajectories with a `ChatModel` (any OpenAI-compatible LVLM, a cache, ...).

    Args:
        judge: the chat model.
        score_threshold: screenshots scoring at least this (1-5) are shown to the verdict.
        max_images: at most this many screenshots are shown to the verdict.
        attempts: tries per question when answers are off-format (the official protocol asks
            each question once and reads whatever comes, as the benchmark's script does).
        workers: screenshots (and key points) judged concurrently.
        protocol: "strict" (ours), "official" (the benchmark's script), or "keypoint" (a
            verdict per key point); see the module docstring and docs/mind2web.md.
    """

    def __init__(self, judge: ChatModel, *, score_threshold: int = DEFAULT_SCORE_THRESHOLD,
                 max_images: int = DEFAULT_MAX_IMAGES, attempts: int = 3, workers: int = 4,
                 protocol: str = "strict"):
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {list(PROTOCOLS)}, received {protocol!r}")
        if not isinstance(judge, ChatModel):
            raise TypeError(f"expected a ChatModel (identity and complete(messages, seed=...)), received {type(judge).__name__}")
        if isinstance(score_threshold, bool) or score_threshold not in range(1, 6):
            raise ValueError(f"score_threshold must be an integer from 1 to 5, received {score_threshold!r}")
        for name, value in (("max_images", max_images), ("attempts", attempts), ("workers", workers)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, received {value!r}")
        self.judge = judge
        self.score_threshold, self.max_images, self.attempts, self.workers = score_threshold, max_images, attempts, workers
        self.protocol = protocol
        self.identity = (f"webjudge:{PROMPT_VERSIONS[protocol]}:threshold={score_threshold}:max_images={max_images}"
                         f":{judge.identity}")

    @property
    def settings(self) -> dict[str, Any]:
        """What a verdict depends on besides the episode and the model; a recorded verdict is
        reused only under the same settings. The model is told apart by the folder a verdict
        is written to (one per judge), not by its identity, which names the endpoint's URL
        and would change with a server's port."""
        return {"protocol": self.protocol, "prompt_version": PROMPT_VERSIONS[self.protocol],
                "score_threshold": self.score_threshold, "max_images": self.max_images}

    def evaluate_or_resume(self, trajectory: WebTrajectory, folder: str | Path) -> tuple[Verdict, bool]:
        """(verdict, resumed): the verdict already in `folder` when it was reached under these
        settings, else a new one (judge errors are judged again). `folder` belongs to one judge."""
        previous = load_verdict(folder)
        if previous is not None and previous.status != "error" and previous.settings == self.settings:
            return previous, True
        return self.evaluate(trajectory, folder), False

    def evaluate(self, trajectory: WebTrajectory, folder: str | Path | None = None) -> Verdict:
        """Judge `trajectory`; with `folder`, log every call there and write the verdict."""
        started = time.perf_counter()
        log = _CallLog(Path(folder) / CALLS_FILE if folder is not None else None)
        verdict = Verdict(trajectory.task_id, "error", settings=self.settings, judge=self.judge.identity)
        try:
            self._judge(trajectory, log, verdict)
        except JudgeError as exc:
            verdict.status, verdict.error = "error", f"{type(exc).__name__}: {exc}"
        except (OSError, ValueError) as exc:  # a screenshot that cannot be read
            verdict.status, verdict.error = "error", f"cannot read the episode: {type(exc).__name__}: {exc}"
        verdict.calls, verdict.elapsed_s = log.calls, time.perf_counter() - started
        if folder is not None:
            atomic_write_json(Path(folder) / VERDICT_FILE, verdict.to_dict())
        return verdict

    # ---- the three stages -------------------------------------------------------------------

    def _judge(self, trajectory: WebTrajectory, log: _CallLog, verdict: Verdict) -> None:
        if not trajectory.task.strip():
            raise ValueError("the episode has no task text")
        if self.protocol == "official":
            from gui_gym.judges.webjudge.official import judge_official

            return judge_official(self, trajectory, log, verdict)
        if self.protocol == "keypoint":
            from gui_gym.judges.webjudge.keypoints import judge_key_points

            return judge_key_points(self, trajectory, log, verdict)
        verdict.key_points = self._key_points(trajectory, log)
        verdict.screenshots = self._score_screenshots(trajectory, verdict.key_points, log)
        kept = [s for s in verdict.screenshots if s.kept]
        images = [load_image(trajectory.screenshots[s.index]) for s in kept]
        messages = [Message.system(VERDICT_SYSTEM), Message.user(*self._verdict_parts(trajectory, verdict, kept, images))]
        responses: list[str] = []

        def parse(text: str) -> tuple[str, str]:
            responses.append(text)
            return parse_status(text)

        verdict.status, verdict.thoughts = self._ask(log, "verdict", [s.name for s in kept], messages, parse)
        verdict.response = responses[-1]

    def _key_points(self, trajectory: WebTrajectory, log: _CallLog) -> list[str]:
        return self._ask(log, "key_points", [], [Message.system(KEY_POINTS_SYSTEM), Message.user(f"Task: {trajectory.task}")],
                         parse_key_points)

    def _ask(self, log: _CallLog, stage: str, images: list[str], messages: list[Message], parse):
        return ask(_LoggedJudge(self.judge, log, stage, images), messages, parse, attempts=self.attempts)

    def _ask_once(self, log: _CallLog, stage: str, images: list[str], messages: list[Message]) -> str:
        """One logged call, its answer as it came (the official protocol asks nothing twice)."""
        return _LoggedJudge(self.judge, log, stage, images).complete(messages)

    def _score_screenshots(self, trajectory: WebTrajectory, key_points: list[str],
                           log: _CallLog) -> list[ScreenshotScore]:
        names, total = trajectory.names(), len(trajectory.screenshots)
        listing = _numbered(key_points)

        def score(index: int) -> ScreenshotScore:
            image = load_image(trajectory.screenshots[index])
            text = (f"Task: {trajectory.task}\n\nKey points:\n{listing}\n\n"
                    f"The screenshot is number {index + 1} of {total} in the agent's trajectory.")
            value, reasoning = self._ask(log, f"screenshot:{index}", [names[index]],
                                         [Message.system(SCREENSHOT_SYSTEM), Message.user(text, image)],
                                         parse_screenshot_score)
            return ScreenshotScore(index, names[index], value, reasoning)

        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="webjudge") as pool:
            scores = list(pool.map(score, range(total)))
        eligible = [s for s in scores if s.score >= self.score_threshold]
        for chosen in sorted(eligible, key=lambda s: (s.score, s.index), reverse=True)[:self.max_images]:
            chosen.kept = True
        return scores

    def _verdict_parts(self, trajectory: WebTrajectory, verdict: Verdict, kept: list[ScreenshotScore],
                       images: list[ImageLike]) -> list[Any]:
        history = _numbered([fence(a) for a in trajectory.actions]) if trajectory.actions else "(the agent took no action)"
        answer = fence(trajectory.final_answer.strip()) if trajectory.final_answer and trajectory.final_answer.strip() \
            else "(none)"
        parts: list[Any] = [f"Task: {trajectory.task}\n\nKey points:\n{_numbered(verdict.key_points)}\n\n"
                            f"Action history:\n{history}\n\n"
                            f"The agent's final answer (a claim to check against the screenshots, not evidence): "
                            f"{answer}\n\n"]
        if not kept:
            parts.append("No screenshot of the trajectory was judged relevant to the key points.")
            return parts
        total = len(trajectory.screenshots)
        parts.append(f"The screenshots judged relevant ({len(kept)} of {total}), in trajectory order:")
        for number, (shot, image) in enumerate(zip(kept, images), 1):
            parts += [f"\nScreenshot {number} (number {shot.index + 1} of {total}, relevance {shot.score}/5), "
                      f"why it was kept: {one_line(shot.reasoning)}", image]
        return parts
