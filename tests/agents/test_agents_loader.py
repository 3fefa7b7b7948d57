"""`--agent` specs: built-in names, module:Class, Python files, argument checks, clear errors."""

from __future__ import annotations

import textwrap

import pytest

from gui_gym.agents import Agent, BaseAgent, TrainableAgent, env_kwargs_for, load_agent, load_trainable_agent, resolve_agent
from gui_gym.agents.random_agent import RandomAgent
from gui_gym.errors import AgentError

AGENT_FILE = textwrap.dedent('''
    from gui_gym.agents.base import BaseAgent
    from gui_gym import Action

    class WaitAgent(BaseAgent):
        action_format = "json"

        def __init__(self, seconds: float = 0.0):
            super().__init__()
            self.seconds = seconds

        def act(self, obs, info):
            return Action.wait(self.seconds)
''')


def test_builtin_names_and_module_specs_resolve():
    assert resolve_agent("random") is RandomAgent
    assert resolve_agent("gui_gym.agents.random_agent:RandomAgent") is RandomAgent
    agent = load_agent("random", seed=3, kinds="click,type")
    assert isinstance(agent, Agent) and agent.kinds == ("click", "type") and agent.seed == 3


def test_a_python_file_is_loaded_as_its_own_module(tmp_path):
    path = tmp_path / "my_agent.py"
    path.write_text(AGENT_FILE)
    agent = load_agent(str(path), seconds=0.5)
    assert type(agent).__name__ == "WaitAgent" and isinstance(agent, BaseAgent)
    assert agent.act({}, {}).duration_s == 0.5 and agent.action_format == "json"
    assert type(load_agent(f"{path}:WaitAgent")).__name__ == "WaitAgent"


def test_a_file_with_several_agents_must_name_one(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(AGENT_FILE + "\n\nclass Other(WaitAgent):\n    pass\n")
    with pytest.raises(AgentError, match=r"exactly one class with an act\(\) method, found \['Other', 'WaitAgent'\]; "
                                         r"name one as 'two.py:ClassName'"):
        load_agent(str(path))
    assert type(load_agent(f"{path}:Other")).__name__ == "Other"


def test_bad_specs_and_arguments_are_named():
    with pytest.raises(AgentError, match=r"unknown agent 'radnom'.*did you mean \['random'\]"):
        load_agent("radnom")
    with pytest.raises(AgentError, match=r"takes no argument\(s\) \['sedd'\]; it accepts \['seed', 'kinds'\]"):
        load_agent("random", sedd=1)
    with pytest.raises(AgentError, match="cannot import module 'no_such_module'"):
        load_agent("no_such_module:Agent")
    with pytest.raises(AgentError, match="module 'gui_gym.agents.base' has no attribute 'Nope'"):
        load_agent("gui_gym.agents.base:Nope")
    with pytest.raises(AgentError, match="no such file"):
        load_agent("missing_agent.py")
    with pytest.raises(AgentError, match="built a int, which has no act"):
        load_agent("builtins:int")


def test_a_file_that_fails_to_import_is_reported(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('half written')\n")
    with pytest.raises(AgentError, match=r"importing .*broken.py' failed: RuntimeError: half written"):
        load_agent(str(path))


def test_trainable_agents_load_for_both_commands_and_say_what_env_they_need():
    element = load_trainable_agent("element", hidden=0)
    assert isinstance(element, TrainableAgent) and isinstance(element, Agent)
    assert env_kwargs_for(element) == {"action_format": "json", "observe_a11y": True}
    assert env_kwargs_for(load_agent("random")) == {}  # Action objects: any env reads them
    with pytest.raises(AgentError, match=r"agent 'oracle' cannot be trained: a OracleAgent has no prompt, generate, "
                                         r"logprobs, parameters, reference, save, load .*\['element', 'vlm'\]"):
        load_trainable_agent("oracle")
