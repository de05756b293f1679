"""The build step pyproject.toml cannot say: an installed package (a wheel) carries `templates/` and
`locale/`, which live beside the packages in the repository (see newsroom.project_folder)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: Folders of the repository an installed package needs at run time.
BUNDLED = ("templates", "locale")


class build_py_with_bundle(build_py):
    """Copy the bundled folders into the built package as `newsroom/bundled/<folder>`. An editable
    install reads them from the repository, so it copies nothing."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        for name in BUNDLED:
            shutil.copytree(ROOT / name, Path(self.build_lib) / "newsroom" / "bundled" / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.mo"))


setup(cmdclass={"build_py": build_py_with_bundle})
