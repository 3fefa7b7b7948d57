"""The official WebJudge protocol against the benchmark's own script, on the same inputs.

Expected values are written from OSU-NLP-Group/Online-Mind2Web ``src/methods/
webjudge_online_mind2web.py`` (``WebJudge_Online_Mind2Web_eval``) and ``src/utils.py``
(``extract_predication``, mode ``WebJudge_Online_Mind2Web_eval``); each test names the
statement it follows. The judge is the real OpenAI-compatible client against a loopback chat
server answering by stage.
"""

from __future__ import annotations

import json

import pytest

from gui_gym.models.openai_client import OpenAIClient
from gui_gym.judges.webjudge.judge import WebJudge, WebTrajectory
from gui_gym.judges.webjudge.official import (KEY_POINTS_SYSTEM, SCREENSHOT_SYSTEM, VERDICT_SYSTEM, read_key_points,
                                              read_screenshot_score, read_status)
from tests.fakes.chat_server import ChatServer
from tests.gui_gym.judges.webjudge.test_webjudge_judge import _png, _text


@pytest.mark.parametrize("answer, block", [
    # `key_points.replace("\n\n", "\n")`, then `split("**Key Points**:")[1]`, lines lstripped
    ("**Key Points**:\n\n1. Open the mat\n   2. Read its price", "\n1. Open the mat\n2. Read its price"),
    # no bold header: the except branch, `split("Key Points:")[-1]`
    ("Sure.\nKey Points:\n1. Sort by price", "\n1. Sort by price"),
    ("1. Sort by price\n2. Pick the first", "1. Sort by price\n2. Pick the first"),  # no header: all of it
])
def test_key_points_are_cut_as_the_script_cuts_them(answer, block):
    assert read_key_points(answer) == block


@pytest.mark.parametrize("answer, expected", [
    # `response.split("Score")[1]`, the first of `re.findall(r"[1-5]", ...)`; the reasoning is
    # `response.split("**Reasoning**:")[-1].strip().split("\n\n")[0].replace("\n", " ")`
    ("1. **Reasoning**: the results,\nsorted.\n\nMore.\n2. **Score**: 4", (4, "the results, sorted.")),
    ("**Reasoning**: blank.\n\n**Score**: 7, or rather 2", (2, "blank.")),   # 7 is no digit 1-5
    ("**Reasoning**: a form.\n**Score**: 4", (4, "a form. **Score**: 4")),    # a paragraph runs on
    ("Reasoning: a cart. Score: 0", (0, "Reasoning: a cart. Score: 0")),     # no digit 1-5: score 0
    ("**Reasoning**: no score given.", (0, "")),                            # no "Score": score 0
    ("The score is 5.", (0, "")),                                           # "score" lower case: no split
])
def test_screenshot_scores_are_read_as_the_script_reads_them(answer, expected):
    assert read_screenshot_score(answer) == expected


@pytest.mark.parametrize("answer, status", [
    # `"success" in response.lower().split("status:")[1]`, else 0; no "status:" raises -> 0
    ("Thoughts: fine.\nStatus: success", "success"),
    ('Thoughts: fine.\nStatus: "Success"', "success"),
    ("Thoughts: a filter is missing.\nStatus: unsuccessful", "success"),   # the documented bug
    ("Thoughts: no.\nStatus: failure, not a success", "success"),           # "success" after status:
    ("Thoughts: a success? no.\nStatus: failure", "failure"),               # before status: does not count
    ("Thoughts: done.\nStatus: failure\nStatus: success", "failure"),       # only up to the next status:
    ("The agent succeeded.", "failure"),                                    # no status line: a failure
    ("", "failure"),
])
def test_the_verdict_is_read_as_the_script_reads_it(answer, status):
    assert read_status(answer) == status


def responder(scores, verdict="Thoughts: checked.\nStatus: unsuccessful"):
    """Answers by stage: key points, a score per screenshot (by its gray level), a verdict."""
    def reply(request):
        system = request.messages[0]["content"]
        if system == KEY_POINTS_SYSTEM:
            return "**Key Points**:\n1. Open the mat\n\n2. Read its price"
        if system == SCREENSHOT_SYSTEM:
            level = _level(request.images()[0])
            score = scores[level // 10]
            return (f"1. **Reasoning**: screen {level // 10}\nshows the mat.\n\n2. **Score**: {score}"
                    if score else "I cannot judge this one.")
        assert system == VERDICT_SYSTEM
        return verdict
    return reply


def _level(data_url: str) -> int:
    import base64
    import io

    import numpy as np
    from PIL import Image

    return int(np.asarray(Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))))[0, 0, 0])


def _trajectory(shots):
    return WebTrajectory("shop.price", "What does the Tidal Zen Yoga Mat cost?", ["CLICK (10, 20)", "TYPE 'yoga mat'"],
                         [_png(10 * i) for i in range(shots)], "$42", [f"{i}_screenshot.png" for i in range(shots)])


def _judge(server, **kwargs) -> WebJudge:
    chat = OpenAIClient(model="fake-model", base_url=server.base_url, temperature=0, backoff_s=0.01)
    return WebJudge(chat, protocol="official", **kwargs)


def test_the_official_protocol_keeps_the_first_screenshots_in_order_and_shows_no_answer(tmp_path):
    """`whole_content_img` gathers every screenshot scoring >= the threshold in trajectory
    order and is cut to `[:MAX_IMAGE]`; the verdict prompt is task, key points, the numbered
    action history and the reasons, then the images after the text, and no final answer; a
    screenshot answer without a score is score 0 and is not asked again; "Status:
    unsuccessful" is a success."""
    scores = (3, 0, 4, 5, 5)  # screenshot 1 answers with no score
    with ChatServer(responder(scores)) as server:
        verdict = _judge(server, max_images=2).evaluate(_trajectory(5), tmp_path / "official")
        requests = server.requests
    assert (verdict.status, verdict.error) == ("success", None)
    assert [(s.index, s.score, s.kept) for s in verdict.screenshots] == [
        (0, 3, True), (1, 0, False), (2, 4, True), (3, 5, False), (4, 5, False)]  # strict would keep 3 and 4
    assert len(requests) == 1 + 5 + 1 and verdict.calls == 7                  # nothing asked twice
    assert verdict.key_points == ["1. Open the mat", "2. Read its price"]
    shot = next(r for r in requests if r.messages[0]["content"] == SCREENSHOT_SYSTEM)
    assert _text(shot).startswith("**Task**: What does the Tidal Zen Yoga Mat cost?\n\n"
                                  "**Key Points for Task Completion**: \n1. Open the mat\n2. Read its price\n\n")
    final = requests[-1]
    parts = final.messages[1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
    assert [_level(url) // 10 for url in final.images()] == [0, 2]
    text = parts[0]["text"]
    assert text.startswith("User Task: What does the Tidal Zen Yoga Mat cost?\n\nKey Points: \n1. Open the mat\n"
                           "2. Read its price\n\nAction History:\n1. <agent_text>\"CLICK (10, 20)\"</agent_text>\n"
                           "2. <agent_text>\"TYPE 'yoga mat'\"</agent_text>\n\n")
    assert text.endswith(':\n1. "screen 0 shows the mat."\n2. "screen 2 shows the mat."')
    assert "$42" not in text
    record = json.loads((tmp_path / "official" / "verdict.json").read_text())
    assert record["settings"]["protocol"] == "official" and record["response"].endswith("Status: unsuccessful")


def test_without_kept_screenshots_the_verdict_has_no_snapshot_section():
    """`if len(whole_content_img) == 0:` the prompt stops after the action history."""
    with ChatServer(responder((1, 2), verdict="Thoughts: nothing shown.")) as server:
        verdict = _judge(server).evaluate(_trajectory(2))
        final = server.requests[-1]
    assert verdict.status == "failure" and final.images() == []             # no "status:": a failure
    assert _text(final).endswith("Action History:\n1. <agent_text>\"CLICK (10, 20)\"</agent_text>\n"
                                 "2. <agent_text>\"TYPE 'yoga mat'\"</agent_text>")


def test_protocols_are_named_and_checked():
    with ChatServer(responder((3,))) as server:
        strict = WebJudge(OpenAIClient(model="m", base_url=server.base_url))
        official = _judge(server)
        assert strict.settings["protocol"] == "strict" and official.settings["protocol"] == "official"
        assert strict.settings != official.settings and "webjudge-official-v2" in official.identity
        with pytest.raises(ValueError, match=r"protocol must be one of \['strict', 'official', 'keypoint'\], "
                                             r"received 'loose'"):
            WebJudge(strict.judge, protocol="loose")
