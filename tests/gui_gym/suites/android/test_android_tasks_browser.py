"""Browser tasks: set up and checked on the virtual phone (task.html in Download, Chrome in
front showing "Success!"), and their game pages played for real in Chromium."""

from __future__ import annotations

import os
from collections import deque

import pytest

from tests.fakes.android_world import fake_phone
from gui_gym.backends.browser.playwright_driver import DRIVERS, find_chromium
from gui_gym.suites.android.tasks import TASKS, browser_pages

CHROME = "com.android.chrome"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


@pytest.mark.parametrize("task_id", ["BrowserMaze", "BrowserMultiply", "BrowserDraw"])
def test_set_up_and_check(phone, task_id):
    phone.device.host_path("/sdcard/Download/old.pdf").write_bytes(b"x")
    task = phone.task(task_id, seed=3)
    page = phone.device.host_path("/sdcard/Download/task.html").read_text()
    assert f"SeededRandom({task.params['browser_task_seed']})" in page and not phone.device.host_path(
        "/sdcard/Download/old.pdf").exists()
    assert phone.device.settings["global"]["auto_time"] == "1"  # network time for Chrome
    assert ("com.android.chrome", "android.permission.POST_NOTIFICATIONS") in phone.device.granted
    assert phone.score(task) == 0.0
    chrome = phone.device.show(CHROME)
    chrome.page = ["Success!"]
    assert phone.score(task) == 1.0
    phone.device.home()
    assert phone.score(task) == 0.0  # Chrome not in front
    task.teardown(phone.backend)
    assert phone.device.settings["global"]["auto_time"] == "0" and chrome.page == []


@pytest.fixture(scope="module")
def browser():
    driver = DRIVERS.acquire()  # the module's driver: this thread runs one sync Playwright at most
    try:
        chromium = driver.playwright.chromium.launch(executable_path=find_chromium(),
                                                     args=["--no-sandbox"] if os.geteuid() == 0 else [])
        yield chromium
        chromium.close()
    finally:
        DRIVERS.release(driver)


def open_page(browser, html: str, seed: int):
    page = browser.new_page()
    page.set_content(browser_pages.page(html, seed))
    return page


@pytest.mark.slow
def test_the_maze_is_solved_by_walking_its_path(browser):
    for seed in (1, 2 ** 32 - 1):
        page = open_page(browser, browser_pages.MAZE, seed)
        walls = page.eval_on_selector_all(".cell", "cells => cells.map(c => c.classList.contains('wall'))")
        came = {(0, 0): None}
        queue = deque([(0, 0)])
        while queue:
            r, c = queue.popleft()
            for dr, dc, name in ((-1, 0, "Up"), (1, 0, "Down"), (0, -1, "Left"), (0, 1, "Right")):
                nxt = (r + dr, c + dc)
                if 0 <= nxt[0] < 4 and 0 <= nxt[1] < 4 and not walls[nxt[0] * 4 + nxt[1]] and nxt not in came:
                    came[nxt] = ((r, c), name)
                    queue.append(nxt)
        moves, at = [], (3, 3)
        while came[at] is not None:
            at, name = came[at]
            moves.append(name)
        page.click("text=Left")  # into a wall or the edge: nothing happens
        assert "Success!" not in page.inner_text("body")
        for name in reversed(moves):
            page.click(f"text={name}")
        assert page.inner_text("body").strip() == "Success!"
        page.close()


@pytest.mark.slow
@pytest.mark.parametrize("right", [True, False])
def test_multiply(browser, right):
    page = open_page(browser, browser_pages.MULTIPLY, 7)
    numbers = [int(page.inner_text("#number"))]
    for _ in range(4):
        page.click("#next")
        numbers.append(int(page.inner_text("#number")))
    page.click("#next")
    product = 1
    for n in numbers:
        assert 1 <= n <= 10
        product *= n
    page.fill("#answer", str(product if right else product + 1))
    page.click("text=Submit")
    assert ("Success!" in page.inner_text("#result")) == right
    assert numbers == [int(x) for x in open_page(browser, browser_pages.MULTIPLY, 7).evaluate(
        "() => { const n = [shown[0]]; for (let i = 0; i < 4; i++) { next(); n.push(shown[shown.length - 1]); } return n; }")]


@pytest.mark.slow
@pytest.mark.parametrize("colours_used", [3, 2])
def test_draw(browser, colours_used):
    page = open_page(browser, browser_pages.DRAW, 11)
    goal = page.evaluate("() => goal")
    box = page.locator("#canvas").bounding_box()
    for n, colour in enumerate(goal[:colours_used]):
        page.locator("#palette button").nth(page.evaluate("(c) => colours.indexOf(c)", colour)).click()
        y = box["y"] + 40 + 60 * n
        page.mouse.move(box["x"] + 20, y)
        page.mouse.down()
        page.mouse.move(box["x"] + 200, y, steps=5)
        page.mouse.up()
    page.click("#submit")
    assert (page.inner_text("#result") == "Success!") == (colours_used == 3)


def test_goals_are_androidworlds():
    assert TASKS["BrowserMaze"].from_seed(0).goal.startswith("Open the file task.html in Downloads in the file manager")
