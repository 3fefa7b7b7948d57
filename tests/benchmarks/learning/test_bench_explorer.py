"""BEPA's off-distribution expert: it solves TextWeb tasks on its own (the env's solution and
expert plan refuse to be read while it plays), by routes of its own, in actions the policy can
spell, and abstracts its plans from its own traces."""

import pytest

from gui_gym.agents.policies.element import ElementPolicy
from gui_gym.benchmarks.learning.explorer import ExploringExpert
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
from gui_gym.trainers.bepa import rollout_from_trace

TEMPLATES = make_templates(4, seed=300, hidden=(2, 3), stages=(6, 7), conventions=CONVENTIONS[8:], alternates=3)


class Sealed(TextWebEnv):
    """TextWeb whose solution and expert plan raise: an expert that reads them fails."""

    def oracle_action(self):
        raise AssertionError("the expert read the env's solution")

    def expert_plan(self, task_id, instance_seed):
        raise AssertionError("the expert read the env's expert plan")


def test_the_exploring_expert_solves_every_task_without_the_oracle_or_the_expert_plan():
    env, expert = Sealed(TEMPLATES), ExploringExpert()
    for template in TEMPLATES:
        for seed in range(3):
            trace = expert.trace(env, template.task_id, seed)
            assert trace.success and trace.final_info["progress"] == 1.0
            assert len(trace.observations) == len(trace.actions) <= expert.max_steps
            assert len(expert.plan(trace)) == len(template.stages) + 1  # one accepted click per stage and the save


def test_its_route_is_its_own_and_its_plan_is_read_from_its_trace():
    env, expert = TextWebEnv(TEMPLATES), ExploringExpert()
    traces = [expert.trace(env, t.task_id, seed) for t in TEMPLATES for seed in range(4)]
    plans = [expert.plan(trace) for trace in traces]
    env_plans = [env.expert_plan(trace.task_id, trace.seed) for trace in traces]
    unlike = sum(plan != env_plan for plan, env_plan in zip(plans, env_plans))
    assert 0 < unlike < len(traces)  # second routes, taken when the page lists them first
    for plan, env_plan in zip(plans, env_plans):
        assert len(plan) == len(env_plan) and plan[0] == env_plan[0] and plan[-1] == env_plan[-1]
    detours = [t for t in traces if len(t.actions) > len(TEMPLATES[0].stages) + 1]
    assert detours and all(any(o["url"].endswith("/error") for o in t.observations) for t in detours)  # tries, Backs


def test_the_policy_spells_every_action_of_its_traces():
    env, expert = TextWebEnv(TEMPLATES), ExploringExpert()
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 10, hidden=0)
    trace = expert.trace(env, TEMPLATES[1].task_id, 2)
    converted = rollout_from_trace(trace, policy)
    assert converted.success and len(converted) == len(trace.actions)  # nothing dropped
    assert [s.action for s in converted.steps] == trace.actions
    with pytest.raises(ValueError, match="max_steps must be >= 1"):
        ExploringExpert(max_steps=0)


def test_level1_on_the_experts_plans_seeds_another_cache_than_on_the_envs_plans():
    """LEVEL-1 acts on the plans abstracted from the expert's own traces, which take second
    routes the env's expert plan does not name: a policy that follows plans fills the cache
    with other trajectories than BEPA on the env's plans (same instances, same seed)."""
    from gui_gym.agents.policies.element.policy import DENSE
    from gui_gym.trainers.bepa import BEPAConfig, TaskCache, level1, task_plan
    from gui_gym.trainers.grpo import seed_everything
    from gui_gym.trainers.rollout import EnvPool

    tasks = tuple(t.task_id for t in TEMPLATES)
    config = BEPAConfig(tasks=tasks, instance_seeds=2, level1_every_instance=True, group_size=2, level1_group_size=1,
                        tensorboard=False)
    expert = ExploringExpert()
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 10, hidden=0)
    policy.prior.weight.data[0, DENSE.index("plan_next")] = 30.0  # follows a plan's next line
    caches = []
    for plans in (task_plan, lambda env, task, seed: expert.plan(expert.trace(env, task, seed))):
        cache: TaskCache = TaskCache()
        seed_everything(0)
        with EnvPool(lambda: TextWebEnv(TEMPLATES), 1) as pool:
            _, stats = level1(config, policy, pool, cache, tasks, plans)
        assert stats["bepa/level1_successes"] == len(tasks) * 2  # every instance followed to success
        caches.append({(t, s): [step.action for step in cache.get((t, s)).trajectory.steps]
                       for t in tasks for s in range(2)})
    on_env_plans, on_own_plans = caches
    differ = [key for key in on_env_plans if on_env_plans[key] != on_own_plans[key]]
    assert 0 < len(differ) < len(on_env_plans)  # the instances where the expert took the second route
