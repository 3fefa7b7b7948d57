"""The Ray tests' cluster: a real two-node cluster on this machine (`gui_gym.benchmarks.harness.local_cluster`:
a head and a second node joined to it, inside a private network namespace where loopback is
the only interface), one per test module."""

from __future__ import annotations

import pytest

from gui_gym.benchmarks.harness.local_cluster import private_network, start_cluster


@pytest.fixture(scope="module")
def cluster():
    """A module's two-node cluster inside a private network entered for the module (skipped,
    with the reason, where the host allows no network namespace); the Ray tests import it."""
    import ray

    with private_network() as reason:
        if reason is not None:
            pytest.skip(f"no private network namespace for a loopback-only Ray cluster: {reason}")
        started = start_cluster(head_cpus=2, node2_cpus=2)
        try:
            yield started
        finally:
            ray.shutdown()
            started.stop()
