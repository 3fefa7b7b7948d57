"""Chat messages: validation at the door, capped PNG encoding, content digests."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest
from PIL import Image

from gui_gym.models.chat import ChatModel, Message, SharedOnCopy, image_digest, message_digest, to_png


def png_bytes(width: int, height: int, color=(10, 20, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def test_message_keeps_text_and_images_in_order():
    image = np.zeros((4, 6, 3), np.uint8)
    message = Message.user("look: ", image, " and ", png_bytes(2, 2))
    assert message.text == "look:  and "
    assert len(message.images) == 2 and message.images[0] is image
    assert Message.assistant("ok").content == ("ok",)


@pytest.mark.parametrize("part, match", [
    (np.zeros((4, 4, 3), np.float32), "expected a uint8 image of shape HxW, HxWx3 or HxWx4, received dtype float32"),
    (np.zeros((4, 4, 5), np.uint8), r"received dtype uint8 shape \(4, 4, 5\)"),
    (b"GIF89a....", "expected PNG bytes for an image, received 10 bytes"),
    (3.5, "expected an image as a numpy uint8 array or PNG bytes, received float"),
])
def test_bad_image_parts_are_refused_with_what_was_expected(part, match):
    with pytest.raises((TypeError, ValueError), match=match):
        Message.user("x", part)


def test_bad_role_and_content_type_are_refused():
    with pytest.raises(ValueError, match=r"expected a message role in \('system', 'user', 'assistant'\), received 'tool'"):
        Message("tool", ("x",))
    with pytest.raises(TypeError, match="expected the content as a tuple of parts, received list"):
        Message("user", ["x"])


def test_to_png_caps_the_longest_side_and_keeps_the_aspect():
    screenshot = np.full((1000, 2000, 3), 200, np.uint8)
    with Image.open(io.BytesIO(to_png(screenshot, max_side=500))) as small:
        assert small.size == (500, 250)
    with Image.open(io.BytesIO(to_png(screenshot))) as full:
        assert full.size == (2000, 1000)


def test_to_png_passes_small_png_through_and_shrinks_large_png():
    small = png_bytes(100, 50)
    assert to_png(small, max_side=500) is small
    with Image.open(io.BytesIO(to_png(png_bytes(1200, 600), max_side=300))) as image:
        assert image.size == (300, 150)
    with pytest.raises(ValueError, match="max_side must be >= 1 or None, received 0"):
        to_png(small, max_side=0)


def test_digests_follow_content_not_identity():
    a = np.zeros((8, 8, 3), np.uint8)
    b = a.copy()
    assert image_digest(a) == image_digest(b)
    b[0, 0, 0] = 1
    assert image_digest(a) != image_digest(b)
    question = [Message.system("judge"), Message.user("met?", a)]
    assert message_digest(question, "m", 1) == message_digest([Message.system("judge"), Message.user("met?", a.copy())], "m", 1)
    assert message_digest(question, "m", 1) != message_digest(question, "m", 2)
    assert message_digest(question, "m", 1) != message_digest([Message.system("judge"), Message.user("met?", b)], "m", 1)
    assert message_digest(question, "m", 1) != message_digest([Message.system("judge"), Message.user("met? ", a)], "m", 1)


def test_judge_protocol_and_shared_copies():
    class Echo(SharedOnCopy):
        identity = "echo"

        def complete(self, messages, *, seed=None):
            return messages[-1].text

    echo = Echo()
    assert isinstance(echo, ChatModel) and not isinstance(object(), ChatModel)
    assert copy.deepcopy({"judge": echo})["judge"] is echo and copy.copy(echo) is echo
