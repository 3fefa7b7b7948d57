"""The keypoint-wise protocol: strict's key points and screenshots, then one question per key
point; the task succeeds only if every key point is met (the mode of the Online-Mind2Web
paper's Appendix B.1 that users ask for in Online-Mind2Web issue 20)."""

from __future__ import annotations

import json
import re

from gui_gym.models.openai_client import OpenAIClient
from gui_gym.judges.webjudge.judge import KEY_POINTS_SYSTEM, SCREENSHOT_SYSTEM, WebJudge
from gui_gym.judges.webjudge.keypoints import KEY_POINT_SYSTEM
from tests.fakes.chat_server import ChatServer
from tests.gui_gym.judges.webjudge.test_webjudge_judge import KEY_POINTS, _text, _trajectory


def responder(statuses):
    """Key points, a score of 4 per screenshot, and per key point (by its number) the status
    in `statuses`, or an off-format answer where it is None."""
    def reply(request):
        system = request.messages[0]["content"]
        if system == KEY_POINTS_SYSTEM:
            return KEY_POINTS
        if system == SCREENSHOT_SYSTEM:
            return "Reasoning: the mat's page.\nScore: 4"
        assert system == KEY_POINT_SYSTEM
        number = int(re.search(r"The key point to check: (\d+)\.", _text(request)).group(1))
        status = statuses[number - 1]
        return "I think so." if status is None else f"Thoughts: point {number} checked.\nStatus: {status}"
    return reply


def _judge(server, **kwargs):
    return WebJudge(OpenAIClient(model="fake-model", base_url=server.base_url, temperature=0, backoff_s=0.01),
                    protocol="keypoint", **kwargs)


def test_every_key_point_is_judged_on_its_own_and_all_must_hold(tmp_path):
    with ChatServer(responder(["success", "failure"])) as server:
        verdict = _judge(server).evaluate(_trajectory(shots=2), tmp_path / "kp")
        asks = [r for r in server.requests if r.messages[0]["content"] == KEY_POINT_SYSTEM]
    assert (verdict.status, verdict.error) == ("failure", None)
    assert verdict.key_point_results == [
        {"key_point": "Open the Tidal Zen Yoga Mat", "status": "success", "thoughts": "point 1 checked."},
        {"key_point": "Read its price", "status": "failure", "thoughts": "point 2 checked."}]
    assert verdict.thoughts == "1. met: point 1 checked. 2. not met: point 2 checked."
    assert len(asks) == 2 and all(len(r.images()) == 2 for r in asks)
    text = _text(asks[0])
    assert "1. Open the Tidal Zen Yoga Mat\n2. Read its price" in text and "$42" in text  # the evidence strict shows
    assert sorted(re.search(r"check: (\d)\. (.*)$", _text(r)).group(2) for r in asks) == [
        "Open the Tidal Zen Yoga Mat", "Read its price"]
    calls = [json.loads(line) for line in (tmp_path / "kp" / "calls.jsonl").read_text().splitlines()]
    assert sorted(c["stage"] for c in calls if c["stage"].startswith("verdict")) == [
        "verdict:key_point:1", "verdict:key_point:2"]
    with ChatServer(responder(["success", "success"])) as server:
        assert _judge(server).evaluate(_trajectory(shots=2)).status == "success"


def test_a_key_point_that_cannot_be_judged_makes_the_verdict_an_error():
    with ChatServer(responder(["success", None])) as server:
        verdict = _judge(server, attempts=2).evaluate(_trajectory(shots=1))
    assert (verdict.status, verdict.success) == ("error", None) and "answered off-format 2 time(s)" in verdict.error
