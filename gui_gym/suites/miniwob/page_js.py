"""JavaScript the MiniWoB suite runs in a task page through its backend (written by us, never
by an agent). Each reads or drives MiniWoB's own page API (``core.*`` and the ``WOB_*``
globals of ``core/core.js``); none changes how a task generates its problem or scores it.
"""

from __future__ import annotations

START_EPISODE_JS = r"""
async ({seed, mode, token, timeLimitMs, readyTimeoutMs}) => {
  const deadline = performance.now() + readyTimeoutMs;
  const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
  // The page's onload shows MiniWoB's sync screen (core.startEpisode); an episode starts from it.
  while (!(window.core && core.cover_div) && performance.now() < deadline) await sleep(5);
  if (!(window.core && core.cover_div)) return {error: 'the page never showed its start screen (core.startEpisode)'};
  // MiniWoB's own episode start, as its Python env does it: end any episode still running (a
  // page kept from the last one), seed, data mode, startEpisodeReal.
  core.endEpisode(0);
  if (timeLimitMs !== null) core.EPISODE_MAX_TIME = timeLimitMs;
  Math.seedrandom(seed);
  core.setDataMode(mode);
  core.startEpisodeReal();
  // The sync screen comes back when the episode ends; a click on it would start an unseeded
  // episode the env never announced (the package's env refuses actions once done instead).
  core.cover_div.onclick = null;
  window.__guiGymMiniWoB = token;
  while (!WOB_TASK_READY && performance.now() < deadline) await sleep(5);
  if (!WOB_TASK_READY) return {error: 'the task never became ready (WOB_TASK_READY stayed false)'};
  const utterance = core.getUtterance();
  return {utterance: (utterance && typeof utterance === 'object') ? utterance.utterance : String(utterance),
          timeLimitMs: core.EPISODE_MAX_TIME};
}
"""
"""Start the episode; returns the utterance and the time limit in force, or an error."""

EPISODE_STATE_JS = r"""
(token) => {
  // A page without this episode's token is not the episode the env started: the agent left
  // it (navigated, reloaded, opened another page), so its globals say nothing about the task.
  if (window.__guiGymMiniWoB !== token) return {left: true};
  const reason = WOB_REWARD_REASON;
  return {left: false, done: !!WOB_DONE_GLOBAL, reward: Number(WOB_REWARD_GLOBAL),
          rawReward: Number(WOB_RAW_REWARD_GLOBAL),
          reason: reason === null || reason === undefined ? null : String(reason)};
}
"""
"""The episode as the page's reward functions left it (MiniWoB's done / reward / raw reward /
reason), or ``left`` when the page is no longer the episode's."""

ELEMENT_BOX_JS = r"""
([selector, text]) => {
  // The first line box of the first element matching `selector` (and whose text is `text`):
  // an inline link that wraps is clicked on its first line, not between its lines.
  for (const element of document.querySelectorAll(selector)) {
    if (text !== null && element.textContent.trim() !== text) continue;
    const rect = element.getClientRects()[0];
    if (rect && rect.width > 0 && rect.height > 0) return [rect.left, rect.top, rect.width, rect.height];
  }
  return null;
}
"""
"""For the scripted solutions: where an element is on screen."""
