"""TextWeb, the learning benchmark's browser-free env: the oracle solves every template, a
wrong click costs a detour, and the episode's end reports progress and subtasks as PAGE's
oracle judge would; behaviour cloning (`gui_gym.trainers.sft`) on it raises the oracle's likelihood."""

import statistics

import pytest
import torch

from gui_gym.agents.base import Context
from gui_gym.agents.policies.element import ElementPolicy
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
from gui_gym.a11y_text import parse_elements
from gui_gym.actions import Action
from gui_gym.trainers.sft import SFTConfig, fit, oracle_demonstrations


def oracle_episode(env, task_id, seed):
    obs, info = env.reset(options={"task_id": task_id, "instance_seed": seed})
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(env.oracle_action())
        if terminated or truncated:
            return reward, info


def test_the_oracle_solves_every_template_and_instances_are_reproducible():
    templates = make_templates(6, seed=1, conventions=CONVENTIONS[8:])
    env = TextWebEnv(templates)
    for template in templates:
        reward, info = oracle_episode(env, template.task_id, 3)
        assert reward == 1.0 and info["success"] and info["progress"] == 1.0
        assert all(s["completed"] for s in info["subtasks"]) and len(info["subtasks"]) == len(template.stages)
        assert template.stages[0].kind == "section"
    obs, info = env.reset(options={"task_id": templates[0].task_id, "instance_seed": 3})
    again, _ = TextWebEnv(templates).reset(options={"task_id": templates[0].task_id, "instance_seed": 3})
    assert obs == again and info["instruction"].endswith(f"then {templates[0].save.lower()}.")
    other, _ = env.reset(options={"task_id": templates[0].task_id, "instance_seed": 4})
    assert other["instruction"] != obs["instruction"]
    assert make_templates(6, seed=1, conventions=CONVENTIONS[8:]) == templates
    (hidden,) = [s for s in templates[1].stages if s.kind == "hidden"]  # templates cycle 0, 1, 2 hidden stages
    obs, info = env.reset(options={"task_id": templates[1].task_id, "instance_seed": 0})
    assert hidden.convention[0] not in info["instruction"] and set(hidden.convention) <= set(CONVENTIONS[8:])


def test_a_wrong_click_detours_and_the_end_reports_progress_and_spans():
    templates = make_templates(3, seed=1, hidden=(1,))
    env = TextWebEnv(templates, max_extra_steps=3)
    env.reset(options={"task_id": templates[0].task_id, "instance_seed": 0})
    obs, *_ = env.step(env.oracle_action())  # stage 1 done
    right = env.oracle_action().element
    wrong = next(el.index for el in parse_elements(obs["a11y_tree"]) if el.index != right)
    obs, reward, terminated, truncated, info = env.step(Action.click_element(wrong))
    assert obs["url"].endswith("/error") and [e.name for e in parse_elements(obs["a11y_tree"])] == ["Back", "Help"]
    obs, *_ = env.step(Action.click_element(0))  # Back
    assert obs["url"].endswith("/step1")
    _, _, _, _, info = env.step(Action.click_element(99))
    assert "no element 99" in info["action_error"]
    obs, reward, terminated, truncated, info = env.step(Action.done())
    milestones = len(templates[0].stages) + 1
    assert terminated and reward == 0.0 and not info["success"]
    assert info["progress"] == pytest.approx(1 / milestones)
    assert [s["completed"] for s in info["subtasks"]] == [True] + [False] * (len(templates[0].stages) - 1)
    assert info["subtask_of_step"] == [0, 1, 1, 1, 1]


def test_behaviour_cloning_raises_the_oracles_likelihood():
    torch.manual_seed(0)
    templates = make_templates(4, seed=2, hidden=(0, 1))
    env = TextWebEnv(templates)
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 12, hidden=8)
    demos = oracle_demonstrations(env, policy, [(t.task_id, s) for t in templates for s in range(3)])
    assert len(demos) == sum(3 * (len(t.stages) + 1) for t in templates)  # every oracle step, once
    obs, info = env.reset(options={"task_id": templates[0].task_id, "instance_seed": 0})
    prompt = policy.prompt(obs, Context(info["instruction"]))
    assert policy.expert_act(prompt, env.oracle_action()).action == env.oracle_action()
    assert policy.expert_act(prompt, Action.click_element(99)) is None
    with torch.no_grad():
        before = statistics.fmean(torch.cat(policy.logprobs([d.prompt for d in demos], [d.token_ids for d in demos]))
                                  .tolist())
    losses = fit(policy, demos, SFTConfig(epochs=4))
    assert losses[-1] < losses[0] and losses[-1] < -before / 2
    with pytest.raises(ValueError, match="at least one demonstration"):
        fit(policy, [], SFTConfig())


def test_expert_plans_name_every_stage_and_teach_plan_following():
    """The plan names every stage's right element (a varying stage's changes with the
    instance, so only the plan tells it); plan-conditioned demonstrations carry the plan in
    their prompts, plain ones do not, and the expert's rollout succeeds on the plain prompt."""
    from gui_gym.agents.policies.element.policy import DENSE
    from gui_gym.trainers.sft import expert_rollout

    plan_columns = [DENSE.index(name) for name in ("plan_next", "plan_here", "plan_any")]
    templates = make_templates(2, seed=3, hidden=(2,), conventions=CONVENTIONS[:8], hidden_kind="varying")
    env = TextWebEnv(templates)
    task = templates[0].task_id
    plan = env.expert_plan(task, 0)
    assert len(plan) == len(templates[0].stages) + 1 and plan[-1] == f"click the {templates[0].save} button"
    obs, info = env.reset(options={"task_id": task, "instance_seed": 0})
    for line in plan:
        names = [e.name for e in parse_elements(obs["a11y_tree"])]
        right = names[env.oracle_action().element]
        assert line.startswith(f"click the {right} ")
        obs, *_ = env.step(env.oracle_action())
    varying = [k for k, s in enumerate(templates[0].stages) if s.kind == "varying"]
    rights = {tuple(env.expert_plan(task, seed)[k] for k in varying) for seed in range(8)}
    assert len(varying) == 2 and len(rights) > 1  # the instance decides
    policy = ElementPolicy(prior_scale=0.0, buckets=1 << 12, hidden=8)
    rollout = expert_rollout(env, policy, task, 1)
    assert rollout.success and rollout.source == "expert" and rollout.plan is None
    assert rollout.steps[0].prompt.dense[:, plan_columns].max() == 0  # no plan: the plan features are silent
    demos = oracle_demonstrations(env, policy, [(task, 0), (task, 1)], plan_share=0.5)
    first = len(templates[0].stages) + 1
    assert demos[0].prompt.dense[:, plan_columns].max() > 0
    assert demos[first].prompt.dense[:, plan_columns].max() == 0


def test_pages_own_wrappers_judge_textweb_as_the_env_reports_itself():
    """Under `ProgressReward(SubtaskAnnotation(...))` with the oracle judge, a failed episode's
    progress is the env's own; the oracle's spans end at the first milestone not reached (the
    env's own list every stage), so the benchmark's judged arms differ from its plain ones in
    the subtask term only, and the noisy judge's arms from the exact one by the noise alone."""
    from gui_gym.judges import OracleJudge
    from gui_gym.trainers.page import PAGEConfig, wrap_env

    templates = make_templates(2, seed=4, hidden=(1,))
    task = templates[0].task_id
    bare, wrapped = TextWebEnv(templates), wrap_env(TextWebEnv(templates), OracleJudge(), PAGEConfig(rounds=1))
    infos = []
    for env in (bare, wrapped):
        env.reset(options={"task_id": task, "instance_seed": 1})
        env.step(env.unwrapped.oracle_action())
        env.step(env.unwrapped.oracle_action())
        infos.append(env.step(Action.done())[-1])
    assert infos[1]["progress"] == infos[0]["progress"] == pytest.approx(2 / (len(templates[0].stages) + 1))
    assert [s["completed"] for s in infos[1]["subtasks"]] == [True, True, False]
    assert infos[1]["subtask_of_step"] == [0, 1, 2]


def test_tab_moves_the_focus_and_enter_activates_it_as_a_click_would():
    """The keyboard the off-distribution expert uses: Tab focuses the next element (wrapping,
    flagged ``focused`` in the tree), Enter activates it, a new page has no focus; Enter with
    no focus (all the element policy can press) changes nothing; ``max_steps`` sets the limit."""
    templates = make_templates(2, seed=5, hidden=(1,))
    env = TextWebEnv(templates)
    task = templates[0].task_id
    obs, _ = env.reset(options={"task_id": task, "instance_seed": 0})
    names = [e.name for e in parse_elements(obs["a11y_tree"])]
    assert "focused" not in obs["a11y_tree"]
    obs, *_ = env.step(Action.key("enter"))  # nothing focused: nothing happens
    assert obs["url"].endswith("/step0")
    for _ in range(len(names) + 1):  # once round the page, then the first again
        obs, *_ = env.step(Action.key("tab"))
    assert [e.index for e in parse_elements(obs["a11y_tree"]) if "focused" in e.flags] == [0]
    right = env.oracle_action().element
    for _ in range(right):
        obs, *_ = env.step(Action.key("tab"))
    assert [e.name for e in parse_elements(obs["a11y_tree"]) if "focused" in e.flags] == [names[right]]
    obs, *_ = env.step(Action.key("enter"))
    assert obs["url"].endswith("/step1") and "focused" not in obs["a11y_tree"]
    _, info = env.reset(options={"task_id": task, "instance_seed": 0, "max_steps": 2})
    env.step(Action.key("tab"))
    assert env.step(Action.key("tab"))[3]  # truncated at its own limit
    with pytest.raises(ValueError, match="max_steps must be >= 1"):
        env.reset(options={"task_id": task, "max_steps": 0})


def test_a_deferred_stage_hides_a_wrong_click_until_the_save_rejects_it_and_back_returns_there():
    """The page after a wrong click on a deferred stage is the page after the right one; the
    milestones stop there all the same (the truth), the save opens a rejection page whose Back
    returns to the mistaken stage, and redone right the task succeeds."""
    (late,) = make_templates(1, seed=250, hidden=(2,), conventions=CONVENTIONS[8:], deferred=1)
    deferred = next(k for k, s in enumerate(late.stages) if s.deferred)
    assert late.task_id.endswith("-d1") and sum(s.deferred for s in late.stages) == 1
    assert [s.kind for s in late.stages].count("hidden") == 2  # the other hidden stage is ordinary
    env, right_env = TextWebEnv([late]), TextWebEnv([late])
    env.reset(options={"task_id": late.task_id, "instance_seed": 3})
    right_env.reset(options={"task_id": late.task_id, "instance_seed": 3})
    for k in range(len(late.stages)):
        action = env.oracle_action()
        if k == deferred:
            action = Action.click_element((action.element + 1) % late.stages[k].options)
        obs, *_ = env.step(action)
        right_obs, *_ = right_env.step(right_env.oracle_action())
        assert obs == right_obs  # what the agent sees: nothing tells the two apart
    assert env.reached() == deferred and right_env.reached() == len(late.stages)
    obs, reward, terminated, truncated, info = env.step(env.oracle_action())  # the save
    assert obs["url"].endswith("/rejected") and not terminated and reward == 0.0
    assert [e.name for e in parse_elements(obs["a11y_tree"])] == ["Back", "Help"]
    obs, *_ = env.step(env.oracle_action())  # Back: to the stage clicked wrong
    assert obs["url"].endswith(f"/step{deferred}")
    *_, info = env.step(Action.done())
    milestones = len(late.stages) + 1
    assert info["progress"] == pytest.approx(deferred / milestones)
    assert [s["completed"] for s in info["subtasks"]] == [k < deferred for k in range(len(late.stages))]
    env.reset(options={"task_id": late.task_id, "instance_seed": 3, "max_steps": 40})
    for k in range(len(late.stages) + 1):  # wrong, on to the save, rejected, Back, then right to the end
        action = env.oracle_action()
        obs, *_ = env.step(Action.click_element((action.element + 1) % late.stages[k].options) if k == deferred
                           else action)
    for _ in range(len(late.stages) - deferred + 2):
        obs, reward, terminated, truncated, info = env.step(env.oracle_action())
    assert terminated and info["success"] and reward == 1.0


def test_a_stage_with_an_alternate_accepts_two_elements_and_the_plan_names_the_first():
    (template,) = make_templates(1, seed=300, hidden=(2,), conventions=CONVENTIONS[8:], alternates=3)
    (plain,) = make_templates(1, seed=300, hidden=(2,), conventions=CONVENTIONS[8:])
    assert [(s.kind, s.role, s.options, s.convention) for s in template.stages] == [
        (s.kind, s.role, s.options, s.convention) for s in plain.stages]  # the option changes no draw
    hidden = next(k for k, s in enumerate(template.stages) if s.kind == "hidden")
    primary, alternate = template.stages[hidden].convention[:2]
    env = TextWebEnv([template])
    assert env.expert_plan(template.task_id, 0)[hidden].startswith(f"click the {primary} ")
    for name in (primary, alternate):
        obs, _ = env.reset(options={"task_id": template.task_id, "instance_seed": 0})
        for _ in range(hidden):
            obs, *_ = env.step(env.oracle_action())
        names = [e.name for e in parse_elements(obs["a11y_tree"])]
        obs, *_ = env.step(Action.click_element(names.index(name)))
        assert obs["url"].endswith(f"/step{hidden + 1}")
