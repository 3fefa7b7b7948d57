"""gui-gym's tests: a regular package, so `tests.fakes` is ours even where another distribution
(verl's wheel) installs a top-level `tests` package."""
