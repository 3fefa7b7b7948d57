"""What a task is, per benchmark. A suite asks its backend for everything it does on screen
and never imports Playwright, adbutils or X libraries itself."""

from gui_gym.suites.base import Episode, Milestone, Task, TaskSuite

__all__ = ["Episode", "Milestone", "Task", "TaskSuite"]
