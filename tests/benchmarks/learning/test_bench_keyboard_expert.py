"""The off-distribution expert of BEPA's table: a keyboard agent on TextWeb whose traces
succeed in its own action space (Tab and Enter, never a click) and whose plans, read from
what it saw, name the elements it activated."""

import pytest

from gui_gym.actions import Action
from gui_gym.benchmarks.learning.keyboard_expert import KeyboardExpert
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates


def test_the_keyboard_expert_succeeds_with_tab_and_enter_and_its_plan_names_what_it_activated():
    templates = make_templates(3, seed=6, hidden=(2,), stages=(5, 6), conventions=CONVENTIONS[8:])
    env = TextWebEnv(templates)
    expert = KeyboardExpert()
    for template in templates:
        trace = expert.trace(env, template.task_id, 2)
        assert trace.success and trace.final_info["progress"] == 1.0
        assert set(trace.actions) <= {Action.key("tab"), Action.key("enter")} and Action.key("tab") in trace.actions
        assert trace.actions.count(Action.key("enter")) == len(template.stages) + 1
        assert len(trace.observations) == len(trace.actions)
        # read from the trace's own pages, the plan is the instance's expert plan, line for line
        assert expert.plan(trace) == env.expert_plan(template.task_id, 2)
    # the policy's own step limit is too short for its Tabs: its route is not one the policy can take
    obs, info = env.reset(options={"task_id": templates[0].task_id, "instance_seed": 2})
    short = KeyboardExpert(max_steps=env.max_steps).trace(env, templates[0].task_id, 2)
    assert not short.success and len(expert.plan(short)) < len(templates[0].stages) + 1
    with pytest.raises(ValueError, match="max_steps must be >= 1"):
        KeyboardExpert(max_steps=0)
