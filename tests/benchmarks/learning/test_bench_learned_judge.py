"""The learned judge: a model trained on held-apart episodes that reads only the pages the agent
saw; right where the pages show right from wrong, misled on a deferred stage until the save's
rejection shows the mistake, and never trained on an instance a run plays."""

import random
from types import SimpleNamespace

import pytest

from gui_gym.actions import Action
from gui_gym.benchmarks.learning.judging import ObservedEpisode, agreement, criterion_kinds
from gui_gym.benchmarks.learning.learned_judge import JudgeModel, Labelled, LearnedJudge, Seen, seen_pages, train_judge
from gui_gym.benchmarks.learning.textweb import CONVENTIONS, TextWebEnv, make_templates
from gui_gym.errors import JudgeError
from gui_gym.judges.aggregation import judge_progress

ORDINARY = make_templates(1, seed=200, hidden=(1,), conventions=CONVENTIONS[8:])[0]
LATE = make_templates(1, seed=250, hidden=(1,), conventions=CONVENTIONS[8:], deferred=1)[0]


def episodes(count, first_instance=900_000, seed=0):
    """Episodes of a clicker that takes the oracle's element with probability .8, else another
    (on a deferred stage a coin flip between the right element and the next), labelled by their
    milestones, recorded as the learned judge reads them."""
    rng = random.Random(seed)
    env = ObservedEpisode(TextWebEnv([ORDINARY, LATE]), LearnedJudge(JudgeModel({})))
    out = []
    for i in range(count):
        template = (ORDINARY, LATE)[i % 2]
        env.reset(options={"task_id": template.task_id, "instance_seed": first_instance + i})
        done, info = False, {}
        while not done:
            action, stage = env.unwrapped.oracle_action(), env.unwrapped.stage
            page = len(env.unwrapped._elements())
            if not env.unwrapped.on_error and stage < len(template.stages) and template.stages[stage].deferred:
                action = Action.click_element((action.element + rng.randrange(2)) % page)
            elif rng.random() > 0.8:
                action = Action.click_element(rng.randrange(page))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        count_ = len(template.stages) + 1
        reached = round(info["true_progress"] * count_)
        out.append((Labelled(template.task_id, tuple(seen_pages(info["observed_trajectory"])),
                             tuple(k < reached for k in range(count_))), info))
    return out


def test_the_learned_judge_reads_only_the_url_of_the_page_shown():
    shown = SimpleNamespace(observation=lambda: {"url": "http://textweb.local/step3", "a11y_tree": "[0] link \"x\""})
    page = LearnedJudge(JudgeModel({})).probe(SimpleNamespace(unwrapped=shown))
    assert page == Seen("step3") and page.stage == 3 and Seen("rejected").stage is None


def test_it_learns_the_milestones_where_the_pages_show_them_and_errs_where_a_deferred_stage_hides_them():
    data = episodes(240)
    model, losses = train_judge([labelled for labelled, _ in data])
    assert losses[-1] < losses[0] and model.criteria == {ORDINARY.task_id: len(ORDINARY.stages) + 1,
                                                          LATE.task_id: len(LATE.stages) + 1}
    judge = LearnedJudge(model, seed=1)
    fresh = episodes(120, first_instance=950_000, seed=1)
    wrapped = []
    for labelled, info in fresh:
        trajectory = info["observed_trajectory"]
        criteria = judge.own_criteria(trajectory)
        estimate = judge_progress(judge, trajectory, criteria, seeds=[1, 2, 3], success=info["success"])
        wrapped.append(SimpleNamespace(task_id=labelled.task_id, success=info["success"], final_info={
            **info, "progress": estimate.progress, "progress_per_criterion": estimate.per_criterion}))
    kinds = {ORDINARY.task_id: criterion_kinds(ORDINARY), LATE.task_id: criterion_kinds(LATE)}
    out = agreement(wrapped, kinds)["per_kind"]
    def accuracy(*kinds):
        return sum(out[k]["right"] for k in kinds) / sum(out[k]["criteria"] for k in kinds)

    assert accuracy("named", "hidden", "before", "save") > 0.97  # the error page tells right from wrong at once
    assert accuracy("deferred, rejection not shown") < 0.8  # misled: the next page looked the same either way


def test_two_episodes_with_the_same_pages_get_the_same_probabilities_whatever_was_clicked():
    model, _ = train_judge([labelled for labelled, _ in episodes(60)])
    deferred = next(k for k, s in enumerate(LATE.stages) if s.deferred)
    seen = []
    for wrong in (False, True):
        env = ObservedEpisode(TextWebEnv([LATE]), LearnedJudge(model))
        env.reset(options={"task_id": LATE.task_id, "instance_seed": 5})
        for k in range(deferred + 1):
            action = env.unwrapped.oracle_action()
            if wrong and k == deferred:
                action = Action.click_element((action.element + 1) % LATE.stages[k].options)
            *_, info = env.step(action)
        *_, info = env.step(Action.done())
        seen.append((model.probabilities(LATE.task_id, seen_pages(info["observed_trajectory"])), info["true_progress"]))
    (right_p, right_truth), (wrong_p, wrong_truth) = seen
    assert right_p == wrong_p and right_truth > wrong_truth


def test_it_knows_only_the_tasks_it_was_trained_on():
    model, _ = train_judge([labelled for labelled, _ in episodes(4)])
    with pytest.raises(JudgeError, match="trained on no episode of task 'other'"):
        model.probabilities("other", [Seen("step0")])
    with pytest.raises(ValueError, match="at least one labelled episode"):
        train_judge([])
    restored = JudgeModel.from_state(model.state())
    pages = [Seen("step0"), Seen("step1")]
    assert restored.probabilities(ORDINARY.task_id, pages) == model.probabilities(ORDINARY.task_id, pages)
