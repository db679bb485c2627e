"""Where things are: everything is relative to the repository root."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ROOT / "adapters"
SUITE = ROOT / "suite"
BUILD = ROOT / "build"
DEFAULT_OUT = ROOT / "reports" / "out"
INDEX_WRITER = SUITE / "cmake" / "index_tests.py"
