"""Running from a source checkout: find the rules library in the top-level ``rules/`` folder.

Installed, ``rules/`` is the subpackage ``s2sad.rules`` (see pyproject.toml's package-dir).
In a checkout that has not been installed, ``s2sad/`` has no ``rules`` subfolder, so this
module loads ``../rules`` under that name instead. It does nothing when installed.
"""
from __future__ import annotations

import importlib.util
import os
import sys


def load_checkout_rules(package_dir: str) -> None:
    if "s2sad.rules" in sys.modules or os.path.isdir(os.path.join(package_dir, "rules")):
        return
    if importlib.util.find_spec("s2sad.rules") is not None:  # an editable install's finder
        return
    checkout_rules = os.path.join(os.path.dirname(package_dir), "rules")
    init = os.path.join(checkout_rules, "__init__.py")
    if not os.path.isfile(init):
        return
    spec = importlib.util.spec_from_file_location("s2sad.rules", init, submodule_search_locations=[checkout_rules])
    module = importlib.util.module_from_spec(spec)
    sys.modules["s2sad.rules"] = module
    spec.loader.exec_module(module)
