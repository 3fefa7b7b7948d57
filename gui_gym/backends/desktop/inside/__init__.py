"""The program that runs inside the desktop sandbox: our OSWorld server (`server`, started by
the host as ``python -m gui_gym.backends.desktop.inside.server``) and what it does there.

- the session (`session`): the X display, the desktop shell (GNOME or openbox), the sound
  server, the user's home and OSWorld's VM state (`vm_state`, `services`);
- the screen: capture (`capture`), input (`x11input`), windows (`windows`, `ewmh`), when the
  screen is ready and still (`readiness`, `activity`), the accessibility dump (`a11y_dump`,
  run by the system's Python);
- the task's commands (`commands`, `bounded_run`) and files (`user_files`: as the user,
  through no link);
- the evaluation: the test-suite harness under an id of its own (`evaluator_runs`), the
  agent's leftover processes stopped (`agent_processes`), the files it holds guarded
  (`guarded_files`);
- sudo: the service (`sudo`) and the ``sudo`` the agent runs (`sudo_command`).

Nothing here is imported on the host but by tests; what it needs from the host folder is
listed in ``gui_gym/backends/desktop/__init__.py``.
"""
