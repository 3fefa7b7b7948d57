"""Packaging: one import name. The repository keeps ``agents/``, ``trainers/`` and ``benchmarks/``
at its top; the distribution installs them as ``gui_gym.agents``, ``gui_gym.trainers`` and
``gui_gym.benchmarks``, so ``gui_gym`` is the only name it adds to site-packages and nothing of
ours merges with another distribution's package of the same name (OpenAI's Agents SDK installs
``agents``). Everything else about the distribution is in pyproject.toml."""

from setuptools import find_namespace_packages, setup

MAPPED = ("agents", "trainers", "benchmarks")
"""Top-level folders of the repository installed under ``gui_gym``."""

# Namespace discovery, so data-only folders (LocalWeb's static files, the bundled samples) are
# packages and their package data ships.
packages = find_namespace_packages(include=["gui_gym", "gui_gym.*"], exclude=["*.__pycache__"])
for top in MAPPED:
    packages += [f"gui_gym.{name}" for name in find_namespace_packages(include=[top, f"{top}.*"], exclude=["*.__pycache__"])]

setup(packages=packages, package_dir={f"gui_gym.{top}": top for top in MAPPED})
