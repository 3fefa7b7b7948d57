"""The HTML report in a real headless Chromium: the summary, the episode rows, and the
trajectory viewer drawing each action where it happened (click points, typed text, drag and
scroll arrows, answers); model output shown as text, never as markup. One run is the oracle,
one a scripted UI-TARS model served on loopback, both through `gui-bench run`."""

from __future__ import annotations

import json
import math
import os
import re
import shutil

import pytest

from gui_gym.benchmarks.cli import main
from gui_gym.benchmarks.harness.report import build_report
from gui_gym.benchmarks.harness.results import Job, ResultsStore
from gui_gym.action_formats.coords import CoordinateMapping
from gui_gym.backends.browser.playwright_driver import DRIVERS, find_chromium
from gui_gym.records import RESULT_FILE, EpisodeResult, atomic_write_json, read_result
from tests.fakes.chat_server import ChatServer

pytestmark = pytest.mark.slow

INJECTION = "<img src=x onerror=\"document.title='injected'\">"
MODEL_SCRIPT = [f"Thought: {INJECTION} drag the page.\nAction: drag(start_box='(100,100)', end_box='(644,364)')",
                "Thought: scroll.\nAction: scroll(start_box='(644,364)', direction='down')",
                "Thought: finished.\nAction: finished(content='<b>done</b>')"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    assert main(["run", "--env", "GUI/Demo-v0", "--tasks", "demo.fill-form,demo.read-code", "--out", str(root / "oracle")]) == 0
    with ChatServer(MODEL_SCRIPT, models=["ui-tars-1.5"]) as server:
        assert main(["run", "--env", "GUI/Demo-v0", "--tasks", "demo.press-button", "--agent", "openai",
                     "--agent-arg", f"base_url={server.base_url}", "--env-arg", "observe_a11y=true",
                     "--out", str(root / "model")]) == 0
        sent = [request.messages for request in server.requests if request.path.endswith("/chat/completions")]
    (root / "sent.json").write_text(json.dumps(sent))
    return root


@pytest.fixture(scope="module")
def browser():
    driver = DRIVERS.acquire()  # the module's driver: this thread runs one sync Playwright at most
    try:
        args = ["--no-sandbox"] if os.geteuid() == 0 else []
        chromium = driver.playwright.chromium.launch(executable_path=find_chromium(), args=args)
        yield chromium
        chromium.close()
    finally:
        DRIVERS.release(driver)


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    return page, errors


def _at(action):
    """The point a caption names, rounded as the page rounds (half up)."""
    if action.get("x") is None:
        return ""
    return f" ({math.floor(action['x'] + 0.5)}, {math.floor(action['y'] + 0.5)})"


def _steps(folder):
    return [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]


def test_the_viewer_draws_each_action_on_the_screen_it_was_taken_on(runs, browser):
    out = runs / "oracle"
    page, errors = _open(browser, out / "report.html")
    assert page.locator("#summary tbody tr").first.inner_text().split()[:5] == ["overall", "2", "2", "100.0%", "1.00"]
    assert page.locator("#tasks tbody tr").count() == 2
    steps = _steps(out / "tasks" / "demo.fill-form__seed0")
    page.click('#tasks tr[data-key="demo.fill-form__seed0"]')
    assert page.locator("#viewer-body").is_visible()
    assert page.locator("#v-instruction").inner_text() == steps[0]["instruction"]
    assert page.locator("#position").inner_text() == f"step 1 / {len(steps) - 1}"
    image = page.locator("#shot")
    assert image.get_attribute("src") == f"tasks/demo.fill-form__seed0/{steps[0]['screenshot_file']}"
    assert page.evaluate("document.getElementById('shot').naturalWidth") == 1280  # the file loaded
    click = page.locator("#overlay .mark-click")
    assert float(click.get_attribute("data-x")) == pytest.approx(steps[1]["parsed_action"]["x"])
    assert float(click.get_attribute("data-y")) == pytest.approx(steps[1]["parsed_action"]["y"])
    assert click.locator("circle").first.bounding_box()["width"] > 10  # drawn, at the screenshot's scale
    page.click("#next")
    typed = steps[2]["parsed_action"]
    assert page.locator("#captions .mark-type").text_content() == f"type \u201c{typed['text']}\u201d{_at(typed)}"
    assert page.locator("#overlay text").count() == 0  # words under the screen, none over it
    page.keyboard.press("ArrowRight")
    assert page.locator("#position").inner_text() == f"step 3 / {len(steps) - 1}"
    key_step = next(n for n, step in enumerate(steps) if n and step["parsed_action"]["kind"] == "key")
    page.locator("#slider").fill(str(key_step - 1))
    assert page.locator("#captions .mark-key").text_content() == "key down"
    page.locator("#slider").fill(str(len(steps) - 1))
    assert page.locator("#position").inner_text() == "final screen"
    assert "success" in page.locator("#details").inner_text()
    page.click('#tasks tr[data-key="demo.read-code__seed0"]')
    answer = _steps(out / "tasks" / "demo.read-code__seed0")[1]["parsed_action"]["text"]
    assert page.locator("#captions .mark-answer").text_content() == f"answer: {answer}"
    assert errors == []


def test_model_output_is_drawn_and_shown_as_text_only(runs, browser):
    out = runs / "model"
    result = read_result(out / "tasks" / "demo.press-button__seed0")
    assert result.error is None and result.success is False and result.steps == 3
    page, errors = _open(browser, out / "report.html")
    page.click('[data-filter="failure"]')
    assert page.locator("#tasks tbody tr").count() == 1
    page.click('#tasks tr[data-key="demo.press-button__seed0"]')
    mapping = CoordinateMapping("smart_resize", (1280, 720))
    line = page.locator("#overlay .mark-drag line")
    (x1, y1), (x2, y2) = mapping.to_screen(100, 100), mapping.to_screen(644, 364)
    for name, value in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)):
        assert float(line.get_attribute(name)) == pytest.approx(value)
    details = page.locator("#details").inner_text()
    assert INJECTION in details and "drag(start_box='(100,100)'" in details
    assert page.locator("#details img").count() == 0 and page.title() != "injected"
    page.click("#next")
    scroll = page.locator("#overlay .mark-scroll")
    assert (float(scroll.get_attribute("data-x")), float(scroll.get_attribute("data-y"))) == pytest.approx((640, 360))
    page.click("#next")
    assert page.locator("#captions .mark-done").text_content() == "done: <b>done</b>"
    assert errors == []


def _parts(content):
    """A message's content as (kind, text) pairs, from a request or from a recorded prompt."""
    if isinstance(content, str):
        return [("text", content)]
    return [("image", "") if isinstance(part, dict) and ("image" in part or part.get("type") == "image_url")
            else ("text", part if isinstance(part, str) else part["text"]) for part in content]


def test_each_step_shows_the_prompt_the_model_was_sent_and_the_a11y_tree_the_agent_saw(runs, browser):
    out = runs / "model"
    steps = _steps(out / "tasks" / "demo.press-button__seed0")
    sent = json.loads((runs / "sent.json").read_text())
    assert len(sent) == 3
    for step, messages in zip(steps[1:], sent):  # the record holds what went out: texts exact, images by size
        assert [(m["role"], _parts(m["content"])) for m in step["prompt"]] == \
            [(m["role"], _parts(m["content"])) for m in messages]
        assert {"image": [1280, 720]} in step["prompt"][-1]["content"]
    page, errors = _open(browser, out / "report.html")
    page.click('#tasks tr[data-key="demo.press-button__seed0"]')
    prompt = page.locator('#details details[data-field="prompt"]')
    assert not prompt.locator("pre").is_visible()  # folded until asked
    prompt.locator("summary").click()
    shown = prompt.locator("pre").inner_text()
    assert steps[0]["instruction"] in shown and "[image 1280\u00d7720]" in shown
    assert f"\u2500\u2500 {sent[0][0]['role']} \u2500\u2500" in shown
    tree = page.locator('#details details[data-field="a11y tree"]')
    tree.locator("summary").click()
    assert tree.locator("pre").text_content() == steps[0]["a11y_tree"] and "button" in steps[0]["a11y_tree"]
    page.click("#next")  # the next step: the tree of the screen after step 1
    page.locator('#details details[data-field="a11y tree"] summary').click()
    assert page.locator('#details details[data-field="a11y tree"] pre').text_content() == steps[1]["a11y_tree"]
    assert errors == []


@pytest.fixture(scope="module")
def long_report(runs, tmp_path_factory):
    """A 60-episode report: the oracle run's two real episodes, each under 30 seeds, in two domains."""
    source = runs / "oracle"
    store = ResultsStore(tmp_path_factory.mktemp("long"))
    jobs = []
    for seed in range(30):
        for key, domain in (("demo.fill-form__seed0", "forms"), ("demo.read-code__seed0", "reading")):
            result = read_result(source / "tasks" / key)
            job = Job(result.task_id, seed, {"domain": domain})
            shutil.copytree(source / "tasks" / key, store.task_dir(job.key))
            atomic_write_json(store.task_dir(job.key) / RESULT_FILE,
                              {**result.to_dict(), "seed": seed, **job.result_fields()})
            jobs.append(job)
    run = json.loads((source / "run.json").read_text())
    store.write_run({**run, "jobs": [job.to_dict() for job in jobs]})
    return build_report(store.root)


IN_VIEW_JS = """(id) => { const box = document.getElementById(id).getBoundingClientRect();
  return box.top >= 0 && box.top < innerHeight && box.bottom > 0 && box.width > 0; }"""


@pytest.mark.parametrize("width, height", [(1280, 800), (1920, 1080), (1000, 800)])
def test_a_row_clicked_at_the_bottom_of_a_long_list_shows_its_trajectory_in_view(long_report, browser, width, height):
    """Issue 48: in a 51-episode report, a click near the bottom changed a viewer 1,300 px above
    the screen. Beside the list (1280, 1920) the viewer stays in view; stacked (1000) a click
    scrolls to it."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(long_report.as_uri())
    page.locator("#tasks tbody tr").last.click()
    assert page.evaluate(IN_VIEW_JS, "shot"), width
    assert page.locator("#v-task").inner_text() == "demo.read-code (seed 29)"
    page.wait_for_function("document.getElementById('shot').complete && document.getElementById('shot').naturalWidth > 0")
    assert page.locator("#shot").bounding_box()["width"] < 1280  # fitted into the viewer ...
    page.click("#frame")  # ... and at full size on a click
    assert page.locator("#zoom").is_visible()
    page.wait_for_function("document.getElementById('zoom-shot').complete")
    assert page.locator("#zoom-shot").bounding_box()["width"] == pytest.approx(1280, abs=0.5)
    assert page.locator("#zoom-shot").get_attribute("src") == page.locator("#shot").get_attribute("src")
    page.keyboard.press("ArrowRight")  # steps on while zoomed
    assert page.locator("#zoom-position").inner_text() == "demo.read-code: final screen"
    page.keyboard.press("Escape")
    assert not page.locator("#zoom").is_visible()
    assert errors == []
    page.close()


def test_the_list_filters_by_domain_and_searches_task_ids_and_instructions(long_report, browser):
    page, errors = _open(browser, long_report)
    assert page.locator("#shown").inner_text() == "60 of 60"
    page.select_option("#domain", "reading")
    assert page.locator("#tasks tbody tr").count() == 30 and page.locator("#shown").inner_text() == "30 of 60"
    assert {page.locator("#tasks tbody tr").nth(i).get_attribute("data-key").split("__")[0] for i in range(30)} == \
        {"demo.read-code"}
    page.select_option("#domain", "")
    page.fill("#search", "seed29")  # the episode key
    assert page.locator("#tasks tbody tr").count() == 2
    instruction = read_result(long_report.parent / "tasks" / "demo.fill-form__seed0").instruction
    page.fill("#search", instruction[5:25].upper())  # instructions, case-insensitively
    assert page.locator("#tasks tbody tr").count() == 30
    page.fill("#search", "no such episode")
    assert page.locator("#tasks tbody tr").count() == 0 and page.locator("#shown").inner_text() == "0 of 60"
    assert errors == []


def _report_data(path):
    page = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def test_the_report_references_each_episode_file_and_embeds_them_when_asked(runs, tmp_path):
    out = runs / "oracle"
    frames = [f for task in _report_data(out / "report.html")["tasks"] for f in task["frames"] if f]
    shots = sorted(p.relative_to(out).as_posix() for p in (out / "tasks").glob("*/*.webp"))
    assert sorted(f["src"] for f in frames) == shots and len(shots) > 4  # every screenshot, by its relative path
    assert all((out / f["src"]).is_file() for f in frames)
    elsewhere = build_report(out, dest=tmp_path / "elsewhere" / "report.html")  # the paths follow the report
    assert all((elsewhere.parent / f["src"]).resolve().is_file()
               for task in _report_data(elsewhere)["tasks"] for f in task["frames"] if f)
    single = build_report(out, images="webp", dest=tmp_path / "single.html")
    embedded = [f for task in _report_data(single)["tasks"] for f in task["frames"] if f]
    assert len(embedded) == len(frames) and all(f["src"].startswith("data:image/webp;base64,") for f in embedded)
    stored = sum((out / shot).stat().st_size for shot in shots)  # embedded as stored, in base64
    assert single.stat().st_size - (out / "report.html").stat().st_size >= stored


LONG_IDS = ("shop.best-rated-under-budget", "0a0faba3-5580-44df-965d-f562a99b291c", "wiki.event-river-tributary")
"""LocalWeb's longest template name, an OSWorld task id, another long one."""
HIDDEN_COLUMNS_JS = """() => {
  // Each episode-table cell whose right edge lies past the list's box or the window.
  const section = document.getElementById('tasks').closest('section');
  const box = section.getBoundingClientRect(), right = box.right - parseFloat(getComputedStyle(section).paddingRight);
  const cells = [...document.querySelectorAll('#tasks th, #tasks td')];
  return {hidden: cells.filter(c => c.getBoundingClientRect().right > Math.min(right, innerWidth) + 0.5).map(c => c.textContent),
          scrolls: section.scrollWidth > section.clientWidth, cells: cells.length};
}"""


def test_every_column_of_the_episode_list_is_in_view_at_1400_and_1000_px(browser, tmp_path):
    """Issue 40: at a 1400 px window the list hid its last columns (score, steps, time) behind a
    scroll of its own, and an episode's error showed only as a tooltip."""
    store = ResultsStore(tmp_path)
    jobs = [Job(task_id, 12345, {"domain": task_id.split(".")[0]}) for task_id in LONG_IDS]
    store.write_run({"env_id": "GUI/LocalWeb-v0", "env_kwargs": {}, "agent": "oracle", "agent_kwargs": {},
                     "created_at": "2026-01-01T00:00:00+00:00", "jobs": [job.to_dict() for job in jobs]})
    error = "InfraError: the browser did not answer within step_timeout_s=120 s; relaunched"
    for index, job in enumerate(jobs):
        result = EpisodeResult(job.task_id, seed=job.seed, key=job.key, success=index == 0, score=float(index == 0),
                               steps=15, error=error if index == 1 else None, timings={"total_s": 123.4}, meta=job.meta)
        atomic_write_json(store.task_dir(job.key) / RESULT_FILE, result.to_dict())
    report = build_report(tmp_path)
    for width in (1400, 1000):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(report.as_uri())
        assert page.evaluate(HIDDEN_COLUMNS_JS) == {"hidden": [], "scrolls": False, "cells": 6 * 4}, width
        shown = page.locator(f'#tasks tr[data-key="{jobs[1].key}"] .task-error')
        assert shown.is_visible() and shown.inner_text() == error, width
        page.close()
