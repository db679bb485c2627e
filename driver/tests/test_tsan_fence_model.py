"""The TSan fence model (suite/support/tsan/fences.cpp) on litmus programs
(driver/tests/programs/fence_litmus.cpp), built as the battery's TSan executables are: with
the model's source and --wrap for each of its symbols (suite/support/tsan/fences.symbols).
A fence must order what C++ orders (message passing is clean, a release sequence goes on
through another thread's relaxed read-modify-write), nothing more (a write after the release
fence, or a read before the acquire fence, races), and a race beside a fence is evidence
(reports/tsan_evidence.py keeps it a FAIL).

The model of main before this file (each relaxed store after a fence performed as a release
at the store; a fence acquiring the locations' latest clocks, forgetting loads past 1024)
fails three cases: it hides the write after the release fence, invents a race where another
thread's release store replaced the location's clock before the reader's acquire fence, and
voids the race beside the fence."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from driver import ctest
from driver.paths import ROOT
from reports import protocol, tsan_evidence

LITMUS = ROOT / "driver" / "tests" / "programs" / "fence_litmus.cpp"
MODEL = ROOT / "suite" / "support" / "tsan" / "fences.cpp"
SYMBOLS = ROOT / "suite" / "support" / "tsan" / "fences.symbols"
RACE = "WARNING: ThreadSanitizer: data race"


@pytest.fixture(scope="module")
def litmus(tmp_path_factory) -> Path:
    compiler = shutil.which("clang++")
    if compiler is None:
        pytest.skip("no clang++")
    exe = tmp_path_factory.mktemp("fence_model") / "fence_litmus"
    wraps = [f"-Wl,--wrap={symbol}" for symbol in SYMBOLS.read_text().split()]
    subprocess.run([compiler, "-std=c++20", "-fsanitize=thread", "-O1", "-g", "-pthread", str(LITMUS),
                    str(MODEL), *wraps, "-o", str(exe)], check=True)
    return exe


def run(exe: Path, case: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TSAN_OPTIONS"}
    env["TSAN_OPTIONS"] = ctest.sanitizer_options()["TSAN_OPTIONS"]
    ran = subprocess.run([str(exe), case], env=env, capture_output=True, text=True, timeout=120)
    assert "unknown case" not in ran.stderr
    return ran.stderr


@pytest.mark.parametrize("case", ["message_passing", "release_sequence_through_a_relaxed_rmw",
                                  "release_store_overwritten_before_the_acquire_fence",
                                  "completion_flag_reused_after_its_acquire",
                                  "read_after_many_relaxed_loads_and_an_acquire_fence"])
def test_what_a_fence_orders_is_clean(litmus: Path, case: str):
    output = run(litmus, case)
    assert RACE not in output, output


@pytest.mark.parametrize("case", ["write_after_the_release_fence", "write_after_the_release_fence_acquire_load",
                                  "read_before_the_acquire_fence", "read_after_many_relaxed_loads_and_no_fence"])
def test_what_a_fence_does_not_order_races(litmus: Path, case: str):
    output = run(litmus, case)
    assert RACE in output and "read_data" in output, output
    assert tsan_evidence.judge(output, None).judged


def test_a_race_beside_a_fence_is_evidence(litmus: Path):
    """The scanner remembers more relaxed loads before its fence than the model's inline set
    holds: the set grows (no widening said) and the race between the two plain writes stays
    evidence."""
    output = run(litmus, "race_beside_a_fence_after_many_loads")
    assert RACE in output and protocol.FENCE_MODEL_WIDENED_PREFIX not in output, output
    assert tsan_evidence.judge(output, None).judged


def test_the_model_prints_the_prefix_the_reports_read():
    """reports/ keeps a pass's widenings by this prefix (protocol.FENCE_MODEL_WIDENED_PREFIX)."""
    assert f'"{protocol.FENCE_MODEL_WIDENED_PREFIX} "' in MODEL.read_text()
