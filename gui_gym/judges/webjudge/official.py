"""Online-Mind2Web's own WebJudge, step for step: ``WebJudge(..., protocol="official")``.

Its structure, its order, what it shows and how it reads the answers are those of the
benchmark's script (OSU-NLP-Group/Online-Mind2Web ``src/methods/webjudge_online_mind2web.py``,
the verdict read by ``extract_predication`` in ``src/utils.py``); the prompts' prose is ours,
their answer formats and field labels are the script's, since the parsing depends on them:

1. **Key points**: ``Task: <task>``. The answer's text after ``**Key Points**:`` (else after
   the last ``Key Points:``, else all of it), blank lines dropped and each line left-stripped,
   goes verbatim into the later prompts as one block.
2. **Screenshots**, each with the task and that block: the score is the first digit 1-5
   after the first ``Score`` (0 when there is none: never asked again, never an error), the
   reasoning the first paragraph after the last ``**Reasoning**:``. Those scoring at least
   the threshold are kept **in trajectory order**, the first `max_images` (50) of them.
3. **Verdict**: the task, the key points, the numbered action history and the kept
   screenshots' reasons (numbered on their own, empty ones left out), then all the images
   after the text; **no final answer**. It is a success when ``success`` appears anywhere in
   the lower-cased text between the first ``status:`` and the next one, so ``Status:
   unsuccessful`` passes (the script's bug, kept: this protocol is for numbers comparable
   with the benchmark's); an answer with no ``status:`` is a failure, not a judge error.

One departure from the script, for safety: the actions (the agent's text) are fenced as data
and the screenshots' reasons kept on one line (`gui_gym.judges.fencing`), and the verdict's
system prompt says so; the script pastes both as they are.

Only a judge that cannot be reached gives no verdict (``"error"``), as there the script stops.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gui_gym.errors import JudgeFormatError
from gui_gym.judges.fencing import DATA_RULE, fence, one_line
from gui_gym.models.chat import Message
from gui_gym.judges.webjudge.common import ScreenshotScore, Verdict, WebTrajectory, _CallLog, _numbered, load_image

KEY_POINTS_SYSTEM = """You analyse the task given to a web agent and pick out the key points its description states outright.

**Objective**: Find the elements, conditions and steps that the task description itself names as needed to reach its goal.

**Instructions**:
1. Read the task description closely.
2. List its **key points**: each a critical element, condition or step the description states.
   - Infer nothing and add nothing it does not state.
   - Superlatives and orderings such as "best", "highest", "cheapest", "latest", "most recent", "lowest", \
"closest", "highest-rated", "largest" and "newest" must be met with the website's sort control (the key point \
then reads like "Sort by lowest price").

**Respond with**:
- **Key Points**: a numbered list of the explicit key points, one per line, with no explanation."""

KEY_POINTS_USER = "Task: {task}"

SCREENSHOT_SYSTEM = """You judge whether one screenshot from a web agent's trajectory shows information about the \
steps its task needs.

**Objective**: Decide whether the image shows a step or evidence needed to complete the task. Reason first, then score.

**Instructions**:
1. Describe the image in detail: what it holds, its visible elements, any text, anything notable.

2. Weigh whether it holds steps or evidence that completing the task depends on:
- Look for what bears on the key points: actions taken, progress shown, tools used, filters applied, instructions.
- Does it show actions, progress or information that the task directly depends on?
- Is that information indispensable to understand or confirm the task's success?
- Partial but relevant information still counts, for what it is worth.

3. Answer in this format:
- **Reasoning**: your observations and why they matter, naming the elements that show necessary steps or \
evidence, or their absence.
- **Score**: a score on this scale:
    - **1**: nothing necessary or relevant.
    - **2**: little or ambiguous information, unlikely to matter.
    - **3**: some relevant steps or hints, unclear or incomplete.
    - **4**: important, highly relevant steps or evidence, though not complete.
    - **5**: clearly shows steps or evidence crucial to completing the task.

Respond with:
1. **Reasoning**: [your explanation]
2. **Score**: [1-5]"""

SCREENSHOT_USER = ("**Task**: {task}\n\n**Key Points for Task Completion**: {key_points}\n\n"
                   "The web page at this point is in the image.")

VERDICT_SYSTEM = """You evaluate a web navigation agent, which helps a user complete a task on a website. From the \
user's task, the agent's action history, the key points for completing the task, and some possibly important web \
pages of its trajectory with the reasons they were picked, decide whether the agent completed the task and met \
every requirement.

Apply these evaluation criteria strictly!
*Important Evaluation Criteria*:
1: Filtered results must be shown correctly. A filter not properly applied (a missing selection or confirmation, \
or no visible effect on the results) means the task failed.
2: Check carefully that the snapshots and the action history meet the key points. Conditions such as "best", \
"highest", "cheapest", "latest", "most recent", "lowest", "closest", "highest-rated", "largest" and "newest" must \
be applied with the website's filter or sort function.
3: Some key points must be applied as filters: a search that types every requirement into the query fails, since \
it cannot guarantee that every result meets them.
4: A required range (of money, years, or numbers of beds and bathrooms) must be matched exactly by the applied \
filter, neither broader nor narrower; any deviation fails. Failures, for instance: a filter under $25 when under \
$50 was asked; $2000-$2500 when $1500-$2500 was asked; $0-$200 when $25-$200 was asked; 2001-2012 when 2004-2012 \
was asked; 2000-2014 when before 2015 was asked; 2+ beds when exactly 2 beds were asked.
5: Some tasks succeed only with a submission, or with the results displayed.
6: If the information found is empty or invalid (e.g. "no match found") but the agent performed the required \
actions correctly, the task still succeeds.
7: If the page already shows every available item, no filter is needed: picking the items that meet the \
requirement (e.g. the cheapest) still succeeds.

*IMPORTANT*
Format your response into two lines as shown below:

Thoughts: <your reasoning, double-checking each key point and the criteria above>
Status: "success" or "failure"

""" + DATA_RULE

VERDICT_USER_NO_IMAGES = "User Task: {task}\n\nKey Points: {key_points}\n\nAction History:\n{last_actions}"
VERDICT_USER = VERDICT_USER_NO_IMAGES + ("\n\nThe snapshots of the trajectory that may matter, and why each was "
                                         "kept:\n{thoughts}")

_SCORE_DIGIT = re.compile(r"[1-5]")
_THOUGHTS = re.compile(r"thoughts:\s*(.*?)(?=status:|\Z)", re.IGNORECASE | re.DOTALL)


def read_key_points(answer: str) -> str:
    """The key-point block as the script cuts it out of the answer."""
    text = answer.replace("\n\n", "\n")
    parts = text.split("**Key Points**:")
    body = parts[1] if len(parts) > 1 else text.split("Key Points:")[-1]
    return "\n".join(line.lstrip() for line in body.splitlines())


def read_screenshot_score(answer: str) -> tuple[int, str]:
    """(score, reasoning) as the script reads them: score 0 when the answer has no ``Score``
    followed by a digit 1-5."""
    parts = answer.split("Score")
    if len(parts) < 2:
        return 0, ""
    reasoning = answer.split("**Reasoning**:")[-1].strip().split("\n\n")[0].replace("\n", " ")
    digit = _SCORE_DIGIT.search(parts[1])
    return (int(digit.group()), reasoning) if digit else (0, reasoning)


def read_status(answer: str) -> str:
    """``"success"`` when "success" occurs after the first "status:" (up to the next one),
    else ``"failure"``: the script's reading, "unsuccessful" and all."""
    parts = answer.lower().split("status:")
    return "success" if len(parts) > 1 and "success" in parts[1] else "failure"


def judge_official(webjudge: Any, trajectory: WebTrajectory, log: _CallLog, verdict: Verdict) -> None:
    """The three stages in the script's order, filling `verdict`. `webjudge` is the
    `gui_gym.judges.webjudge.judge.WebJudge` that runs the protocol (its asking and logging)."""
    task = trajectory.task
    block = read_key_points(webjudge._ask_once(log, "key_points", [], [
        Message.system(KEY_POINTS_SYSTEM), Message.user(KEY_POINTS_USER.format(task=task))]))
    verdict.key_points = [line for line in block.splitlines() if line.strip()]
    names, total = trajectory.names(), len(trajectory.screenshots)

    def score(index: int) -> ScreenshotScore:
        text = SCREENSHOT_USER.format(task=task, key_points=block)
        messages = [Message.system(SCREENSHOT_SYSTEM), Message.user(text, load_image(trajectory.screenshots[index]))]
        value, reasoning = read_screenshot_score(_answer_or_empty(webjudge, log, f"screenshot:{index}",
                                                                  [names[index]], messages))
        return ScreenshotScore(index, names[index], value, reasoning)

    with ThreadPoolExecutor(max_workers=webjudge.workers, thread_name_prefix="webjudge") as pool:
        verdict.screenshots = list(pool.map(score, range(total)))
    eligible = [s for s in verdict.screenshots if s.score >= webjudge.score_threshold]
    kept = eligible[:webjudge.max_images]
    for shot in kept:
        shot.kept = True
    # the script collects the reasons of every eligible screenshot, then cuts both lists apart
    reasons = [s.reasoning for s in eligible if s.reasoning][:webjudge.max_images]
    prompt = VERDICT_USER if kept else VERDICT_USER_NO_IMAGES
    text = prompt.format(task=task, key_points=block, last_actions=_numbered([fence(a) for a in trajectory.actions]),
                         thoughts=_numbered([one_line(r) for r in reasons]))
    images = [load_image(trajectory.screenshots[s.index]) for s in kept]
    answer = _answer_or_empty(webjudge, log, "verdict", [s.name for s in kept],
                              [Message.system(VERDICT_SYSTEM), Message.user(text, *images)])
    verdict.status, verdict.response = read_status(answer), answer
    found = _THOUGHTS.search(answer)
    verdict.thoughts = " ".join(found.group(1).split()) if found else ""


def _answer_or_empty(webjudge: Any, log: _CallLog, stage: str, images: list[str],
                     messages: list[Message]) -> str:
    """The answer, or "" for an empty one: the script reads no score (0) or no status (a
    failure) from it rather than stopping."""
    try:
        return webjudge._ask_once(log, stage, images, messages)
    except JudgeFormatError as exc:
        return exc.answer
