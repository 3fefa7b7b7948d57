"""The browser backend: Playwright on Chromium. `backend.py` the backend (lifecycle, input,
capture), `web_access.py` what a page may reach, `page_scripts.py` the JavaScript it runs in
pages, `playwright_driver.py` the shared Playwright driver and finding Chromium, `state.py` a
page's state for snapshots."""

from gui_gym.backends.browser.backend import BrowserBackend, BrowserConfig

__all__ = ["BrowserBackend", "BrowserConfig"]
