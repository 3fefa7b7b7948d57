"""The element policy: candidate strings and actions, features (prior, plan cursor), log-probs
that agree with sampling, a gradient step that moves them, and acting as a gui-bench agent
(greedy, a checkpoint loaded)."""

from __future__ import annotations

import math

import pytest
import torch

from gui_gym.agents.base import Act, Context
from gui_gym.agents.policies.element.candidates import Candidate, candidates_of, content_words, instruction_strings
from gui_gym.agents.policies.element.policy import ElementPolicy, _action_words, _advance, _overlap
from gui_gym.a11y_text import parse_elements
from gui_gym.actions import Action

TREE = "\n".join([
    '[0] link "LocalShop"',
    '[1] searchbox "Search products"',
    '[2] button "Search"',
    '[3] checkbox "Kodo" value="1" checked',
    '[4] textbox "Name" value="Ann \\"A\\"" focused',
    '[5] button "Pay" disabled',
    '[6] heading "Price"',
    '[7] combobox "Role" value="Viewer"',
    '[8] link "Electronics"',
    '[9] link "Books"',
    "a line that is not an element",
])


def obs(tree: str = TREE) -> dict:
    return {"a11y_tree": tree, "url": "http://127.0.0.1:1/shop/product/12?sort=price"}


def test_strings_come_from_the_instruction_in_order_without_fragments():
    text = 'Invite ann@x.io as Editor; say "Hi there" at 10:30 on 2024-05-01 for $12.50. Ship it to 359 Cedar Lane, Riverton.'
    assert instruction_strings(text) == ["Invite", "ann@x.io", "Editor", "Hi there", "10:30", "2024-05-01", "$12.50",
                                         "Ship", "359 Cedar Lane", "Riverton"]
    assert instruction_strings("Send Keiko Fischer the file.") == ["Send Keiko Fischer", "Keiko Fischer"]
    assert instruction_strings(text, limit=2) == ["Invite", "ann@x.io"]


def test_candidates_click_type_and_the_page_actions():
    candidates = candidates_of(parse_elements(TREE), ["Ann", "Editor"])
    clicks = [c.element.index for c in candidates if c.kind == "click"]
    types = [(c.element.index, c.text) for c in candidates if c.kind == "type"]
    assert clicks == [0, 2, 3, 7, 8, 9]  # no disabled button, no heading, no text field
    assert types == [(1, "Ann"), (1, "Editor"), (4, "Ann"), (4, "Editor"), (7, "Ann"), (7, "Editor")]
    assert [c.kind for c in candidates[-4:]] == ["enter", "scroll_down", "scroll_up", "done"]
    assert candidates[0].to_action() == Action.click_element(0)
    assert Candidate("type", parse_elements(TREE)[4], "Bo").to_action() == Action("type", element=4, text="Bo")
    assert candidates[-1].to_action() == Action.done() and candidates[-3].to_action() == Action.scroll("down")


def test_sampled_log_probs_agree_with_recomputed_ones_and_sum_to_one():
    torch.manual_seed(0)
    policy = ElementPolicy()
    prompt = policy.prompt(obs(), Context("Open Electronics"))
    act = policy.generate(prompt)
    (recomputed,) = policy.logprobs([prompt], [act.token_ids])
    assert recomputed.item() == pytest.approx(act.logprobs[0], abs=1e-5)
    everything = policy.logprobs([prompt], [list(range(len(prompt.candidates)))])[0]
    assert everything.exp().sum().item() == pytest.approx(1.0, abs=1e-5)
    assert act.detail == prompt.candidates[act.token_ids[0]] and act.action == act.detail.to_action()
    greedy = policy.generate(prompt, greedy=True)
    assert greedy.token_ids[0] == int(everything.argmax()) and greedy.text == 'click [8] link "Electronics"'
    with pytest.raises(ValueError, match="outside the"):
        policy.logprobs([prompt], [[len(prompt.candidates)]])


def test_entropies_are_those_of_the_candidate_distribution():
    policy, uniform = ElementPolicy(), ElementPolicy(prior_scale=0.0)
    prompt = policy.prompt(obs(), Context("Open Electronics"))
    n = len(prompt.candidates)
    (flat,) = uniform.entropies([prompt], [[0, 3]])  # one value per token, here two
    assert flat.tolist() == pytest.approx([math.log(n)] * 2)
    p = policy.logprobs([prompt], [list(range(n))])[0].exp()
    (peaked,) = policy.entropies([prompt], [[0]])
    assert peaked.item() == pytest.approx(-(p * p.log()).sum().item(), rel=1e-5) and peaked.item() < math.log(n)
    peaked.sum().backward()
    assert policy.prior.weight.grad is not None and policy.prior.weight.grad.abs().sum() > 0


def probability(policy: ElementPolicy, context: Context, text: str, tree: str = TREE) -> float:
    prompt = policy.prompt(obs(tree), context)
    index = next(i for i, c in enumerate(prompt.candidates) if c.describe() == text)
    return math.exp(policy.logprobs([prompt], [[index]])[0].item())


def test_the_prior_prefers_what_the_text_names_and_a_uniform_policy_does_not():
    prior, uniform = ElementPolicy(), ElementPolicy(prior_scale=0.0)
    context = Context("Open Electronics")
    assert probability(prior, context, 'click [8] link "Electronics"') > 5 * probability(prior, context, 'click [9] link "Books"')
    n = len(uniform.prompt(obs(), context).candidates)
    assert probability(uniform, context, 'click [8] link "Electronics"') == pytest.approx(1 / n)
    # clicking a ticked checkbox unticks it: the prior avoids it
    ticked = Context("Filter by Kodo")
    unticked_tree = TREE.replace('value="1" checked', 'value="1"')
    assert probability(prior, ticked, 'click [3] checkbox "Kodo"') < probability(prior, ticked, 'click [3] checkbox "Kodo"',
                                                                              unticked_tree)


def test_a_plan_moves_probability_to_its_next_line():
    policy = ElementPolicy()
    plain = Context("Find a cheap book")
    planned = Context("Find a cheap book", plan=("Open Books in the category bar", "Search for it"))
    assert probability(policy, planned, 'click [9] link "Books"') > 5 * probability(policy, plain, 'click [9] link "Books"')
    clicked = Act(Action.click_element(9), 'click [9] link "Books"', (9,), (0.0,),
                  Candidate("click", parse_elements(TREE)[9]))
    after = Context(planned.instruction, planned.plan, (clicked,))
    assert probability(policy, after, 'click [2] button "Search"') > probability(policy, planned, 'click [2] button "Search"')
    assert probability(policy, after, 'click [9] link "Books"') < probability(policy, planned, 'click [9] link "Books"')


def test_plan_matching_by_hand():
    books = _action_words(Candidate("click", parse_elements(TREE)[9]))
    line = set(content_words("Open Books in the category bar"))  # open, books, category, bar
    assert books == ({"books"}, "link")
    assert _overlap(books, line) == pytest.approx(2 * 1.0 * 0.25 / 1.25)  # precision 1, recall 1/4
    assert _overlap(({"kodo"}, "checkbox"), {"tick", "checkbox", "kodo"}) == pytest.approx(2 * 1 * (2 / 3) / (5 / 3))
    plan = [line, {"search"}, {"pay"}]
    assert _advance(-1, books, plan) == 0 and _advance(0, ({"pay"}, "button"), plan) == 2
    assert _advance(0, ({"zzz"}, "link"), plan) == 0


def test_one_positive_advantage_step_raises_the_chosen_candidate():
    from gui_gym.trainers.grpo import GRPOConfig, TrainItem, update
    from gui_gym.trainers.rollout import Rollout, Step

    torch.manual_seed(0)
    policy = ElementPolicy()
    prompt = policy.prompt(obs(), Context("Find a cheap book"))
    good, bad = 9, 0  # Books up, LocalShop down
    rollouts = [Rollout(task_id="t", seed=0, instruction="i", steps=[Step(prompt=prompt, token_ids=(token,), logprobs=(0.0,))])
                for token in (good, bad)]
    before = [policy.logprobs([prompt], [[t]])[0].item() for t in (good, bad)]
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.1)
    stats = update(policy, optimizer, [TrainItem(rollouts[0], [1.0]), TrainItem(rollouts[1], [-1.0])],
                   GRPOConfig(minibatch_rollouts=2))
    after = [policy.logprobs([prompt], [[t]])[0].item() for t in (good, bad)]
    assert after[0] > before[0] and after[1] < before[1]
    assert {"losses/policy_loss", "losses/approx_kl", "losses/clipfrac", "losses/grad_norm"} <= set(stats)


def test_save_load_and_a_frozen_reference(tmp_path):
    policy = ElementPolicy(buckets=1024, hidden=8)
    reference = policy.reference()
    with torch.no_grad():
        policy.linear.weight.add_(1.0)
    assert all(not p.requires_grad for p in reference.parameters())
    assert not torch.equal(reference.linear.weight, policy.linear.weight)
    policy.save(str(tmp_path))
    fresh = ElementPolicy(buckets=1024, hidden=8)
    fresh.load(str(tmp_path))
    assert torch.equal(fresh.linear.weight, policy.linear.weight)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"reads obs\['a11y_tree'\]: make the env with observe_a11y=True"):
        ElementPolicy().prompt({"screenshot": None}, Context("x"))
    with pytest.raises(ValueError, match="expected buckets >= 2"):
        ElementPolicy(buckets=1)


def test_it_acts_as_an_agent_with_its_own_history_and_starts_from_a_checkpoint(tmp_path):
    policy = ElementPolicy(buckets=1024, hidden=8)
    with torch.no_grad():
        policy.linear.weight.normal_()
    policy.save(str(tmp_path))
    agent = ElementPolicy(buckets=1024, hidden=8, checkpoint=str(tmp_path))
    assert torch.equal(agent.linear.weight, policy.linear.weight) and agent.observe_a11y and agent.greedy
    agent.reset({"instruction": "Search for Books"})
    first = agent.act(obs(), {})
    expected = policy.generate(policy.prompt(obs(), Context("Search for Books")), greedy=True)
    assert first == expected.action and agent.last_response == expected.text
    second = agent.act(obs(), {})  # its own first step is now in the context: repeating it scores lower
    assert agent._context.history[-1].action == second and len(agent._context.history) == 2
    agent.reset({"instruction": "x"})
    assert agent._context.history == ()
