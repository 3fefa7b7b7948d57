"""``python -m gui_gym.benchmarks.learning``: the learning benchmark (`benchmark.py` says what it runs)."""

from gui_gym.benchmarks.learning.benchmark import main

main()
