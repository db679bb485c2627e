"""The C++ runtime of a TSan run (driver/runtime_probe.py, driver/cxx_runtime.py): the probe
tells Debian's uninstrumented libc++ from libstdc++, the link-time annotations and the
instrumented libc++ each make it see every edge, --tsan-runtime chooses among them, and the
report warns only when nothing makes up for an unseen runtime."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from driver import cxx_runtime, language, libcxx_build, runtime_probe
from driver.errors import EnvironmentProblem, UsageError
from driver.language import Request
from reports.facts import runtime_caveat, runtime_line
from reports.model import Report

CLANG = shutil.which("clang++-22")
LIBCXX = Request("c++26", "libc++")


def visibility(request: Request) -> dict:
    mode = language.resolve(request, CLANG)
    return runtime_probe.tsan_visibility(CLANG, mode.compile_flags(), mode.link_flags(), mode.annotations)


def test_the_probe_tells_an_uninstrumented_libcxx_from_libstdcxx():
    seen = visibility(LIBCXX)
    assert seen["instrumented"] is False and set(seen["raced"]) == {"std::call_once", "std::barrier"}
    assert visibility(Request("c++26", "libstdc++"))["instrumented"] is True
    libcxx = language.resolve(LIBCXX, CLANG)
    assert runtime_probe.identify(CLANG, libcxx.compile_flags(), libcxx.link_flags()).startswith("libc++ 22.")


def test_the_annotations_make_the_probe_see_every_edge():
    seen = visibility(replace(LIBCXX, annotations=True))
    assert seen["instrumented"] is True and seen["raced"] == [], seen


def test_the_instrumented_libcxx_makes_the_probe_see_every_edge():
    home = cxx_runtime.cached_runtime(CLANG)
    if home is None:
        pytest.skip(f"no instrumented libc++ cached: {cxx_runtime.build_command('clang++-22')}")
    request = replace(LIBCXX, include_dirs=tuple(libcxx_build.include_dirs(home)),
                      library_dirs=tuple(libcxx_build.library_dirs(home)), instrumented=True)
    assert visibility(request)["instrumented"] is True


def test_the_choice(monkeypatch, tmp_path):
    monkeypatch.setenv("SAFERECL_CACHE", str(tmp_path))  # nothing cached
    assert cxx_runtime.choose(LIBCXX, "tsan", "clang++-22", "auto").annotations is True
    assert cxx_runtime.choose(LIBCXX, "tsan", "clang++-22", "plain") == LIBCXX
    assert cxx_runtime.choose(LIBCXX, "asan", "clang++-22", "auto") == LIBCXX
    assert cxx_runtime.choose(Request("c++26", "libstdc++"), "tsan", "clang++-22", "auto").annotations is False
    with pytest.raises(EnvironmentProblem, match="./conformance runtime libc\\+\\+ --cxx clang\\+\\+-22"):
        cxx_runtime.choose(LIBCXX, "tsan", "clang++-22", "instrumented")
    with pytest.raises(UsageError, match="applies to the tsan tier"):
        cxx_runtime.choose(LIBCXX, "asan", "clang++-22", "annotated")
    home = tmp_path / libcxx_build.toolchain_of(CLANG).key("tsan")
    home.mkdir()
    (home / libcxx_build.STAMP).write_text("{}")
    chosen = cxx_runtime.choose(LIBCXX, "tsan", "clang++-22", "auto")
    assert chosen.library_dirs == (str(home / "lib"),) and chosen.instrumented and not chosen.annotations


def test_the_report_warns_only_when_nothing_makes_up_for_an_unseen_runtime():
    blind = {"library": "libc++ 22.1.8", "instrumented": False, "racy_runs": "6 of 6", "annotations": False,
             "how": "not instrumented, not annotated: TSan cannot see its synchronization",
             "remedy": runtime_probe.REMEDY.format(cxx="clang++-22")}
    assert "INCONCLUSIVE" in runtime_caveat(Report(run={"cxx_runtime": blind}))
    assert runtime_line(Report(run={"cxx_runtime": blind})).startswith("C++ runtime: libc++ 22.1.8, not instrumented")
    annotated = blind | {"instrumented": True, "annotations": True, "how": "not instrumented; annotated for TSan"}
    assert runtime_caveat(Report(run={"cxx_runtime": annotated})) is None
    assert runtime_caveat(Report(run={"cxx_runtime": {"library": "libstdc++ 1", "instrumented": True}})) is None
    assert runtime_caveat(Report(run={"cxx_runtime": {"library": "libc++ 1"}})) is None  # asan/none tiers
    assert runtime_line(Report(run={"cxx_runtime": {"library": "libc++ 1"}})) is None
    assert runtime_caveat(Report(run={})) is None


def test_the_wrapped_symbols_are_the_wrappers():
    source = runtime_probe.ANNOTATIONS.read_text()
    for symbol in runtime_probe.ANNOTATED_SYMBOLS.read_text().split():
        assert f"__wrap_{symbol}(" in source and f"__real_{symbol}(" in source


def test_auto_says_it_fell_back_to_the_annotations_and_what_its_probe_measured(monkeypatch, tmp_path):
    """Nothing cached, Debian's libc++ under TSan: auto links the annotations. The run header
    and the report say that the probe measured the annotations (and what the runtime alone
    does), and name ./conformance runtime libc++ as the better remedy."""
    monkeypatch.setenv("SAFERECL_CACHE", str(tmp_path))  # nothing cached
    chosen = cxx_runtime.choose(LIBCXX, "tsan", "clang++-22", "auto")
    mode = language.resolve(chosen, CLANG)
    runtime = cxx_runtime.describe(mode, "clang++-22", CLANG, "tsan")
    header = "\n".join(cxx_runtime.header_lines(runtime))
    assert "raced in 0 of 6 runs with the annotations (without them: " in header, header
    assert "without them: 0 of" not in header, "Debian's libc++ alone hides edges"
    assert "./conformance runtime libc++ --cxx clang++-22" in header, header
    line = runtime_line(Report(run={"cxx_runtime": runtime}))
    assert "with the annotations" in line and "./conformance runtime libc++ --cxx clang++-22" in line
