"""PAGE and BEPA as verl plug-ins (verl 0.9.1): importing this package registers them with
verl's own registries, so a verl config selects them by name.

- ``algorithm.adv_estimator=page``: PAGE's hierarchical advantage (`advantages`), GRPO on
  the progress reward plus lambda x the subtask-level term; with no per-step term it is GRPO
  with progress.
- ``actor_rollout_ref.actor.policy_loss.loss_mode=bepa_luffy``: BEPA's LUFFY-shaped loss for
  injected tokens beside verl's clipped loss for the rest (`bepa`).
- `bepa.level2_hook`: BEPA's LEVEL-2 cache on a verl batch (inject into all-fail groups only,
  refresh on success), to call between reward and advantage.
- ``actor_rollout_ref.rollout.agent.default_agent_loop=gui_gym``: the agent loop that plays a
  gui-gym episode per sample through verl's server manager (`agent_loop`); `tasks` writes the
  dataset of task instances it plays.

verl 0.9.1 imports the ``verl.plugins`` entry points (this package, `pyproject.toml`) whenever
verl is imported, so every process of a verl job (trainer, actor, rollout, agent loop workers)
has the plug-ins registered without an import of its own.

What verl 0.9.1 does not forward is written down where it matters (`advantages`, `bepa`).
verl is an optional dependency: ``scripts/setup.sh`` installs it (without its own
dependencies, which would replace torch and transformers) and the ``verl`` extra.
"""

from __future__ import annotations

from gui_gym.extras import require_extra

require_extra("verl", "gui_gym.trainers.verl_plugins")  # verl itself and what its imported modules need, before importing them

from gui_gym.trainers.verl_plugins import advantages, agent_loop, bepa  # noqa: E402,F401 - registers the plug-ins
