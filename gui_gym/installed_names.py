"""One import name per module. The repository keeps ``agents/``, ``trainers/`` and ``benchmarks/``
at its top and installs them as ``gui_gym.agents``, ``gui_gym.trainers`` and
``gui_gym.benchmarks`` (setup.py). From the checkout's root, where the working folder is on
``sys.path``, the same folders would also import under their bare names, and every module in them
would then load twice, as two module objects: two registries, two classes of one name, and verl
refusing the second registration of PAGE's advantage estimator. Each of the three folders calls
`refuse_bare_name` first, so the installed name is the only one that imports."""


def refuse_bare_name(module_name: str) -> None:
    """Raise ImportError when a mapped folder is imported by its bare name (``trainers``) rather
    than as ``gui_gym.trainers``."""
    if not module_name.startswith("gui_gym."):
        raise ImportError(f"'{module_name}' is gui-gym's {module_name}/ folder, installed as 'gui_gym.{module_name}': "
                          f"import it by that name (its bare name would load a second copy of each of its modules)")
