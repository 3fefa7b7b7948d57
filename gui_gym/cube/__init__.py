"""gui-gym's families as CUBE benchmarks (``pip install 'gui-gym[cube]'``, Python >= 3.12).

CUBE (``cube-standard``) finds benchmarks through the ``cube.benchmarks`` entry point;
pyproject.toml names one per family: ``gui-gym-demo``, ``gui-gym-localweb``,
``gui-gym-miniwob``, ``gui-gym-mmbench``, ``gui-gym-osworld`` and ``gui-gym-android``, each a
package here with ``benchmark.py`` (its ``BenchmarkConfig``) and ``debug.py`` (what ``cube
test <name>`` runs). What they share: `task` (the task, its config, the family), `tool`
(the env's actions as CUBE tool actions), `debug` (the debug agents: the oracle replayed
through CUBE). See docs/cube.md. Nothing else in gui-gym imports this package: the core needs no CUBE.
"""

from gui_gym.extras import require_extra

require_extra("cube", "gui_gym.cube")
