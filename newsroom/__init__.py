"""newsroom: a publishing engine for a bilingual weekly newsletter and its glossary."""

from pathlib import Path

__version__ = "0.1.0"

#: The project root: where `templates/` and `locale/` live next to the packages.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = Path(__file__).resolve().parent / "sample"
