"""Work on untrusted content in a bounded child interpreter: past its memory, CPU or
wall-clock bound it is killed and the caller gets LimitExceededError; the caller's own memory
never holds what the child built."""

from __future__ import annotations

import pytest

from gui_gym.errors import LimitExceededError, MissingResourceError
from gui_gym.runtime.bounded_call import Bounds, CallFailed, call_bounded

HERE = "tests.gui_gym.runtime.test_runtime_bounded_call"


def grow(mib: int) -> int:
    blocks = [bytearray(1 << 20) for _ in range(mib)]
    return len(blocks)


def spin() -> None:
    while True:
        pass


def chatty(value: float) -> float:
    print("a metric that prints")
    return value


def missing() -> None:
    raise MissingResourceError("pandas is not installed")


def broken() -> None:
    raise ValueError("not a workbook")


def empty_lists(count: int) -> list:
    return [[] for _ in range(count)]


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def vm_hwm_kib() -> int:
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])


def test_what_fits_its_bounds_answers_and_prints_do_not_mix_with_the_answer():
    assert call_bounded(f"{HERE}:grow", (64,), Bounds(memory_bytes=512 << 20)) == 64
    assert call_bounded(f"{HERE}:chatty", (0.5,), Bounds()) == 0.5


def test_memory_past_the_bound_is_a_limit_and_stays_out_of_the_callers_memory():
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # restart this process's peak-memory count
    before = vm_hwm_kib()
    with pytest.raises(LimitExceededError, match="ran out of its memory bound|under its 256 MiB memory bound"):
        call_bounded(f"{HERE}:grow", (1024,), Bounds(memory_bytes=256 << 20))
    assert vm_hwm_kib() - before < 50 << 10  # the GiB was asked for in the child, not here


def test_cpu_and_wall_clock_past_their_bounds_are_limits():
    with pytest.raises(LimitExceededError, match="ran past its 1 CPU-second bound"):
        call_bounded(f"{HERE}:spin", (), Bounds(cpu_s=1, wall_s=600))
    with pytest.raises(LimitExceededError, match="ran past its 2 s wall-clock bound"):
        call_bounded(f"{HERE}:spin", (), Bounds(cpu_s=600, wall_s=2))


def test_typed_errors_keep_their_type_and_others_are_call_failures():
    with pytest.raises(MissingResourceError, match="pandas is not installed"):
        call_bounded(f"{HERE}:missing", (), Bounds())
    with pytest.raises(CallFailed, match="ValueError: not a workbook"):
        call_bounded(f"{HERE}:broken", (), Bounds())


def test_an_answer_too_costly_to_read_back_is_a_limit_and_never_reaches_the_caller():
    """The attack: an answer under the byte cap that is costly to read back (4M empty lists
    are 16.0 MB of JSON, under the 16 MiB cap, and ~+270 MiB to read), or nested past what
    JSON can write (the child died writing it)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    before = vm_hwm_kib()
    with pytest.raises(LimitExceededError, match="the answer holds over 500000 values"):
        call_bounded(f"{HERE}:empty_lists", (4_000_000,), Bounds())  # 16.0 MB of JSON
    assert vm_hwm_kib() - before < 50 << 10
    with pytest.raises(LimitExceededError, match="the answer is nested over 100 levels deep"):
        call_bounded(f"{HERE}:nested", (5_000,), Bounds())
    assert len(call_bounded(f"{HERE}:empty_lists", (50_000,), Bounds())) == 50_000
    assert call_bounded(f"{HERE}:nested", (99,), Bounds()) == nested(99)
