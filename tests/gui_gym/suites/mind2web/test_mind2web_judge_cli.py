"""`gui-bench judge`: re-judging results folders with a judge served from a loopback
OpenAI-compatible server whose scripted verdicts are right for some tasks and wrong for others,
so the agreement printed is checked to the digit; malformed verdicts are retried and recorded
as judge errors; a second run resumes by task. The slow test is the issue's acceptance run:
``gui-bench run --env GUI/OnlineMind2Web-v0 --env-arg mode=local`` with the oracle and the
random agent, then ``gui-bench judge`` over both folders."""

from __future__ import annotations

import json
import re

import pytest

from gui_gym.benchmarks.cli import main
from gui_gym.judges.webjudge.judge import KEY_POINTS_SYSTEM, SCREENSHOT_SYSTEM, VERDICT_SYSTEM
from gui_gym.suites.mind2web.suite import LOCAL_TASK_FILE
from tests.fakes.chat_server import ChatServer

MALFORMED = "I believe the agent did what was asked."


def scripted_judge(rules):
    """A chat-server responder: key points and screenshot scores for any task, and a verdict by
    the task's text: ``rules[task] = "success" | "failure" | "malformed" | min_actions (int)``,
    the last meaning success iff the action history holds at least that many actions."""
    def reply(request):
        system = request.messages[0]["content"]
        if system == KEY_POINTS_SYSTEM:
            return "Key Points:\n1. Do what the task says"
        if system == SCREENSHOT_SYSTEM:
            return "Reasoning: the page after the action.\nScore: 4"
        assert system == VERDICT_SYSTEM
        text = "".join(p.get("text", "") for p in request.messages[1]["content"]) \
            if isinstance(request.messages[1]["content"], list) else request.messages[1]["content"]
        rule = rules[re.search(r"^Task: (.*)$", text, re.MULTILINE).group(1)]
        if rule == "malformed":
            return MALFORMED
        if isinstance(rule, int):
            history = text[text.index("Action history:"):text.index("The agent's final answer")]
            rule = "success" if len(re.findall(r"^\d+\. ", history, re.MULTILINE)) >= rule else "failure"
        return f"Thoughts: checked every key point.\nStatus: {rule}"
    return reply


def _bench_folder(root, episodes):
    """A gui-bench results folder with (task, env success, action count[, final answer]) per episode."""
    root.mkdir(parents=True)
    (root / "run.json").write_text(json.dumps({"env_id": "GUI/OnlineMind2Web-v0", "jobs": []}))
    for n, (task, success, actions, *answer) in enumerate(episodes):
        key = f"t{n}__seed0"
        (root / "tasks" / key).mkdir(parents=True)
        (root / "tasks" / key / "result.json").write_text(json.dumps({"task_id": f"t{n}", "success": success,
                                                                     "meta": {"evaluator": "env"}}))
        (root / "mind2web" / key / "trajectory").mkdir(parents=True)
        (root / "mind2web" / key / "result.json").write_text(json.dumps({
            "schema_version": "online-mind2web-v2", "task": task, "task_id": f"t{n}",
            "action_history": [{"step": i, "action": f"CLICK ({i}, {i})"} for i in range(actions)]
            + [{"step": actions, "action": f"TASK_COMPLETE -> ANSWER: {answer[0] if answer else ''}"}]}))


def _judge(capsys, server, *dirs, extra=()):
    code = main(["judge", *map(str, dirs), "--model", "fake-model", "--base-url", server.base_url, *extra])
    return code, capsys.readouterr().out


def test_agreement_is_exact_errors_are_apart_and_a_rerun_resumes(tmp_path, capsys):
    _bench_folder(tmp_path / "a", [("Star it.", True, 3), ("Delete it.", True, 2), ("Answer it.", True, 1),
                                   ("Buy it.", True, 4)])
    _bench_folder(tmp_path / "b", [("Star it.", False, 1), ("Delete it.", False, 1), ("Book it.", False, 2)])
    rules = {"Star it.": "success", "Delete it.": 2, "Answer it.": "failure", "Buy it.": "malformed",
             "Book it.": "success"}
    with ChatServer(scripted_judge(rules)) as server:
        code, out = _judge(capsys, server, tmp_path / "a", tmp_path / "b")
        verdicts = [r for r in server.requests if r.messages[0]["content"] == VERDICT_SYSTEM]
    assert code == 0
    # a: tp, tp, fn, error; b: fp, tn, fp
    assert "judged 7 episode(s) with openai:" in out and ": 4 success, 2 failure, 1 judge error(s)" in out
    assert "agreement with ground truth: accuracy 50.0%  precision 50.0%  recall 66.7%  " \
           "(n=6: tp 2, fp 2, fn 1, tn 1)" in out
    assert len(verdicts) == 6 + 3  # the malformed one was asked three times
    error = json.loads((tmp_path / "a" / "mind2web" / "t3__seed0" / "webjudge" / "fake-model" / "verdict.json").read_text())
    assert (error["status"], error["success"]) == ("error", None) and "off-format 3 time(s)" in error["error"]
    assert "[4/7] error " in out and "judge error" in out
    summary = json.loads((tmp_path / "b" / "webjudge-fake-model.json").read_text())
    assert summary["agreement"] == {"n": 3, "tp": 0, "fp": 2, "fn": 0, "tn": 1, "accuracy": 1 / 3, "precision": 0.0,
                                    "recall": None}
    assert [e["status"] for e in summary["episodes"]] == ["success", "failure", "success"]
    calls = (tmp_path / "b" / "mind2web" / "t0__seed0" / "webjudge" / "fake-model" / "calls.jsonl").read_text()
    assert [json.loads(line)["stage"] for line in calls.splitlines()] == ["key_points", "verdict"]  # no screenshots

    rules["Buy it."] = "success"
    with ChatServer(scripted_judge(rules)) as server:
        code, out = _judge(capsys, server, tmp_path / "a", tmp_path / "b")
        asked = {r.messages[1]["content"].splitlines()[0] for r in server.requests
                 if r.messages[0]["content"] == KEY_POINTS_SYSTEM}
    assert asked == {"Task: Buy it."}  # only the judge error was judged again
    assert out.count("(recorded earlier)") == 6
    assert "agreement with ground truth: accuracy 57.1%  precision 60.0%  recall 75.0%  " \
           "(n=7: tp 3, fp 2, fn 1, tn 1)" in out


def test_other_agents_folders_with_labels_and_without_ground_truth(tmp_path, capsys):
    for name, task in (("x1", "Star it."), ("x2", "Answer it.")):
        (tmp_path / "om2w" / name).mkdir(parents=True)
        (tmp_path / "om2w" / name / "result.json").write_text(json.dumps(
            {"task_id": name, "task": task, "action_history": ["<a> -> CLICK"], "final_result_response": "ok"}))
    rules = {"Star it.": "success", "Answer it.": "failure"}
    with ChatServer(scripted_judge(rules)) as server:
        code, out = _judge(capsys, server, tmp_path / "om2w", extra=["--name", "j1"])
        assert code == 0 and "agreement with ground truth: none known (pass --labels" in out
        (tmp_path / "labels.json").write_text(json.dumps({"x1": True, "x2": True}))
        code, out = _judge(capsys, server, tmp_path / "om2w", extra=["--name", "j1", "--labels",
                                                                     str(tmp_path / "labels.json")])
    assert "(n=2: tp 1, fp 0, fn 1, tn 0)" in out and out.count("(recorded earlier)") == 2
    assert (tmp_path / "om2w" / "x1" / "webjudge" / "j1" / "verdict.json").is_file()


def test_protocols_are_judged_side_by_side_and_their_agreement_tabled(tmp_path, capsys):
    """The scripted protocol judge (tests/fakes/web_judge.py) decides from what each protocol
    shows: the official protocol shows no final answer, the keypoint one asks per clause."""
    from tests.fakes import web_judge

    _bench_folder(tmp_path / "a", [("Star it.", True, 1, "starred"),                   # tp, fn, tp
                                   ("Find the cheapest mat, and read its price.", True, 2),  # fn, fn, tp
                                   ("Buy it.", False, 4),                              # fp, fp, fp
                                   ("Book it, pay, and print it.", False, 2)])          # tn, tn, tn
    assert web_judge.main([str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert out.count("(strict protocol): ") == out.count("(official protocol): ") == out.count("(keypoint protocol): ") == 1
    assert ("agreement with ground truth by protocol:\n"
            "| protocol | n | accuracy | precision | recall | tp | fp | fn | tn |\n"
            "|---|---|---|---|---|---|---|---|---|\n"
            "| strict | 4 | 50.0% | 50.0% | 50.0% | 1 | 1 | 1 | 1 |\n"
            "| official | 4 | 25.0% | 0.0% | 0.0% | 0 | 1 | 2 | 1 |\n"
            "| keypoint | 4 | 75.0% | 66.7% | 100.0% | 2 | 1 | 0 | 1 |") in out
    episode = tmp_path / "a" / "mind2web" / "t1__seed0" / "webjudge"
    assert sorted(p.name for p in episode.iterdir()) == ["scripted", "scripted-keypoint", "scripted-official"]
    assert json.loads((episode / "scripted-keypoint" / "verdict.json").read_text())["key_point_results"][1] == {
        "key_point": "read its price", "status": "success", "thoughts": "2 action(s), answer not shown."}
    assert json.loads((tmp_path / "a" / "webjudge-scripted-official.json").read_text())["settings"]["protocol"] == "official"


def test_bad_arguments_are_one_clear_line(tmp_path, capsys):
    assert main(["judge", str(tmp_path), "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "holds no web episodes to judge" in capsys.readouterr().err
    _bench_folder(tmp_path / "a", [("Star it.", True, 1)])
    assert main(["judge", str(tmp_path / "a"), "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--score-threshold", "9"]) == 2
    assert "judge: score_threshold must be an integer from 1 to 5, received 9" in capsys.readouterr().err


ORACLE_TASKS = {"mail.star": "success", "calendar.delete-event": 3, "admin.security-toggle": "success",
                "shop.product-info": "malformed", "mail.meeting-time": "failure"}
RANDOM_TASKS = ("mail.star", "calendar.delete-event", "admin.security-toggle")


@pytest.mark.slow
@pytest.mark.timeout(900)  # two gui-bench runs with a browser each: minutes on a loaded machine
def test_run_oracle_and_random_in_local_mode_then_judge_both(tmp_path, capsys):
    bundled = {t["localweb"]["template"]: t for t in json.loads(LOCAL_TASK_FILE.read_text())}
    oracle_ids = ",".join(bundled[name]["task_id"] for name in ORACLE_TASKS)
    random_ids = ",".join(bundled[name]["task_id"] for name in RANDOM_TASKS)
    # a generous settle bound: on a loaded machine a page may take over the default 2 s to settle
    env = ["--env", "GUI/OnlineMind2Web-v0", "--env-arg", "mode=local", "--env-arg", "settle_timeout_s=10"]
    assert main(["run", *env, "--agent", "oracle", "--tasks", oracle_ids, "--out", str(tmp_path / "oracle")]) == 0
    assert main(["run", *env, "--agent", "random", "--max-steps", "2", "--tasks", random_ids,
                 "--out", str(tmp_path / "random")]) == 0
    capsys.readouterr()
    for folder, success in (("oracle", True), ("random", False)):
        results = [json.loads(p.read_text()) for p in (tmp_path / folder).glob("tasks/*/result.json")]
        outcomes = {r["task_id"]: (r["success"], r["error"]) for r in results}
        assert set(outcomes.values()) == {(success, None)}, outcomes
    answer_task = bundled["shop.product-info"]
    layout = json.loads(next((tmp_path / "oracle" / "mind2web").glob(f"{answer_task['task_id']}__*/result.json")).read_text())
    assert layout["schema_version"] == "online-mind2web-v2" and layout["task"] == answer_task["confirmed_task"]
    assert layout["reference_length"] == answer_task["reference_length"] and layout["agent_final_answer"]
    assert layout["action_history"][-1]["action"] == f"TASK_COMPLETE -> ANSWER: {layout['agent_final_answer']}"
    assert all(layout["agent_final_answer"] not in step["action"] for step in layout["action_history"][:-1])
    assert len(layout["action_history"]) == answer_task["reference_length"] + 1

    rules = {bundled[name]["confirmed_task"]: rule for name, rule in ORACLE_TASKS.items()}
    with ChatServer(scripted_judge(rules)) as server:
        code, out = _judge(capsys, server, tmp_path / "oracle", tmp_path / "random")
    assert code == 0
    # oracle: tp (star), tp (delete: 3 actions), tp (toggle), error, fn (meeting time);
    # random: fp (star), tn (delete: 2 actions), fp (toggle)
    assert ": 5 success, 2 failure, 1 judge error(s)" in out
    assert "agreement with ground truth: accuracy 57.1%  precision 60.0%  recall 75.0%  " \
           "(n=7: tp 3, fp 2, fn 1, tn 1)" in out
