"""PAGE and BEPA in verl 0.9.1: importing this package registers our pieces with verl's own
registries, so a verl config selects them by name.

- ``trainer.use_v1=true trainer.v1.trainer_mode=gui_gym``: the ``gui_gym`` trainer
  (`trainer`), verl's synchronous v1 trainer with PAGE's advantage, BEPA's LEVEL-2 cache and
  the loss that gives BEPA's off-policy rows to ``bepa_luffy``. PAGE and BEPA run only there.
- ``algorithm.adv_estimator=page`` with its ``page_*`` options (`advantages`); the name is
  registered so that selecting it without the ``gui_gym`` trainer fails with a message naming
  the trainer (verl's own advantage step cannot give it the subtask term).
- ``algorithm.bepa_level2=true`` and ``bepa_*`` options (``bepa_level1_groups``: LEVEL-1 on the
  rows' plans), and
  ``actor_rollout_ref.actor.policy_loss.loss_mode=bepa_luffy`` (`bepa`): LEVEL-1, LEVEL-2 and LUFFY's
  shaping, through the ``gui_gym`` trainer only.
- ``actor_rollout_ref.rollout.agent.default_agent_loop=gui_gym``: the agent loop that plays a
  gui-gym episode per sample through verl's server manager (`agent_loop`); `tasks` writes the
  dataset of task instances it plays.

verl 0.9.1 imports the ``verl.plugins`` entry points (this package, `pyproject.toml`) whenever
verl is imported, so every process of a verl job (trainer, actor, rollout, agent loop workers)
has them registered without an import of its own. verl is an optional dependency:
``scripts/setup.sh`` installs it (without its own dependencies, which would replace torch and
transformers), the ``verl`` extra, and its v1 trainer's TransferQueue and torchdata.
"""

from __future__ import annotations

from gui_gym.extras import require_extra

require_extra("verl", "gui_gym.trainers.verl_plugins")  # verl itself and what its imported modules need, before importing them

from gui_gym.trainers.verl_plugins import advantages, agent_loop, bepa, trainer  # noqa: E402,F401 - registers them
