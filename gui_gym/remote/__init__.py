"""Remote envs: any ``GUI/*`` env in a Ray actor, behind the ordinary Gymnasium interface.

    import gui_gym.remote
    env = gui_gym.remote.make("GUI/LocalWeb-v0", remote={"num_cpus": 1}, apps=["shop"])

See `gui_gym.remote.env` and docs/distributed.md. Ray is imported only when an env is made
(the ``distributed`` extra).
"""

from gui_gym.remote.env import ActorLost, RemoteEnv, RemoteOptions, connect, init_failure, make

__all__ = ["ActorLost", "RemoteEnv", "RemoteOptions", "connect", "init_failure", "make"]
