"""Files of one's own in the site's root, copied as they are: robots.txt, CNAME, favicon.ico, .nojekyll,
.well-known/security.txt (the `static` setting names their folder).

A build replaces its folder's contents and refuses a folder holding anything it does not make (see
`pipeline._refuse_foreign`): these files are outputs of the build like its pages, written when their
bytes change and removed when they leave the folder. They may not take the place of a path the build
makes itself (a language's folder, `assets`, `index.html`, `404.html`, the sitemap), nor have a path in the
site longer than the build's state records of it (`state.PATH_LENGTH`).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from newsroom.build.state import PATH_LENGTH
from newsroom.diagnostics import ContentError, Diagnostic

#: Never copied: a version-control folder kept beside the files.
SKIPPED = frozenset({".git"})


def static_paths(folder: Path | None, reserved: Collection[str]) -> dict[str, Path]:
    """{path in the site: source file} of the static folder; ContentError naming each file that would
    take the place of one the build makes (`reserved`: the top-level names a build writes), and each whose
    path the build's state cannot record (PostgreSQL stopped on "value too long" after the site was written)."""
    if folder is None:
        return {}
    found = {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*"))
             if path.is_file() and not SKIPPED & set(path.relative_to(folder).parts)}
    clashes = [Diagnostic(str(path), None, "static", (
        f"the build makes {relative.split('/')[0]!r} in the site itself: rename or move this file"))
        for relative, path in found.items() if relative.split("/")[0] in reserved]
    long = [Diagnostic(str(path), None, "static", (
        f"the file's path in the site is {len(relative):,} characters long, and a build records at most "
        f"{PATH_LENGTH} of it: shorten its name or its folders' names"))
        for relative, path in found.items() if len(relative) > PATH_LENGTH]
    if clashes or long:
        raise ContentError(clashes + long)
    return found


def static_folder(configured: str) -> Path | None:
    """The folder the `static` setting names, or None."""
    return Path(configured) if configured else None
