"""newsroom: a publishing engine for a bilingual weekly newsletter and its glossary."""

from pathlib import Path

__version__ = "0.1.0"

#: The project root: where `templates/` and `locale/` live next to the packages (in the repository).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = Path(__file__).resolve().parent / "sample"
#: Where an installed package (a wheel) keeps its copies of them, made when it was built (setup.py).
BUNDLED = Path(__file__).resolve().parent / "bundled"


def project_folder(name: str) -> Path:
    """`templates` or `locale`: the installed package's copy, else the repository's."""
    installed = BUNDLED / name
    return installed if installed.is_dir() else PROJECT_ROOT / name


def write_whole(path: Path, data: bytes) -> None:
    """Write one file whole or not at all: under a temporary name beside it, then renamed over it, so a reader
    (another process too) never sees half of it; the temporary file is removed if writing fails."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
