"""Ray token authentication as gui-gym hands it out: a cluster's own token file, the node
environment that names it (and nothing else), the driver switched to it and back, and a client
switched to token mode when it was handed a token. Ray's own loader is asked what it sees; a
HOME whose ~/.ray/auth_token holds another token plays no part. (A real cluster:
tests/benchmarks/harness/test_bench_local_cluster.py.)"""

from __future__ import annotations

import os

import pytest

from gui_gym.remote.ray_auth import (MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV, check_token, client_mode_from_token,
                                     new_token_file, restore, token_env, use_token)
from gui_gym.runtime.loopback import free_port

ray_raylet = pytest.importorskip("ray._raylet")


@pytest.fixture()
def earlier_home(tmp_path, monkeypatch):
    """A HOME where Ray ran before (its ~/.ray/auth_token), and no Ray authentication variable."""
    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text("token-of-an-earlier-cluster")
    monkeypatch.setenv("HOME", str(home))
    for name in (MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV):
        monkeypatch.delenv(name, raising=False)
    yield home
    restore({MODE_ENV: None, TOKEN_ENV: None, TOKEN_PATH_ENV: None})  # Ray's caches read the clean env again


def _ray_sees() -> tuple[str, str | None]:
    loader = ray_raylet.AuthenticationTokenLoader.instance()
    mode = "token" if ray_raylet.get_authentication_mode() == ray_raylet.AuthenticationMode.TOKEN else "disabled"
    return mode, loader.get_raw_token() if loader.has_token(ignore_auth_mode=True) else None


def test_a_clusters_token_file_is_new_random_and_its_owners_only(tmp_path):
    path = new_token_file(tmp_path)
    token = path.read_text()
    assert len(token) == 64 and int(token, 16) >= 0 and (path.stat().st_mode & 0o777) == 0o600
    (tmp_path / "other").mkdir()
    assert new_token_file(tmp_path / "other").read_text() != token
    with pytest.raises(FileExistsError):
        new_token_file(tmp_path)  # never overwrites a token another cluster may use


def test_a_nodes_environment_names_the_clusters_file_and_no_other_token(tmp_path):
    env = token_env(tmp_path / "auth_token", {"PATH": "/bin", TOKEN_ENV: "a-value-that-would-win", MODE_ENV: "disabled"})
    assert env == {"PATH": "/bin", MODE_ENV: "token", TOKEN_PATH_ENV: str(tmp_path / "auth_token")}


def test_the_driver_uses_the_clusters_token_not_homes_and_gets_its_own_back(earlier_home, tmp_path, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, "the-users-own")
    path = new_token_file(tmp_path)
    previous = use_token(path)
    assert _ray_sees() == ("token", path.read_text())
    assert TOKEN_ENV not in os.environ
    restore(previous)
    assert os.environ[TOKEN_ENV] == "the-users-own" and MODE_ENV not in os.environ and TOKEN_PATH_ENV not in os.environ
    assert _ray_sees()[0] == "disabled"


def test_a_client_handed_a_token_turns_token_mode_on_and_one_without_stays_as_ray_says(earlier_home, tmp_path,
                                                                                         monkeypatch):
    assert client_mode_from_token() is False and _ray_sees()[0] == "disabled"  # ~/.ray's token alone: Ray's choice
    path = new_token_file(tmp_path)
    monkeypatch.setenv(TOKEN_PATH_ENV, str(path))
    assert client_mode_from_token() is True and _ray_sees() == ("token", path.read_text())
    monkeypatch.setenv(MODE_ENV, "disabled")  # a mode named explicitly is kept
    assert client_mode_from_token() is False


def test_the_token_check_leaves_what_it_cannot_answer_to_rays_join():
    """Not host:port (Ray's default, a Ray Client URL), or nothing listening there (the call
    would hang for Ray's connect timeout): no error, within the check's bound. A refusal is
    checked on a real cluster (test_bench_local_cluster)."""
    for address in (None, "auto", "ray://127.0.0.1:10001"):
        check_token(address)
    check_token(f"127.0.0.1:{free_port()}", timeout_s=0.5)
