"""The ``gui-bench`` subcommands, one module each: ``HELP``, ``add_arguments(parser)``,
``run(args) -> exit code`` (`gui_gym.benchmarks.cli` lists them)."""
