"""The pytest11 entry point of a pip-installed gilsan (pyproject.toml; installed beside the .pth in
site-packages): every pytest of the environment loads it, and through it gilsan.pytest, which stays off
until asked for (``--gilsan``). ``pytest -p gilsan.pytest`` loads the plugin before the entry points
and asks for it by naming it; ``-p no:gilsan`` keeps this entry point out.

A module of its own rather than gilsan.pytest itself: pytest marks a plugin distribution's top-level
modules for assertion rewriting, and without one at the top of site-packages it would take the
plugin's files for top-level modules (``pytest`` among them) and warn in every session. Nor does it
import the plugin: pytest does, through pytest_plugins, after marking it (one imported first is warned
about too).
"""
import sys

# Whether something loaded the plugin before this entry point ran (gilsan.pytest.asked_for).
NAMED_BEFORE = "gilsan.pytest" in sys.modules

pytest_plugins = ["gilsan.pytest"]
