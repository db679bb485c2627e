"""The exit-status protocol is defined once per language: suite/support/exit_status.hpp for
C++, reports/protocol.py for the tooling. They must agree, and so must the two places that
cannot include the C++ header: CTest's SKIP_RETURN_CODE (discover_tests.cmake) and the adapter
kit (an adapter includes nothing of the suite)."""

import re

from driver.paths import ADAPTERS, ROOT, SUITE
from reports import protocol

HEADER = SUITE / "support" / "exit_status.hpp"
ADAPTER_KIT = ADAPTERS / "kit" / "include" / "adapter_kit.hpp"


def header_constants() -> dict[str, object]:
    text = HEADER.read_text()
    found: dict[str, object] = {}
    for name, value in re.findall(r"inline constexpr int (k\w+) = (\d+);", text):
        found[name] = int(value)
    for name, value in re.findall(r'inline constexpr const char\* (k\w+) = "([^"]*)";', text):
        found[name] = value
    return found


def test_cpp_and_python_agree():
    assert header_constants() == {
        "kPass": protocol.PASS,
        "kFail": protocol.FAIL,
        "kSanitizer": protocol.SANITIZER,
        "kNotApplicable": protocol.NOT_APPLICABLE,
        "kTimeout": protocol.TIMEOUT,
        "kNotApplicablePrefix": protocol.NOT_APPLICABLE_PREFIX,
        "kTimeoutPrefix": protocol.TIMEOUT_PREFIX,
        "kForkedChildMark": protocol.FORKED_CHILD_MARK,
        "kStallMark": protocol.STALL_MARK,
        "kStarvedPrefix": protocol.STARVED_PREFIX,
    }


def test_ctest_skips_the_not_applicable_status():
    text = (SUITE / "cmake" / "discover_tests.cmake").read_text()
    assert re.findall(r"SKIP_RETURN_CODE (\d+)", text) == [str(protocol.NOT_APPLICABLE)]


def test_the_adapter_kit_spells_the_same_protocol():
    text = ADAPTER_KIT.read_text()
    assert f"std::_Exit({protocol.NOT_APPLICABLE});" in text
    assert f'"{protocol.NOT_APPLICABLE_PREFIX} %s has no %s\\n"' in text


def test_no_other_cpp_source_spells_the_statuses():
    """One place per language: the suite and adapters use the header's names."""
    spelled = re.compile(r"_?[Ee]xit\((1|66|77|124)\)|\"\[saferecl\] (NOT APPLICABLE|TIMEOUT)")
    offenders = []
    for path in [*SUITE.rglob("*.[ch]pp"), *ADAPTERS.rglob("*.[ch]pp"), *(ROOT / "reference-impl").rglob("*.[ch]pp")]:
        if path in (HEADER, ADAPTER_KIT):
            continue
        if spelled.search(path.read_text(errors="replace")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
