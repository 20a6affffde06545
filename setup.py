"""Sub-package discovery for the import-name mapping in pyproject.toml.

`core/`, `tui/` and `cli/` are installed as `memdesk.core`, `memdesk.tui` and
`memdesk.cli`; every folder below them with an `__init__.py` becomes a sub-package, so
adding one needs no edit here. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

ROOTS = {"memdesk.core": "core", "memdesk.tui": "tui", "memdesk.cli": "cli"}

packages = []
for name, folder in ROOTS.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=ROOTS)
