"""Media files tasks put on the device: text pictures, silent MP3s with tags, short videos.

AndroidWorld draws text into JPEG/PNG pictures with PIL, writes MP3s with pydub (ffmpeg) and
MP4s with OpenCV. gui-gym needs neither ffmpeg nor OpenCV: a silent MP3 is a run of constant
bit-rate MPEG-2 Layer III frames whose audio is all zero (so its duration is exact to a
frame, 36 ms) behind an ID3v2.3 tag with title and artist; a video is an MP4 (ISO base media
file) holding one Motion-JPEG track, one JPEG per frame, which Android's and VLC's players
decode. Tasks check file names, tags and durations, never the codec.
"""

from __future__ import annotations

import io
import struct
from typing import Sequence

from PIL import Image, ImageDraw, ImageFont

MP3_SAMPLE_RATE = 16000
MP3_SAMPLES_PER_FRAME = 576
_MP3_BITRATE = 8000
_MP3_HEADER = bytes((0xFF, 0xF3, 0x18, 0xC0))  # MPEG-2 Layer III, 8 kbit/s, 16 kHz, mono, no CRC
_MP3_FRAME_BYTES = 72 * _MP3_BITRATE // MP3_SAMPLE_RATE  # 36, exactly: no padding slot needed


def _font(size: int) -> ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def text_image(text: str, font_size: int = 24, image_format: str = "JPEG") -> bytes:
    """`text` drawn black on white, line by line (a blank line is half a line high)."""
    font = _font(font_size)
    lines = text.split("\n")
    width = max([int(font.getbbox(line)[2]) for line in lines if line.strip()] or [1])
    height = sum(int(font.getbbox(line)[3]) if line.strip() else font_size // 2 for line in lines)
    image = Image.new("RGB", (width + 20, height + 20), "white")
    draw = ImageDraw.Draw(image)
    y = 10
    for line in lines:
        if line.strip():
            draw.text((10, y), line, fill="black", font=font)
            y += int(font.getbbox(line)[3])
        else:
            y += font_size // 2
    out = io.BytesIO()
    image.save(out, format=image_format)
    return out.getvalue()


def _id3_frame(frame_id: str, text: str) -> bytes:
    payload = b"\x01" + "\ufeff".encode("utf-16-le") + text.encode("utf-16-le") + b"\x00\x00"  # UTF-16 with BOM
    return frame_id.encode() + struct.pack(">I", len(payload)) + b"\x00\x00" + payload


def _synchsafe(n: int) -> bytes:
    return bytes(((n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F))


def silent_mp3(duration_ms: int, title: str, artist: str) -> bytes:
    """A silent MP3 of `duration_ms` (rounded to whole 36 ms frames) tagged with title and artist.

    The lowest constant rate MPEG-2 allows (8 kbit/s, 16 kHz mono) keeps a five-minute song at
    300 KB; every frame is the same size, so a player's size-based duration is exact."""
    frames = max(1, round(duration_ms / 1000 * MP3_SAMPLE_RATE / MP3_SAMPLES_PER_FRAME))
    tags = _id3_frame("TIT2", title) + _id3_frame("TPE1", artist)
    # a frame: header, side information all zero (no granule carries bits), then zero bytes: silence
    frame = _MP3_HEADER + bytes(_MP3_FRAME_BYTES - len(_MP3_HEADER))
    return b"ID3\x03\x00\x00" + _synchsafe(len(tags)) + tags + frame * frames


def mp3_duration_ms(data: bytes) -> int:
    """Duration of a constant-rate MP3 written by `silent_mp3`, from its size and bit rate."""
    tag = 10 + int.from_bytes(bytes(b & 0x7F for b in data[6:10]), "big") if data[:3] == b"ID3" else 0
    return round((len(data) - tag) * 8 * 1000 / _MP3_BITRATE)


# ---- MP4 with a Motion-JPEG track ---------------------------------------------------------------

def _box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full_box(kind: bytes, version_flags: int, *payload: bytes) -> bytes:
    return _box(kind, struct.pack(">I", version_flags), *payload)


def _matrix() -> bytes:
    return struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def video_frames(messages: Sequence[str], width: int = 320, height: int = 240, seed: int = 0) -> list[bytes]:
    """One JPEG per message: the message in yellow over a noisy background (AndroidWorld's look)."""
    import random

    rng = random.Random(seed)
    frames = []
    for message in messages:
        image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
        ImageDraw.Draw(image).text((50, height // 2 - 12), message, fill=(255, 255, 0), font=_font(24))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=70)
        frames.append(out.getvalue())
    return frames


def mjpeg_mp4(frames: Sequence[bytes], frame_seconds: Sequence[float], width: int = 320, height: int = 240) -> bytes:
    """An MP4 showing each JPEG of `frames` for the matching number of seconds."""
    if len(frames) != len(frame_seconds) or not frames:
        raise ValueError("give one display time per frame, and at least one frame")
    timescale = 1000
    durations = [max(1, round(s * timescale)) for s in frame_seconds]
    total = sum(durations)
    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2mp41")
    mdat_header = struct.pack(">I", 8 + sum(map(len, frames))) + b"mdat"
    first_offset = len(ftyp) + len(mdat_header)
    offsets, position = [], first_offset
    for frame in frames:
        offsets.append(position)
        position += len(frame)
    sample_entry = _box(b"jpeg", bytes(6), struct.pack(">H", 1), bytes(16), struct.pack(">HH", width, height),
                        struct.pack(">II", 0x480000, 0x480000), bytes(4), struct.pack(">H", 1), bytes(32),
                        struct.pack(">h", 24), struct.pack(">h", -1))
    stbl = _box(b"stbl",
                _full_box(b"stsd", 0, struct.pack(">I", 1), sample_entry),
                _full_box(b"stts", 0, struct.pack(">I", len(durations)),
                          *(struct.pack(">II", 1, d) for d in durations)),
                _full_box(b"stss", 0, struct.pack(">I", len(frames)), *(struct.pack(">I", n + 1) for n in range(len(frames)))),
                _full_box(b"stsc", 0, struct.pack(">I", 1), struct.pack(">III", 1, 1, 1)),
                _full_box(b"stsz", 0, struct.pack(">II", 0, len(frames)), *(struct.pack(">I", len(f)) for f in frames)),
                _full_box(b"stco", 0, struct.pack(">I", len(offsets)), *(struct.pack(">I", o) for o in offsets)))
    minf = _box(b"minf", _full_box(b"vmhd", 1, bytes(8)),
                _box(b"dinf", _full_box(b"dref", 0, struct.pack(">I", 1), _full_box(b"url ", 1))), stbl)
    mdia = _box(b"mdia", _full_box(b"mdhd", 0, bytes(8), struct.pack(">II", timescale, total), struct.pack(">HH", 0x55C4, 0)),
                _full_box(b"hdlr", 0, bytes(4), b"vide", bytes(12), b"VideoHandler\x00"), minf)
    tkhd = _full_box(b"tkhd", 3, bytes(8), struct.pack(">II", 1, 0), struct.pack(">I", total), bytes(8),
                     struct.pack(">hhhH", 0, 0, 0, 0), _matrix(), struct.pack(">II", width << 16, height << 16))
    mvhd = _full_box(b"mvhd", 0, bytes(8), struct.pack(">II", timescale, total), struct.pack(">IH", 0x10000, 0x100),
                     bytes(10), _matrix(), bytes(24), struct.pack(">I", 2))
    moov = _box(b"moov", mvhd, _box(b"trak", tkhd, mdia))
    return ftyp + mdat_header + b"".join(frames) + moov


def message_video(messages: Sequence[str], seconds_each: float, seed: int = 0) -> bytes:
    """A video showing each message for `seconds_each` seconds."""
    return mjpeg_mp4(video_frames(messages, seed=seed), [seconds_each] * len(messages))
