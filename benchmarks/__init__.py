"""gui-bench and what it runs: the harness (runner, results store, reports), the perf and learning
benchmarks and the bundled samples' generators. The benchmarks themselves (their tasks and scoring)
are the suites, in ``gui_gym/suites/``."""

from gui_gym.installed_names import refuse_bare_name

refuse_bare_name(__name__)
