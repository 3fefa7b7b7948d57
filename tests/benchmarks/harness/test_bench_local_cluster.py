"""The project's own loopback Ray cluster on a machine where Ray ran before: token
authentication on, with the cluster's own token handed to its nodes, its driver and any client
given it; a client without it is refused; what ``~/.ray/auth_token`` holds plays no part."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gui_gym.benchmarks.harness.local_cluster import private_network, start_cluster
from gui_gym.remote.ray_auth import MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV

pytestmark = pytest.mark.slow

EARLIER_TOKEN = "token-of-a-cluster-ray-init-started-earlier"
"""What Ray 2.60 leaves in ~/.ray/auth_token after any new local cluster."""
CLIENT = textwrap.dedent("""
    import sys
    import ray
    from gui_gym.remote import connect
    try:
        connect(sys.argv[1])
    except Exception as exc:
        print("refused:", type(exc).__name__, str(exc).splitlines()[0][:300])
        sys.exit(3)
    print("joined", sum(node["Alive"] for node in ray.nodes()))
""")


@pytest.fixture(scope="module")
def home_and_cluster(tmp_path_factory):
    """A HOME whose ~/.ray/auth_token is another cluster's, and a two-node cluster started there."""
    import ray

    home = tmp_path_factory.mktemp("home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(EARLIER_TOKEN)
    with private_network() as reason, pytest.MonkeyPatch.context() as patch:
        if reason is not None:
            pytest.skip(f"no private network namespace for a loopback-only Ray cluster: {reason}")
        patch.setenv("HOME", str(home))
        for name in (MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV):
            patch.delenv(name, raising=False)
        cluster = start_cluster(head_cpus=1, node2_cpus=1)
        try:
            yield home, cluster
        finally:
            ray.shutdown()
            cluster.stop()


def test_a_private_network_lasts_for_its_block_only():
    """What the worker runs after a cluster's module (a browser) sees the host's interfaces again."""
    own = os.readlink("/proc/thread-self/ns/net")
    with private_network() as reason:
        if reason is not None:
            pytest.skip(f"no private network namespace: {reason}")
        assert os.readlink("/proc/thread-self/ns/net") != own
    assert os.readlink("/proc/thread-self/ns/net") == own


def _client(home: Path, address: str, **env: str) -> subprocess.CompletedProcess:
    """A fresh Python process joining `address` through `gui_gym.remote.connect`, with HOME and
    only the Ray authentication variables given."""
    clean = {"HOME": str(home), "PATH": "/usr/bin:/bin", "RAY_USAGE_STATS_ENABLED": "0", **env}
    return subprocess.run([sys.executable, "-c", CLIENT, address], capture_output=True, text=True, timeout=180, env=clean)


def test_both_nodes_and_the_driver_share_the_clusters_token_whatever_home_holds(home_and_cluster):
    import ray

    home, cluster = home_and_cluster
    token = cluster.token_path.read_text()
    assert token != EARLIER_TOKEN and len(token) == 64 and (cluster.token_path.stat().st_mode & 0o777) == 0o600
    assert os.environ[MODE_ENV] == "token" and os.environ[TOKEN_PATH_ENV] == str(cluster.token_path)
    assert sum(node["Alive"] for node in ray.nodes()) == 2  # `ray start --address` joined the token-mode head

    @ray.remote(resources={"node2": 1})
    def on_node2() -> str:
        return ray.get_runtime_context().get_node_id()

    assert ray.get(on_node2.remote(), timeout=120) in {node["NodeID"] for node in ray.nodes()}
    assert (home / ".ray" / "auth_token").read_text() == EARLIER_TOKEN  # left as it was


def test_a_client_given_the_token_joins_and_one_without_it_is_refused(home_and_cluster):
    home, cluster = home_and_cluster
    joined = _client(home, cluster.address, **{TOKEN_PATH_ENV: str(cluster.token_path)})
    assert joined.returncode == 0 and joined.stdout.strip() == "joined 2", joined.stdout + joined.stderr
    by_value = _client(home, cluster.address, **{TOKEN_ENV: cluster.token_path.read_text()})
    assert by_value.returncode == 0, by_value.stdout + by_value.stderr
    for env in ({}, {MODE_ENV: "token"}, {TOKEN_ENV: "not-the-token"}):  # no token; ~/.ray's; a wrong one
        refused = _client(home, cluster.address, **env)
        # at once, saying what to do (Ray's own join retries ~20 s, then says "Failed to connect")
        assert refused.returncode == 3 and "refused: TokenRefused" in refused.stdout, (env, refused.stdout + refused.stderr)
        assert TOKEN_PATH_ENV in refused.stdout, refused.stdout
