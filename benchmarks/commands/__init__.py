"""The ``gui-bench`` subcommands, one module each: ``HELP``, ``add_arguments(parser)``,
``run(args) -> exit code`` (`benchmarks.cli` lists them)."""
