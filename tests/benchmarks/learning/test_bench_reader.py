"""The reader judge on real TextWeb episodes: it extracts criteria through the project's
extraction, marks and segments from the pages the agent saw, and errs as told (flips per round,
the systematic reader's misses and near misses)."""

from types import SimpleNamespace

import pytest

from gui_gym.actions import Action
from gui_gym.benchmarks.learning.judging import ObservedEpisode
from gui_gym.benchmarks.learning.reader import Page, ReaderJudge, requests
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
from gui_gym.errors import JudgeError
from gui_gym.judges import CriteriaStore, extract_criteria

TEMPLATE = make_templates(1, seed=200, hidden=(1,), conventions=CONVENTIONS[8:])[0]
TASK = TEMPLATE.task_id


def episode(instance, right_steps, wrong_then_done=False):
    """A trajectory as the reader records it: `right_steps` oracle clicks, then (optionally) a
    wrong click and ``done``; returns the final info (trajectory and truth)."""
    env = ObservedEpisode(TextWebEnv([TEMPLATE]), ReaderJudge())
    env.reset(options={"task_id": TASK, "instance_seed": instance})
    info, done = {}, False
    for _ in range(right_steps):
        _, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
        done = terminated or truncated
    if not done and wrong_then_done:
        right = env.unwrapped.oracle_action().element
        env.step(Action.click_element(0 if right != 0 else 1))
    if not done:
        _, _, _, _, info = env.step(Action.done())
    return info


def criteria():
    wins = [episode(instance, len(TEMPLATE.stages) + 1)["observed_trajectory"] for instance in (0, 1, 2)]
    return extract_criteria(ReaderJudge(), wins)


def test_criteria_come_from_successes_through_the_projects_extraction_in_the_instructions_words():
    found = criteria()
    assert found.stable and found.used == [0, 1]  # the second success confirmed the first's criteria
    assert len(found.criteria) == len(TEMPLATE.stages) + 1  # one per stage and the save, as the milestones
    assert found.criteria[0] == f"click the {TEMPLATE.stages[0].role} that request 1 of the instruction names"
    hidden = next(k for k, s in enumerate(TEMPLATE.stages) if s.kind == "hidden")
    assert found.criteria[hidden] == f'click the {TEMPLATE.stages[hidden].role} "{TEMPLATE.stages[hidden].convention[0]}"'
    assert found.criteria[-1] == f'click the button "{TEMPLATE.save}"'
    failed = episode(0, 1, wrong_then_done=True)["observed_trajectory"]
    with pytest.raises(JudgeError, match="extracted from successful trajectories"):
        ReaderJudge().propose_criteria(failed, None)


@pytest.mark.parametrize("right_steps", [0, 1, 2, 3])
def test_the_plain_readers_marks_are_the_milestones_reached(right_steps):
    listed = criteria().criteria
    info = episode(5, right_steps, wrong_then_done=True)  # an instance no criterion was extracted from
    marks = ReaderJudge().mark(info["observed_trajectory"], listed, seed=1)
    reached = round(info["true_progress"] * len(listed))
    assert reached == right_steps and marks == [k < reached for k in range(len(listed))]


def test_the_reader_reads_only_the_observation():
    """Its probe asks the env for nothing but what the agent is shown."""
    shown = SimpleNamespace(observation=lambda: {"a11y_tree": '[0] link "Back"\n[1] link "Help"'})
    page = ReaderJudge().probe(SimpleNamespace(unwrapped=shown))
    assert page == Page(("link", "link"), ("Back", "Help")) and page.is_error


def test_rounds_at_a_temperature_differ_and_a_seeded_round_repeats():
    listed = criteria().criteria
    trajectory = episode(5, 2, wrong_then_done=True)["observed_trajectory"]
    noisy = ReaderJudge(flip_prob=0.5, seed=3)
    rounds = [tuple(noisy.mark(trajectory, listed, seed=s)) for s in range(6)]
    assert len(set(rounds)) > 1 and noisy.mark(trajectory, listed, seed=2) == list(rounds[2])


def test_the_systematic_reader_misses_unnamed_elements_and_credits_a_near_miss():
    listed = criteria().criteria
    hidden = next(k for k, c in enumerate(listed[:-1]) if '"' in c)
    full = episode(5, hidden + 1, wrong_then_done=True)["observed_trajectory"]  # past the hidden stage, then a miss
    plain, biased = ReaderJudge().mark(full, listed), ReaderJudge(systematic=True).mark(full, listed)
    assert plain[hidden] and not biased[hidden]  # met, but never credited: the instruction does not name it
    assert not plain[hidden + 1] and biased[hidden + 1]  # the wrong click on its page credited
    assert biased[hidden + 2:] == [False] * (len(listed) - hidden - 2)


def test_spans_end_at_the_clicks_that_met_each_criterion(tmp_path):
    found = criteria()
    store = CriteriaStore(tmp_path)
    store.put(TASK, found.criteria)
    trajectory = episode(5, 2, wrong_then_done=True)["observed_trajectory"]  # steps: right, right, wrong, done
    spans = ReaderJudge(store=store).segment(trajectory)
    assert [(s.start, s.end, s.completed) for s in spans] == [(0, 0, True), (1, 1, True), (2, 3, False)]
    with pytest.raises(JudgeError, match="its store has none"):
        ReaderJudge().segment(trajectory)


def test_requests_are_the_instructions_comma_separated_parts():
    assert requests("Open Billing, select Keiko Fischer, then save.") == ["Open Billing", "select Keiko Fischer",
                                                                          "then save."]


def test_the_reader_reads_which_element_a_click_hit_so_a_deferred_stage_does_not_mislead_it():
    """On a deferred stage the next page looks the same after the wrong click as after the
    right one; the reader's criterion names the element the successes clicked and it reads
    the clicked element's name, so its marks stay the truth: it holds the oracle's information."""
    late = make_templates(1, seed=250, hidden=(1,), conventions=CONVENTIONS[8:], deferred=1)[0]
    deferred = next(k for k, s in enumerate(late.stages) if s.deferred)
    env = ObservedEpisode(TextWebEnv([late]), ReaderJudge())
    wins = []
    for instance in (0, 1):
        env.reset(options={"task_id": late.task_id, "instance_seed": instance})
        info, done = {}, False
        while not done:
            *_, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
            done = terminated or truncated
        wins.append(info["observed_trajectory"])
    listed = extract_criteria(ReaderJudge(), wins).criteria
    env.reset(options={"task_id": late.task_id, "instance_seed": 5})
    for k in range(deferred + 1):
        action = env.unwrapped.oracle_action()
        if k == deferred:
            action = Action.click_element((action.element + 1) % late.stages[k].options)
        env.step(action)
    *_, info = env.step(Action.done())
    assert not env.unwrapped.observation()["url"].endswith("/error")  # the wrong click looked right
    marks = ReaderJudge().mark(info["observed_trajectory"], listed)
    assert marks == [k < deferred for k in range(len(listed))] and round(info["true_progress"] * len(listed)) == deferred
