"""`gui-bench`: the subcommand table, argument parsing, task selection, list, run, report, and a
real ``kill -9`` in the middle of a run followed by ``--resume``, and any Unicode text through
run, resume and report."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gui_gym.benchmarks.cli import COMMANDS, main
from gui_gym.benchmarks.harness.results import Job, ResultsStore
from gui_gym.benchmarks.harness.summary import finalize, print_summary
from gui_gym.benchmarks.harness.task_selection import select_tasks
from gui_gym.errors import HarnessError
from gui_gym.records import load_episode, read_result
from gui_gym.runtime.processes import descendants, running
from gui_gym.registration import DEFAULT_ENV_ID
from gui_gym.runtime.waiting import wait_until

IDS = ["shop.search", "shop.checkout", "mail.reply", "mail.archive"]
FACTS = {"shop.search": {"domain": "shop", "difficulty": "easy"}, "shop.checkout": {"domain": "shop", "difficulty": "hard"},
         "mail.reply": {"domain": "mail", "difficulty": "easy"}, "mail.archive": {"domain": "mail", "difficulty": "easy"}}
GUI_BENCH = str(Path(sys.executable).with_name("gui-bench"))


def test_the_default_env_is_the_embedded_suite_and_every_subcommand_resolves():
    assert DEFAULT_ENV_ID == "GUI/LocalWeb-v0"
    assert {"list", "run", "report", "perf", "judge", "criteria"} <= set(COMMANDS)
    for target in COMMANDS.values():
        module = importlib.import_module(target)
        assert isinstance(module.HELP, str) and callable(module.add_arguments) and callable(module.run), target


def test_no_subcommand_prints_help(capsys):
    assert main([]) == 2
    assert "run" in capsys.readouterr().out


def test_tasks_are_chosen_by_id_file_and_filter(tmp_path):
    def pick(specs, limit=None):
        return select_tasks(IDS, FACTS.__getitem__, specs, limit)
    assert pick(None) == IDS and pick(None, 2) == IDS[:2]
    assert pick(["mail.reply,shop.search"]) == ["mail.reply", "shop.search"]
    assert pick(["domain:mail"]) == ["mail.reply", "mail.archive"]
    assert pick(["difficulty:easy", "shop.checkout"]) == ["shop.search", "mail.reply", "mail.archive", "shop.checkout"]
    lines, listing = tmp_path / "ids.txt", tmp_path / "ids.json"
    lines.write_text("# smoke set\nmail.archive\n\nshop.search\n")
    listing.write_text(json.dumps(["shop.checkout"]))
    assert pick([str(lines), str(listing)]) == ["mail.archive", "shop.search", "shop.checkout"]
    with pytest.raises(HarnessError, match=r"--tasks 'domain:calendar' selects nothing; domain takes the values \['mail', 'shop'\]"):
        pick(["domain:calendar"])
    with pytest.raises(HarnessError, match=r"'shop.serch' is not a task id, a file, or a field:value filter; did you mean \['shop.search'"):
        pick(["shop.serch"])
    listing.write_text(json.dumps(["nope"]))
    with pytest.raises(HarnessError, match=r"names unknown task ids \['nope'\]"):
        pick([str(listing)])
    with pytest.raises(HarnessError, match="--limit must be >= 1, received 0"):
        pick(None, 0)


def test_list_shows_each_env_and_an_envs_tasks(capsys):
    assert main(["list", "--env", "GUI/Demo-v0"]) == 0
    assert capsys.readouterr().out.splitlines() == ['demo.press-button  {"domain": "demo"}', 'demo.fill-form  {"domain": "demo"}',
                                                   'demo.read-code  {"domain": "demo"}']
    assert main(["list"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert set(rows) >= {"GUI/Demo-v0", "GUI/LocalWeb-v0", "GUI/OSWorld-v0"}
    assert rows["GUI/Demo-v0"].split()[1:3] == ["3", "ready;"]


def test_errors_are_one_clear_line(capsys, tmp_path):
    assert main(["run", "--env", "GUI/Demo-v1", "--out", str(tmp_path)]) == 2
    assert "gui-bench run: error: cannot make 'GUI/Demo-v1'" in capsys.readouterr().err
    assert main(["run", "--env", "GUI/Demo-v0", "--agent", "radnom", "--out", str(tmp_path)]) == 2
    assert "unknown agent 'radnom'" in capsys.readouterr().err
    assert main(["run", "--resume", "--out", str(tmp_path)]) == 2
    assert "holds no run.json" in capsys.readouterr().err
    agent = tmp_path / "broken_agent.py"
    agent.write_text("class Broken:\n    def __init__(self):\n        raise RuntimeError('model weights not found')\n"
                     "    def act(self, obs, info):\n        return 'done'\n")
    assert main(["run", "--env", "GUI/Demo-v0", "--agent", str(agent), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"gui-bench run: error: agent {str(agent)!r} failed to start: RuntimeError: "
                           "model weights not found")


@pytest.mark.parametrize("where", ["under /proc", "through a file", "an existing file"])
def test_an_out_folder_that_cannot_be_made_is_one_line_and_exit_2(tmp_path, capsys, where):
    (tmp_path / "a-file").write_text("")
    out = {"under /proc": "/proc/gui-bench-results/run", "through a file": str(tmp_path / "a-file" / "run"),
           "an existing file": str(tmp_path / "a-file")}[where]
    assert main(["run", "--env", "GUI/Demo-v0", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gui-bench run: error: cannot make the results folder {out}"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"] and (tmp_path / "a-file").read_text() == ""


@pytest.mark.parametrize("option, message", [
    (["--workers", "0"], "workers must be >= 1, received 0"),
    (["--retries", "-1"], "retries must be >= 0, received -1"),
    (["--episode-timeout", "0"], "timeouts must be > 0 s"),
    (["--repeats", "0"], "--repeats must be >= 1, received 0"),
    (["--limit", "0"], "--limit must be >= 1, received 0"),
    (["--osworld-model", "m"], "--osworld-model: names an OSWorld run's folders; GUI/Demo-v0 is not OSWorld"),
])
def test_a_bad_argument_is_refused_before_anything_is_written(tmp_path, capsys, option, message):
    out = tmp_path / "run"
    assert main(["run", "--env", "GUI/Demo-v0", "--out", str(out), *option]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()


def test_a_run_in_which_every_episode_was_an_error_exits_1(tmp_path, capsys):
    agent = tmp_path / "crashing_agent.py"
    agent.write_text("class Crashing:\n    def act(self, obs, info):\n        raise RuntimeError('no model')\n")
    out = tmp_path / "run"
    assert main(["run", "--env", "GUI/Demo-v0", "--agent", str(agent), "--tasks", "demo.read-code", "--retries", "0",
                 "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "every episode ended in an error: the run measured nothing (exit 1)" in captured.err
    assert json.loads((out / "summary.json").read_text())["overall"]["errors"] == 1  # the run itself is kept
    assert main(["run", "--resume", "--rerun-errors", "--out", str(out)]) == 1


def _finished_run(root: Path) -> Path:
    """A results folder of two finished Demo episodes, written as the harness writes them."""
    store = ResultsStore(root)
    jobs = [Job("demo.read-code", 0, {"domain": "demo"}), Job("demo.press-button", 0, {"domain": "demo"})]
    store.write_run({"env_id": "GUI/Demo-v0", "env_kwargs": {}, "agent": "oracle", "agent_kwargs": {},
                     "action_format": None, "created_at": "2026-01-01T00:00:00+00:00", "jobs": [j.to_dict() for j in jobs]})
    for job in jobs:
        store.task_dir(job.key).mkdir(parents=True)
        (store.task_dir(job.key) / "result.json").write_text(json.dumps(
            {"task_id": job.task_id, "seed": 0, "key": job.key, "success": True, "score": 1.0, "steps": 1,
             "error": None, "attempt": 1, "previous_errors": [], "timings": {"total_s": 1.0}, "meta": job.meta}))
    return root


def _edit(name, change):
    def apply(root):
        data = json.loads((root / name).read_text())
        change(data)
        (root / name).write_text(json.dumps(data))
    return apply


def _replace_with_folder(name):
    def apply(root):
        (root / name).unlink()
        (root / name).mkdir()
    return apply


RESULT = "tasks/demo.read-code__seed0/result.json"
DAMAGE = {  # what is done to the folder -> what the one line must say
    "run.json truncated": (lambda r: (r / "run.json").write_text((r / "run.json").read_text()[:50]),
                           "run.json: not valid JSON (Expecting property name enclosed in double quotes at line 4"),
    "run.json empty": (lambda r: (r / "run.json").write_text(""), "run.json: empty"),
    "run.json not UTF-8": (lambda r: (r / "run.json").write_bytes(b"\xff\xfe{"), "run.json: not UTF-8 text (byte 0"),
    "run.json a list": (lambda r: (r / "run.json").write_text("[]"),
                        "run.json: the file should be a JSON object, it holds a list"),
    "run.json a folder": (_replace_with_folder("run.json"), "run.json: expected a file, found a folder"),
    "no job list": (_edit("run.json", lambda d: d.pop("jobs")), "run.json: lacks the field 'jobs'"),
    "job list an object": (_edit("run.json", lambda d: d.update(jobs={"a": 1})),
                           'run.json: field jobs: expected a list, received {"a": 1}'),
    "seed a word": (_edit("run.json", lambda d: d["jobs"][0].update(seed="zero")),
                    'run.json: field jobs[0].seed: expected an integer, received "zero"'),
    "job without a task": (_edit("run.json", lambda d: d["jobs"][0].pop("task_id")),
                           "run.json: jobs[0] lacks the field 'task_id'"),
    "env_kwargs a list": (_edit("run.json", lambda d: d.update(env_kwargs=[1])),
                          "run.json: field env_kwargs: expected an object, received [1]"),
    "no env_kwargs": (_edit("run.json", lambda d: d.pop("env_kwargs")), "run.json: lacks the field 'env_kwargs'"),
    "job key not its own": (_edit("run.json", lambda d: d["jobs"][0].update(key="../../elsewhere")),
                            "run.json: jobs[0].key is '../../elsewhere', but its task and seed make"),
    "result.json a folder": (_replace_with_folder(RESULT), f"{RESULT}: expected a file, found a folder; move it away"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_results_folder_is_one_line_naming_the_file(tmp_path, capsys, damage):
    apply, message = DAMAGE[damage]
    root = _finished_run(tmp_path / "run")
    apply(root)
    for command in (["run", "--resume", "--out", str(root)], ["report", str(root)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"gui-bench {command[0]}: error: {root}/"), err
        assert message in err, err


def test_damaged_results_of_one_episode_count_as_not_run_and_a_misplaced_file_stops_the_run(tmp_path, capsys, caplog):
    root = _finished_run(tmp_path / "run")
    (root / "summary.json").write_text('{"overall": ')
    for broken in ('{"task_id": "demo.read-code", "suc', "[1, 2]", '{"task_id": "demo.read-code", "success": "yes"}',
                   '{"task_id": "demo.read-code", "error": "boom", "attempt": "two"}',
                   '{"task_id": "demo.read-code", "error": "boom", "previous_errors": 5}',
                   '{"task_id": "demo.read-code", "timings": "fast"}', '{"success": true}'):
        (root / RESULT).write_text(broken)
        caplog.clear()
        assert main(["report", str(root)]) == 0, broken
        assert [r.getMessage().split(":")[0] for r in caplog.records] == [str(root / "summary.json"), str(root / RESULT)]
        assert caplog.records[1].getMessage().endswith("; the episode counts as not run")
        store = ResultsStore(root)
        assert [job.key for job in store.pending(store.jobs_of_run(), retries=1)] == ["demo.read-code__seed0"]
        capsys.readouterr()
        (root / "summary.json").write_text('{"overall": ')
    (root / RESULT).unlink()
    for path in ("tasks", "mind2web"):
        target = root / path
        moved = root / (path + ".moved")
        if target.exists():
            target.rename(moved)
        target.write_text("not a folder")
        assert main(["run", "--resume", "--out", str(root)]) == 2
        assert capsys.readouterr().err.strip() == f"gui-bench run: error: {target}: expected a folder, found a file; move it away"
        target.unlink()
        if moved.exists():
            moved.rename(target)


class _SuiteWithTables:
    def __init__(self):
        self.seen = None

    def report(self, results):
        self.seen = results
        return "platform  accuracy\nweb       50.0%"


def test_a_suites_own_report_follows_the_summary(tmp_path, capsys):
    store = ResultsStore(tmp_path)
    jobs = [Job("q1", 0, {"platform": "web"}), Job("q2", 0, {"platform": "web"})]
    store.write_run({"env_id": "GUI/MMBench-GUI-L1-v0", "agent": "oracle", "jobs": [j.to_dict() for j in jobs]})
    for job, success in zip(jobs, (True, False)):
        store.task_dir(job.key).mkdir(parents=True)
        (store.task_dir(job.key) / "result.json").write_text(json.dumps(
            {"task_id": job.task_id, "seed": 0, "key": job.key, "success": success, "score": float(success),
             "steps": 1, "error": None, "meta": job.meta}))
    suite = _SuiteWithTables()
    summary = finalize(store, jobs, suite, 3.0)
    assert [(r["task_id"], r["platform"], r["score"]) for r in suite.seen] == [("q1", "web", 1.0), ("q2", "web", 0.0)]
    assert json.loads((tmp_path / "summary.json").read_text())["suite_report"] == summary["suite_report"]
    assert (tmp_path / "report.html").is_file() and not (tmp_path / "mind2web").exists()
    print_summary(summary, tmp_path)
    printed = capsys.readouterr().out
    assert printed.index("overall") < printed.index("platform  accuracy") < printed.index("report.html")


@pytest.mark.slow
def test_run_then_report_then_resume_a_finished_run(capsys, tmp_path):
    out = tmp_path / "run"
    assert main(["run", "--env", "GUI/Demo-v0", "--tasks", "demo.read-code", "--repeats", "2", "--seed", "5",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "2 of 2 episodes to run" in printed and "overall" in printed and str(out / "report.html") in printed
    run = json.loads((out / "run.json").read_text())
    assert [j["key"] for j in run["jobs"]] == ["demo.read-code__seed5", "demo.read-code__seed6"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["successes"] == 2 and summary["env_id"] == "GUI/Demo-v0"
    assert main(["run", "--env", "GUI/Demo-v0", "--out", str(out)]) == 2
    assert "already holds a run: continue it with --resume" in capsys.readouterr().err
    assert main(["run", "--resume", "--out", str(out), "--tasks", "demo.fill-form"]) == 2
    assert "drop --tasks" in capsys.readouterr().err
    assert main(["run", "--resume", "--out", str(out)]) == 0
    assert "0 of 2 episodes to run" in capsys.readouterr().out
    (out / "report.html").unlink()
    assert main(["report", str(out), "--images", "link"]) == 0
    page = (out / "report.html").read_text()
    assert "data:image" not in page and "tasks/demo.read-code__seed5/step_0000.webp" in page


def _recorded(out: Path) -> list[Path]:
    return sorted(out.glob("tasks/*/result.json"))


EPISODES = 9
"""The kill test's run: Demo's 3 tasks x 3 repeats, enough that the kill lands with episodes left."""


@pytest.mark.slow
def test_kill_9_mid_run_then_resume_records_every_task_exactly_once(tmp_path):
    out = tmp_path / "run"
    command = [GUI_BENCH, "run", "--env", "GUI/Demo-v0", "--repeats", "3", "--out", str(out)]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: len(_recorded(out)) >= 3, timeout_s=240), "the run recorded nothing"
        tree = descendants(first.pid)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    done_before = {p.parent.name for p in _recorded(out)}
    assert 3 <= len(done_before) < EPISODES, "kill the run while episodes remain"
    assert wait_until(lambda: not any(running(pid) for pid in tree), timeout_s=30), \
        "workers or browsers outlived the killed run"
    finished = subprocess.run(command[:2] + ["--resume", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    assert f"{EPISODES - len(done_before)} of {EPISODES} episodes to run" in finished.stdout
    results = [json.loads(p.read_text()) for p in _recorded(out)]
    assert len(results) == EPISODES and all(r["success"] for r in results)
    assert len({(r["task_id"], r["seed"]) for r in results}) == EPISODES
    for path in _recorded(out):
        steps = [json.loads(line)["step"] for line in (path.parent / "traj.jsonl").read_text().splitlines()]
        assert steps == list(range(json.loads(path.read_text())["steps"] + 1)), path.parent.name  # no line twice
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["tasks"] == summary["overall"]["successes"] == EPISODES
    assert len(list(out.glob("mind2web/*/result.json"))) == EPISODES


ECHO = '''
"""Echo/Demo-v0: GUI/Demo-v0 whose tasks ask what the test says, and an agent whose every
output (raw text, typed text, answer, response, thought) is what the test says."""
import gymnasium

from gui_gym import Action
from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig
from gui_gym.backends.browser.web_access import OWN_SERVERS_ONLY
from gui_gym.env import GUIEnv
from gui_gym.suites.demo import DemoSuite


class EchoSuite(DemoSuite):
    def __init__(self, instructions):
        super().__init__()
        self.instructions = instructions

    def make_task(self, task_id, seed):
        task = super().make_task(task_id, seed)
        task.instruction = self.instructions[task_id]
        return task


def make_env(instructions, **kwargs):
    config = BrowserConfig.pop_from(kwargs, allowed_hosts=OWN_SERVERS_ONLY, disable_animations=True)
    return GUIEnv(BrowserBackend(config), EchoSuite(instructions), **kwargs)


if "Echo/Demo-v0" not in gymnasium.registry:
    gymnasium.register("Echo/Demo-v0", entry_point=make_env)


class EchoAgent:
    action_format = "json"

    def __init__(self, texts):
        self.texts = texts

    def reset(self, task_info):
        self.text = self.texts[task_info["task_id"]]
        self.moves = [self.text, Action.type(self.text), Action.answer(self.text)]

    def act(self, obs, info):
        self.last_response = self.last_thought = self.text
        return self.moves.pop(0)
'''
ECHO_TASKS = ("demo.press-button", "demo.fill-form")
"""Tasks an answer never solves: whatever the text, each episode is the agent's failure."""
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines()` breaks at."""
KNOWN_BREAKERS = ("no idea\u2028sorry", LINE_BREAKS + "\x00\t\"\\</script><!--")
"""The reported answer, and every line break with a NUL, quotes and the report page's closers."""


def _echo_run(root: Path, texts: dict[str, str]) -> Path:
    """gui-bench run of `EchoAgent` on Echo/Demo-v0, then --resume after one episode's result
    is lost (as a run killed mid-episode leaves it), then gui-bench report; returns the run folder."""
    (root / "echo_demo.py").write_text(ECHO)
    out = root / "run"
    env = {**os.environ, "PYTHONPATH": str(root)}
    first = subprocess.run([GUI_BENCH, "run", "--env", "echo_demo:Echo/Demo-v0", "--agent", f"{root / 'echo_demo.py'}:EchoAgent",
                            "--env-arg", f"instructions={json.dumps(texts)}", "--agent-arg", f"texts={json.dumps(texts)}",
                            "--tasks", ",".join(ECHO_TASKS), "--out", str(out)],
                           capture_output=True, text=True, timeout=240, env=env)
    assert first.returncode == 0 and "2 of 2 episodes to run" in first.stdout, first.stdout + first.stderr
    (out / "tasks" / f"{ECHO_TASKS[1]}__seed0" / "result.json").unlink()
    resumed = subprocess.run([GUI_BENCH, "run", "--resume", "--out", str(out)], capture_output=True, text=True,
                             timeout=240, env=env)
    assert resumed.returncode == 0 and "1 of 2 episodes to run" in resumed.stdout, resumed.stdout + resumed.stderr
    (out / "report.html").unlink()
    report = subprocess.run([GUI_BENCH, "report", str(out)], capture_output=True, text=True, timeout=120, env=env)
    assert report.returncode == 0, report.stderr
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(max_examples=1, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(st.characters(exclude_categories=("Cs",)) | st.sampled_from(LINE_BREAKS), min_size=1, max_size=30),
                min_size=2, max_size=2))
def test_any_text_an_agent_or_a_task_writes_is_the_agents_failure_through_run_resume_and_report(texts):
    """Issue 36: an agent that answered "no idea\\u2028sorry" got failures 0, errors 3 (its
    step records split at U+2028) and no report. Each generated text follows the known breakers
    (one run of three CLI calls, not one for a fixed example and one for a generated one)."""
    texts = dict(zip(ECHO_TASKS, (known + text for known, text in zip(KNOWN_BREAKERS, texts))))
    with tempfile.TemporaryDirectory() as folder:
        out = _echo_run(Path(folder), texts)
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        overall = summary["overall"]
        assert (overall["tasks"], overall["successes"], overall["failures"], overall["errors"]) == (2, 0, 2, 0)
        for task_id, text in texts.items():
            folder_of_task = out / "tasks" / f"{task_id}__seed0"
            result = read_result(folder_of_task)
            assert (result.outcome, result.final_answer, result.instruction, result.steps) == ("failure", text, text, 3)
            episode = load_episode(folder_of_task, screenshots=False)
            assert episode.instruction == text and [s.action for s in episode.steps][0] == text
            assert episode.steps[0].info["action_error"] and episode.steps[0].thought == text
            assert episode.steps[1].parsed_action == {"kind": "type", "text": text}
            assert episode.final_answer == text and not episode.infra_error
        page = (out / "report.html").read_text(encoding="utf-8")
        payload = page.split('<script type="application/json" id="report-data">', 1)[1].split("</script>", 1)[0]
        assert not set(payload) & set(LINE_BREAKS)  # each on one line, for any reader of the page
        shown = {t["task_id"]: t for t in json.loads(payload)["tasks"]}
        assert {t: (shown[t]["instruction"], shown[t]["final_answer"], shown[t]["outcome"]) for t in texts} == \
            {t: (text, text, "failure") for t, text in texts.items()}
