"""The OpenAI-compatible client against a loopback chat-completions server: request shape,
images as capped base64 PNG, settings from the environment, retries, timeouts, errors."""

from __future__ import annotations

import base64
import io
import threading
import time
import tracemalloc

import numpy as np
import pytest
from PIL import Image

from gui_gym.errors import JudgeError, JudgeFormatError, MissingResourceError
from gui_gym.models.chat import Message
from gui_gym.models.openai_client import OpenAIClient
from tests.fakes.chat_server import ChatServer, Reply


@pytest.fixture
def server():
    with ChatServer() as server:
        yield server


def test_request_carries_model_sampling_seed_and_capped_png_images(server):
    server.push('{"met": [true]}')
    screenshot = np.zeros((720, 1280, 3), np.uint8)
    screenshot[:, :640] = 255
    with OpenAIClient("qwen-vl", server.base_url, "sk-test", temperature=0.3, max_tokens=64, max_image_side=320) as judge:
        answer = judge.complete([Message.system("You judge."), Message.user("Met?", screenshot)], seed=11)
    assert answer == '{"met": [true]}'
    body = server.requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == ("qwen-vl", 0.3, 64, 11)
    assert body["messages"][0] == {"role": "system", "content": "You judge."}
    text, image = body["messages"][1]["content"]
    assert text == {"type": "text", "text": "Met?"}
    prefix = "data:image/png;base64,"
    assert image["type"] == "image_url" and image["image_url"]["url"].startswith(prefix)
    with Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"][len(prefix):]))) as sent:
        assert sent.size == (320, 180)
        assert sent.getpixel((10, 10)) == (255, 255, 255) and sent.getpixel((310, 10)) == (0, 0, 0)
    assert server.requests[0].headers["Authorization"] == "Bearer sk-test"


def test_the_answer_cap_goes_under_max_completion_tokens_for_a_reasoning_model(server):
    server.push("one", "two")
    with OpenAIClient("o4-mini", server.base_url, max_tokens=64, max_tokens_field="max_completion_tokens") as judge:
        assert judge.complete([Message.user("hi")]) == "one"
        judge.respond([Message.user("hi")], max_tokens=1)  # a caller's own cap goes there too
        assert judge.identity == f"openai:{server.base_url}:o4-mini:t=0.7:max_completion_tokens=64:side=1280"
    first, second = (request.body for request in server.requests)
    assert first["max_completion_tokens"] == 64 and second["max_completion_tokens"] == 1
    assert "max_tokens" not in first and "max_tokens" not in second
    with pytest.raises(ValueError, match=r"max_tokens_field must be one of \['max_tokens', 'max_completion_tokens'\], "
                                         r"received 'max_output_tokens'"):
        OpenAIClient("m", server.base_url, max_tokens_field="max_output_tokens")


def test_settings_come_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("GUI_GYM_JUDGE_BASE_URL", server.base_url + "/")
    monkeypatch.setenv("GUI_GYM_JUDGE_MODEL", "env-model")
    monkeypatch.delenv("GUI_GYM_JUDGE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server.push("fine")
    with OpenAIClient() as judge:
        assert judge.complete([Message.user("hi")]) == "fine"
        assert judge.identity == f"openai:{server.base_url}:env-model:t=0.7:max_tokens=1024:side=1280"
    assert server.requests[0].body["model"] == "env-model" and "seed" not in server.requests[0].body
    assert server.requests[0].headers["Authorization"] == "Bearer sk-env"


def test_missing_endpoint_or_model_names_the_variable(monkeypatch):
    for name in ("GUI_GYM_JUDGE_BASE_URL", "OPENAI_BASE_URL", "GUI_GYM_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(MissingResourceError, match="no judge endpoint: pass base_url=... or set GUI_GYM_JUDGE_BASE_URL"):
        OpenAIClient("m")
    with pytest.raises(MissingResourceError, match="no judge model: pass model=... or set GUI_GYM_JUDGE_MODEL"):
        OpenAIClient(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="expected base_url to start with http:// or https://, received 'localhost:8000'"):
        OpenAIClient("m", "localhost:8000")


def test_rate_limits_and_server_errors_are_retried(server):
    server.push(Reply(status=429), Reply(status=503), "third time lucky")
    with OpenAIClient("m", server.base_url, attempts=3, backoff_s=0.01) as judge:
        assert judge.complete([Message.user("hi")]) == "third time lucky"
    assert len(server.requests) == 3


def test_retries_run_out_into_a_judge_error(server):
    server.push(Reply(status=500), Reply(status=502))
    with OpenAIClient("m", server.base_url, attempts=2, backoff_s=0.01) as judge:
        with pytest.raises(JudgeError, match=r"failed after 2 attempt\(s\): _Retryable: HTTP 502"):
            judge.complete([Message.user("hi")])


def test_a_refused_request_is_not_retried(server):
    server.push(Reply(status=400), "never asked")
    with OpenAIClient("m", server.base_url, attempts=4, backoff_s=0.01) as judge:
        with pytest.raises(JudgeError, match="refused the request: HTTP 400"):
            judge.complete([Message.user("hi")])
    assert len(server.requests) == 1


def test_a_hanging_server_times_out_and_is_retried(server):
    release = threading.Event()
    server.push(Reply(content="late", hold=release), "on time")
    try:
        with OpenAIClient("m", server.base_url, timeout_s=0.3, attempts=2, backoff_s=0.01) as judge:
            assert judge.complete([Message.user("hi")]) == "on time"
    finally:
        release.set()
    assert len(server.requests) == 2


@pytest.mark.parametrize("attempts", [1, 2])
def test_a_server_that_trickles_its_answer_cannot_hold_a_call_past_its_deadline(server, attempts):
    server.push(*[Reply(content="slow", trickle_s=0.5)] * attempts)  # a byte every 0.5 s: no read ever times out
    with OpenAIClient("m", server.base_url, timeout_s=2, attempts=attempts, backoff_s=0.1) as judge:
        started = time.monotonic()
        with pytest.raises(JudgeError, match=rf"failed after {attempts} attempt\(s\): ReadTimeout"):
            judge.complete([Message.user("hi")])
        elapsed = time.monotonic() - started
    assert elapsed < attempts * 2 + 0.1 + 1.5, elapsed  # each attempt ends at its 2 s deadline (was: past 60 s)
    assert len(server.requests) == attempts


@pytest.mark.parametrize("chunked", [False, True])
def test_a_huge_answer_is_refused_without_reading_it_into_memory(server, chunked):
    server.push(Reply(pad_to_bytes=200 * 2**20, chunked=chunked), "fine")
    with OpenAIClient("m", server.base_url, attempts=3, backoff_s=0.01) as judge:
        tracemalloc.start()
        try:
            with pytest.raises(JudgeError, match="sent an answer too large to accept: the answer is 209715" if not chunked
                               else "sent an answer too large to accept: the answer passed the 16777216 bytes"):
                judge.complete([Message.user("hi")])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 64 * 2**20, peak  # a 200 MB answer once took 656 MB
        assert len(server.requests) == 1  # not retried: asking again gets the same answer
        assert judge.complete([Message.user("hi")]) == "fine"  # the client is still fine
    with OpenAIClient("m", server.base_url, max_answer_bytes=10) as small:
        server.push("twelve chars")
        with pytest.raises(JudgeError, match="more than the 10 accepted"):
            small.complete([Message.user("hi")])


def test_malformed_completions_are_errors_not_answers(server):
    server.push(Reply(body="<html>oops</html>"), Reply(body='{"choices": []}'),
                Reply(body={"choices": [{"message": {"content": None}}]}), Reply(content="  "))
    with OpenAIClient("m", server.base_url, attempts=1) as judge:
        with pytest.raises(JudgeError, match="answered with a body that is not JSON: '<html>oops</html>'"):
            judge.complete([Message.user("hi")])
        with pytest.raises(JudgeError, match=r"expected a chat completion with choices\[0\]\.message\.content"):
            judge.complete([Message.user("hi")])
        with pytest.raises(JudgeFormatError, match="expected a non-empty text answer, received None"):
            judge.complete([Message.user("hi")])
        with pytest.raises(JudgeFormatError, match="expected a non-empty text answer, received '  '"):
            judge.complete([Message.user("hi")])


def test_unreachable_endpoint_is_a_judge_error():
    with ChatServer() as gone:
        url = gone.base_url
    with OpenAIClient("m", url, attempts=2, backoff_s=0.01, timeout_s=2) as judge:
        with pytest.raises(JudgeError, match=r"failed after 2 attempt\(s\): ConnectError"):
            judge.complete([Message.user("hi")])
