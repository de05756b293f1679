"""An installed package (a wheel, not the repository) carries its templates and catalogs and builds the
same site: `templates/` and `locale/` live beside the packages in the repository, outside them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import html5lib

from newsroom import PROJECT_ROOT

SOURCES = ("pyproject.toml", "setup.py", "README.md", "newsroom", "glossary", "issues", "templates", "locale")


def _wheel(tmp_path: Path) -> Path:
    """A wheel built from a copy of the repository's sources (no build folder left in the repository)."""
    source = tmp_path / "source"
    for name in SOURCES:
        path = PROJECT_ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "bundled"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(path, source / name)
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(source)], check=True, capture_output=True, text=True)
    (wheel,) = out.glob("newsroom-*.whl")
    return wheel


def _build_sample(work: Path, code: Path) -> Path:
    """The sample publication built in `work` by the package found at `code`; returns the site."""
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(code)}
    for args in (["init", "--sample"], ["build", "--out", "site", "--email-out", "email"]):
        subprocess.run([sys.executable, "-m", "newsroom", "--db", f"sqlite:///{work / 'site.db'}", *args],
                       cwd=work, env=env, check=True, capture_output=True, text=True)
    return work / "site"


def test_a_wheel_carries_the_templates_and_catalogs_and_builds_the_same_site(tmp_path):
    wheel = _wheel(tmp_path)
    installed = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(installed)
    templates = sorted(p.relative_to(PROJECT_ROOT).as_posix() for p in (PROJECT_ROOT / "templates").rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts)
    assert {f"newsroom/bundled/{name}" for name in templates} <= names
    for lang in ("hu", "en"):
        assert f"newsroom/bundled/locale/{lang}/LC_MESSAGES/messages.po" in names

    # The installed copy uses its own templates and catalogs, and builds the sample publication with them.
    where = subprocess.run([sys.executable, "-c", "import newsroom.render.html as h, newsroom.i18n as i;"
                            "print(h.TEMPLATES); print(i.LOCALE_DIR)"], cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(installed)}, check=True, capture_output=True,
                           text=True).stdout.split()
    assert where == [str(installed / "newsroom" / "bundled" / name) for name in ("templates", "locale")]
    theirs = _build_sample(tmp_path / "from-wheel", installed)
    page = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse((theirs / "hu" / "index.html").read_bytes())
    assert page.find(".//nav[@class='site-nav']").get("aria-label") == "Webhely"  # the Hungarian catalog's

    # The same bytes as the repository's own build.
    ours = _build_sample(tmp_path / "from-repository", PROJECT_ROOT)
    files = {p.relative_to(ours) for p in ours.rglob("*") if p.is_file()}
    assert files == {p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file()}
    assert [path for path in sorted(files) if (ours / path).read_bytes() != (theirs / path).read_bytes()] == []
