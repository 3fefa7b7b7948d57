"""The process's watchdog: deadlines fire in order on threads of their own, a cancelled one
never fires, and cancelling one that fired waits for its callback."""

from __future__ import annotations

import threading
import time

from gui_gym.runtime.deadlines import Watchdog


def test_deadlines_fire_in_order_and_cancelled_ones_never_do():
    watchdog, fired, lock = Watchdog(), [], threading.Lock()

    def note(name):
        def callback():
            with lock:
                fired.append(name)
        return callback

    late = watchdog.arm(0.3, note("late"))
    early = watchdog.arm(0.05, note("early"))  # due before the one the watchdog sleeps on
    never = watchdog.arm(0.1, note("never"))
    assert watchdog.cancel(never)
    assert early.done.wait(5) and late.done.wait(5)
    assert fired == ["early", "late"] and not never.done.is_set()
    assert not watchdog.cancel(late)  # it fired: cancelling says so


def test_cancelling_a_fired_deadline_waits_for_its_callback_and_a_slow_one_delays_no_other():
    watchdog, release, finished = Watchdog(), threading.Event(), []

    def slow():
        release.wait(5)
        finished.append("slow")

    slow_deadline = watchdog.arm(0.01, slow)
    quick = watchdog.arm(0.05, lambda: finished.append("quick"))
    assert quick.done.wait(5)  # while the slow callback still blocks
    threading.Timer(0.2, release.set).start()
    started = time.monotonic()
    assert not watchdog.cancel(slow_deadline)
    assert finished == ["quick", "slow"] and time.monotonic() - started > 0.1


def test_cancelled_deadlines_do_not_pile_up():
    # Every call arms one and nearly every call cancels it long before it is due (a 120 s step
    # bound): the heap is rebuilt without them rather than growing with the step rate.
    watchdog = Watchdog()
    for _ in range(5000):
        assert watchdog.cancel(watchdog.arm(120.0, lambda: None))
    assert len(watchdog._heap) <= 2 * 1024 + 2
    due = watchdog.arm(0.01, lambda: None)
    assert due.done.wait(5)
