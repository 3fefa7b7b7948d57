"""A disk cache in front of any judge, keyed by content, so a repeated question costs nothing.

The key hashes the judge's identity, the seed and every message (texts, and images by their
pixels), so the same question asked again (a rerun of a benchmark, a resumed training run,
criteria rebuilt from the same results) is answered from disk, while a changed screenshot,
prompt, model or seed misses. Entries are written atomically (temp file + rename); an entry
that cannot be read is treated as a miss and rewritten. Errors are never cached.
"""

from __future__ import annotations

import logging
import json
import os
from pathlib import Path
from typing import Sequence

from gui_gym.models.chat import ChatModel, Message, SharedOnCopy, message_digest
from gui_gym.records import atomic_write_json

logger = logging.getLogger(__name__)


class CachedJudge(SharedOnCopy):
    """`judge` with answers remembered under `directory`.

    >>> import tempfile
    >>> class Echo:
    ...     identity = "echo"
    ...     def complete(self, messages, *, seed=None):
    ...         return messages[-1].text
    >>> cached = CachedJudge(Echo(), tempfile.mkdtemp())
    >>> cached.complete([Message.user("hi")]), cached.complete([Message.user("hi")])
    ('hi', 'hi')
    >>> cached.hits, cached.misses
    (1, 1)
    """

    def __init__(self, judge: ChatModel, directory: str | os.PathLike[str]):
        if not isinstance(judge, ChatModel):
            raise TypeError(f"expected a ChatModel (identity and complete(messages, seed=...)), received {type(judge).__name__}")
        self.judge = judge
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.identity = judge.identity
        self.hits = 0
        self.misses = 0

    def complete(self, messages: Sequence[Message], *, seed: int | None = None) -> str:
        key = message_digest(messages, self.identity, seed)
        path = self.directory / key[:2] / f"{key}.json"
        answer = self._read(path)
        if answer is not None:
            self.hits += 1
            return answer
        self.misses += 1
        answer = self.judge.complete(messages, seed=seed)
        atomic_write_json(path, {"identity": self.identity, "seed": seed, "answer": answer})
        return answer

    def close(self) -> None:
        close = getattr(self.judge, "close", None)
        if close is not None:
            close()

    @staticmethod
    def _read(path: Path) -> str | None:
        try:
            answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            logger.warning("cached answer %s cannot be read (%s); asking the model again", path, exc)
            return None
        return answer if isinstance(answer, str) else None

