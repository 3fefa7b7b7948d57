"""BEPA's LEVEL-2 cache rules: inject only on all-fail, refresh on success."""

from __future__ import annotations

import pytest

from gui_gym.trainers.bepa import TaskCache, mix_group
from gui_gym.trainers.bepa import luffy_weight


def test_injects_only_when_every_rollout_fails():
    cache = TaskCache()
    cache.put("t", "expert", "level1")
    result = mix_group("t", ["a", "b", "c"], [0.0, 0.0, 0.0], cache)
    assert result.injected and result.all_failed
    assert result.rollouts == ["expert", "b", "c"] and result.scores == [1.0, 0.0, 0.0]
    result = mix_group("t", ["a", "b"], [1.0, 0.0], cache)
    assert not result.injected and result.rollouts == ["a", "b"]


def test_no_cache_entry_no_injection():
    result = mix_group("unseen", ["a", "b"], [0.0, 0.0], TaskCache())
    assert result.all_failed and not result.injected and result.rollouts == ["a", "b"]


def test_successes_refresh_the_cache_with_the_newest():
    cache = TaskCache()
    cache.put("t", "expert", "level1")
    mix_group("t", ["s1", "f", "s2"], [1.0, 0.0, 1.0], cache)
    entry = cache.get("t")
    assert entry.trajectory == "s2" and entry.source == "on_policy"
    assert mix_group("t", ["x", "y"], [0.0, 0.0], cache).rollouts == ["s2", "y"]


def test_fifo_capacity_keeps_k_and_injects_newest():
    cache = TaskCache(capacity=2)
    for name in ("a", "b", "c"):
        cache.put("t", name, "on_policy")
    assert cache.get("t").trajectory == "c" and len(cache) == 1
    with pytest.raises(ValueError, match="capacity must be >= 1"):
        TaskCache(0)
    with pytest.raises(ValueError, match="source must be"):
        cache.put("t", "z", "teacher")


def test_luffy_weight():
    assert luffy_weight(0.1) == pytest.approx(0.5) and luffy_weight(0.9) == pytest.approx(0.9)


def test_static_mixing_injects_into_every_group_and_never_refreshes():
    cache = TaskCache(1)
    cache.put("t", "expert", "expert")
    result = mix_group("t", ["r0", "r1"], [1.0, 0.0], cache, static=True)
    assert result.rollouts == ["expert", "r1"] and result.injected and not result.all_failed
    assert cache.get("t").trajectory == "expert"  # the policy's success did not replace it
