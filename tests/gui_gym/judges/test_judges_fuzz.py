"""The fault table for judges and the OpenAI-compatible client, against a loopback chat server
that misbehaves in every way the table lists (server errors, bodies that are not JSON or are
JSON nested too deep, answers of the wrong shape, a huge answer, a server that hangs): each
call fails with a typed `JudgeError` after a bounded number of requests, and no failure is
ever counted as a success: progress stays unknown, WebJudge's verdict is an error, the agent's
step is an agent error. The judges' answer readers are fuzzed with the hostile corpus too."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from gui_gym.agents.openai_agent import OpenAIAgent
from gui_gym.benchmarks.hostile_inputs import judge_answers, judge_parsers
from gui_gym.errors import ActionParseError, AgentError, JudgeError, JudgeFormatError
from gui_gym.judges.aggregation import judge_progress
from gui_gym.models.chat import Message
from gui_gym.judges.lvlm import LVLMJudge
from gui_gym.models.openai_client import OpenAIClient
from gui_gym.judges.trajectory import Trajectory, TrajectoryStep
from gui_gym.judges.webjudge.judge import WebJudge, WebTrajectory
from tests.fakes.chat_server import ChatServer, Reply, completion

ATTEMPTS = 2
"""Client attempts per request; `ask` makes `ASK_ATTEMPTS` requests per question on top."""
ASK_ATTEMPTS = 2
CALL_BOUND_S = 30.0
"""Generous: every fault below fails in well under a second per attempt; this only catches a hang."""
HUGE = 8 * (1 << 20)


def _faults() -> dict[str, Reply]:
    """name -> the reply the server gives to every request."""
    deep = "[" * 100_000 + "]" * 100_000
    return {
        "500": Reply(status=500), "503": Reply(status=503), "429": Reply(status=429), "400": Reply(status=400),
        "HTML body": Reply(body="<html>oops</html>"), "empty body": Reply(body=""),
        "truncated JSON": Reply(body='{"choices": [{"message": {"content": "yes'),
        "JSON nested 100k deep": Reply(body=deep),
        "5000-digit number": Reply(body='{"choices": [{"message": {"content": 1' + "0" * 5000 + "}}]}"),
        "choices a string": Reply(body={"choices": "yes"}), "no choices": Reply(body={"id": 1}),
        "content an object": Reply(body=completion("x", "m") | {"choices": [{"message": {"content": {"met": True}}}]}),
        "content null": Reply(body={"choices": [{"message": {"content": None}}]}),
        "off-format answer": Reply(content="I think so, mostly."), "lone surrogate": Reply(body='{"choices": [{"message": '
                                                                                              '{"content": "\\ud800"}}]}'),
        f"{HUGE >> 20} MB answer": Reply(content="{" * HUGE), "answer nested deep": Reply(content='{"met": ' + deep + "}"),
        "hang": Reply(content='{"met": [true]}', hold=threading.Event()),
    }


ANSWERED = ("off-format answer", "lone surrogate", f"{HUGE >> 20} MB answer", "answer nested deep")
"""Faults where the endpoint does answer with text: the client returns it, the readers turn it down."""


def _judge(server: ChatServer) -> OpenAIClient:
    return OpenAIClient("m", server.base_url, attempts=ATTEMPTS, backoff_s=0.01, timeout_s=1.0)


def _trajectory() -> Trajectory:
    shot = np.zeros((60, 80, 3), np.uint8)
    return Trajectory("t", "Do the thing.", shot, steps=[TrajectoryStep({"kind": "click", "x": 1, "y": 2}, shot)])


def _serving(reply: Reply) -> ChatServer:
    return ChatServer(lambda request: reply)


@pytest.mark.parametrize("fault", list(_faults()))
def test_a_misbehaving_endpoint_is_a_bounded_typed_failure_never_a_success(fault):
    reply = _faults()[fault]
    try:
        with _serving(reply) as server:
            with _judge(server) as client:
                started = time.monotonic()
                if fault in ANSWERED:
                    assert isinstance(client.complete([Message.user("Met?")]), str)
                else:
                    with pytest.raises(JudgeError):
                        client.complete([Message.user("Met?")])
                assert time.monotonic() - started < CALL_BOUND_S
                assert 1 <= len(server.requests) <= ATTEMPTS

                before = len(server.requests)
                estimate = judge_progress(LVLMJudge(client, attempts=ASK_ATTEMPTS), _trajectory(), ["the thing is done"],
                                          seeds=[0, 1])
                assert estimate.progress is None and len(estimate.errors) == 2 and estimate.rounds == []
                assert len(server.requests) - before <= 2 * ASK_ATTEMPTS * ATTEMPTS

                verdict = WebJudge(client, attempts=ASK_ATTEMPTS, workers=1).evaluate(
                    WebTrajectory("t", "Find the price.", ["CLICK (1, 2)"], [np.zeros((60, 80, 3), np.uint8)], "$4"))
                assert verdict.status == "error" and verdict.error

            agent = OpenAIAgent(model="m", base_url=server.base_url, attempts=ATTEMPTS, timeout_s=1.0)
            agent.reset({"instruction": "Do the thing."})
            try:
                action = agent.act({"screenshot": np.zeros((60, 80, 3), np.uint8)}, {})
            except AgentError:
                pass  # the harness records the episode as an agent error
            else:  # the model "answered": its answer goes to the env's door, which turns it down
                assert fault in ANSWERED and isinstance(action, str)
            finally:
                agent.close()
    finally:
        if reply.hold is not None:
            reply.hold.set()


def test_a_judge_that_answers_off_format_is_asked_again_a_bounded_number_of_times():
    with ChatServer(lambda request: "not a verdict") as server, _judge(server) as client:
        with pytest.raises(JudgeFormatError, match=r"answered off-format 3 time\(s\)"):
            LVLMJudge(client, attempts=3).mark(_trajectory(), ["a", "b"])
        assert len(server.requests) == 3


@pytest.mark.parametrize("reader", list(judge_parsers()))
def test_every_hostile_answer_is_read_or_turned_down_fast_with_a_typed_error(reader):
    read = judge_parsers()[reader]
    failures = []
    for name, text in judge_answers().items():
        started = time.monotonic()
        try:
            read(text)
        except (JudgeFormatError, ActionParseError):
            pass
        except Exception as exc:  # a crash
            failures.append(f"{name}: {type(exc).__name__}: {exc}"[:200])
        if time.monotonic() - started > 5.0:
            failures.append(f"{name}: took {time.monotonic() - started:.1f} s")
    assert failures == []


def test_a_trickling_server_is_cut_off_by_the_call_deadline():
    body = completion('{"met": [true]}', "m")
    with ChatServer([Reply(body=body, chunk_bytes=1, chunk_delay_s=0.025)]) as server:
        with OpenAIClient("m", server.base_url, attempts=1, timeout_s=1.0) as client:
            started = time.monotonic()
            with pytest.raises(JudgeError):
                client.complete([Message.user("Met?")])  # ~250 bytes at 40 a second: 6 s without a deadline
            assert time.monotonic() - started < 4.0


def test_a_huge_body_is_not_read_whole():
    body = completion("x" * (64 << 20), "m")
    with ChatServer([Reply(body=body, chunk_bytes=1 << 16)]) as server:
        with OpenAIClient("m", server.base_url, attempts=1, timeout_s=10.0) as client:
            with pytest.raises(JudgeError):
                client.complete([Message.user("Met?")])
        deadline = time.monotonic() + 30  # the server's thread counts once its write fails
        while not server.sent_bytes and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.sent_bytes and server.sent_bytes[0] < 32 << 20
