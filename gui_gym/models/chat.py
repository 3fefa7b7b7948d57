"""What every chat model speaks: messages of text and images in, text out.

A chat model answers a conversation about screenshots: a served LVLM behind an
OpenAI-compatible endpoint, a local transformers checkpoint, or a cache in front of either.
Agents act with one, judges judge with one, the trainers' VLM policy generates with one.
Messages are typed data, validated at the door: an image is an HxWx3 (or HxWx4, or HxW)
uint8 array, as the envs return screenshots, or PNG bytes, as results folders store them.
The helpers here turn images into capped PNG bytes and give every message a stable digest,
so a cache can key on content and not on object identity.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Protocol, Sequence, Union, runtime_checkable

import numpy as np

from gui_gym.records import ImageLike

Part = Union[str, np.ndarray, bytes]
"""One piece of a message's content: text, or an image."""

ROLES = ("system", "user", "assistant")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_image(image: ImageLike) -> ImageLike:
    """`image` itself when it is a usable screenshot; otherwise a TypeError/ValueError that
    says what was expected."""
    if isinstance(image, bytes):
        if not image.startswith(PNG_SIGNATURE):
            raise ValueError(f"expected PNG bytes for an image, received {len(image)} bytes starting {image[:8]!r}")
        return image
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
            raise ValueError(f"expected a uint8 image of shape HxW, HxWx3 or HxWx4, received dtype "
                             f"{image.dtype} shape {image.shape}")
        if image.size == 0:
            raise ValueError(f"expected a non-empty image, received shape {image.shape}")
        return image
    raise TypeError(f"expected an image as a numpy uint8 array or PNG bytes, received {type(image).__name__}")


@dataclass(frozen=True)
class Message:
    """One chat message. `content` is a tuple of parts: strings are text, arrays and bytes
    are images, kept in order.

    >>> Message.user("Is the form sent?", np.zeros((4, 4, 3), np.uint8)).text
    'Is the form sent?'
    """

    role: str
    content: tuple[Part, ...]

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"expected a message role in {ROLES}, received {self.role!r}")
        if not isinstance(self.content, tuple):
            raise TypeError(f"expected the content as a tuple of parts, received {type(self.content).__name__}")
        for part in self.content:
            if not isinstance(part, str):
                check_image(part)

    @classmethod
    def system(cls, *parts: Part) -> "Message":
        return cls("system", tuple(parts))

    @classmethod
    def user(cls, *parts: Part) -> "Message":
        return cls("user", tuple(parts))

    @classmethod
    def assistant(cls, text: str) -> "Message":
        return cls("assistant", (text,))

    @property
    def text(self) -> str:
        """The message's text parts joined, images left out."""
        return "".join(part for part in self.content if isinstance(part, str))

    @property
    def images(self) -> list[ImageLike]:
        return [part for part in self.content if not isinstance(part, str)]


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: an agent's, a judge's or a policy's.

    `identity` names what answers (model, endpoint, sampling settings): two models with the
    same identity give answers from the same distribution, which is what a cache keys on.
    `seed` asks for a reproducible sample: independent rounds of a question use different
    seeds, and a repeated (question, seed) may be answered from a cache.
    """

    identity: str

    def complete(self, messages: Sequence[Message], *, seed: int | None = None) -> str:
        """The model's answer to `messages`. Raises `JudgeError` when the model cannot be
        reached after the client's own retries."""
        ...


class SharedOnCopy:
    """Chat models and judges are services (an HTTP client, loaded weights, a cache folder): copying one, as
    Gymnasium does with an env spec that names a wrapper's judge, shares it instead."""

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self


def to_pil(image: ImageLike):
    """The image as an RGB PIL image."""
    from PIL import Image

    check_image(image)
    if isinstance(image, bytes):
        with Image.open(io.BytesIO(image)) as opened:
            return opened.convert("RGB")
    return Image.fromarray(image).convert("RGB")


def to_png(image: ImageLike, max_side: int | None = None) -> bytes:
    """PNG bytes of `image`, downscaled (aspect kept) so that neither side exceeds
    `max_side`. PNG input already within the cap is passed through untouched."""
    if max_side is not None and max_side < 1:
        raise ValueError(f"max_side must be >= 1 or None, received {max_side}")
    check_image(image)
    if isinstance(image, bytes) and max_side is None:
        return image
    picture = to_pil(image)
    if isinstance(image, bytes) and max(picture.size) <= max_side:
        return image
    if max_side is not None and max(picture.size) > max_side:
        scale = max_side / max(picture.size)
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture = picture.resize(size, resample=3)  # bicubic
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def image_size(image: ImageLike) -> tuple[int, int]:
    """(width, height) of `image`, read from a PNG's header without decoding it."""
    check_image(image)
    if isinstance(image, bytes):
        return int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big")
    return image.shape[1], image.shape[0]


def transcript(messages: Sequence[Message]) -> list[dict[str, object]]:
    """`messages` as JSON-able data for a record: ``{"role", "content"}`` each, the content's
    text parts as they are and each image as ``{"image": [width, height]}`` (the pixels are
    the episode's screenshots already).

    >>> transcript([Message.user("Where?", np.zeros((4, 6, 3), np.uint8))])
    [{'role': 'user', 'content': ['Where?', {'image': [6, 4]}]}]
    """
    return [{"role": message.role,
             "content": [part if isinstance(part, str) else {"image": list(image_size(part))} for part in message.content]}
            for message in messages]


def image_digest(image: ImageLike) -> str:
    """A content hash of an image: the same pixels in the same encoding give the same digest."""
    check_image(image)
    digest = hashlib.sha256()
    if isinstance(image, bytes):
        digest.update(b"png:")
        digest.update(image)
    else:
        digest.update(f"array:{image.shape}:".encode())
        digest.update(np.ascontiguousarray(image).tobytes())
    return digest.hexdigest()


def message_digest(messages: Sequence[Message], *extra: object) -> str:
    """A content hash of a conversation (texts and image digests, in order) plus `extra`
    values such as the judge's identity and the seed."""
    digest = hashlib.sha256()
    for value in extra:
        digest.update(repr(value).encode())
        digest.update(b"\x00")
    for message in messages:
        digest.update(message.role.encode())
        for part in message.content:
            if isinstance(part, str):
                digest.update(b"\x01text:" + part.encode())
            else:
                digest.update(b"\x01image:" + image_digest(part).encode())
        digest.update(b"\x02")
    return digest.hexdigest()
