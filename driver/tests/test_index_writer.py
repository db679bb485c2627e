"""suite/cmake/index_tests.py on a small suite tree: what it indexes, what it tells CMake to
build, and the sources it refuses."""

import json
import textwrap
from pathlib import Path

import pytest

from driver.index import index_writer, sources_regex
from driver.paths import SUITE

writer = index_writer()

HP_SOURCE = textwrap.dedent('''\
    // <hazard_pointer>
    // A mention of TEST_CASE("not a test") in a comment is no test.
    #include "support/test.hpp"

    TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect "
              "with a changed source" * doctest::test_suite("core.semantic")) {
      CHECK(true);
    }

    TEST_CASE("saferecl.hp.holder.mem/3 H28 HX-01: protect \\"quotes\\"; a [b]" *
              doctest::test_suite("strict.concurrency")) {}
    ''')
BATCH_SOURCE = textwrap.dedent('''\
    // REQUIRES: hp-batch
    #include "support/test.hpp"
    TEST_CASE("saferecl.hp.holder.nonmem/8 B2: batches" * doctest::test_suite("cxx29.api")) {}
    ''')
STRESS_SOURCE = 'TEST_CASE("saferecl.rcu.general/5 R3 RX-01: flood" * doctest::test_suite("qoi.stress")) {}\n'
COMPILE_FAIL_SOURCE = textwrap.dedent('''\
    // <rcu>
    // TEST: saferecl.rcu.domain.general R19: copying an rcu_domain is ill-formed
    // TIER: strict
    #include <sut.hpp>
    ''')

SOURCES = {
    "saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.mem/try_protect.pass.cpp": HP_SOURCE,
    "saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.nonmem/batch.pass.cpp": BATCH_SOURCE,
    "saferecl.rcu/saferecl.rcu.domain/copy.compile.fail.cpp": COMPILE_FAIL_SOURCE,
    "stress/flood.pass.cpp": STRESS_SOURCE,
}
KNOWN = "hazard-pointer,rcu,hp-batch,native-api"


def write_suite(root: Path, sources: dict[str, str]) -> Path:
    suite = root / "suite"
    for rel, text in sources.items():
        (suite / rel).parent.mkdir(parents=True, exist_ok=True)
        (suite / rel).write_text(text)
    listing = root / "sources.txt"
    listing.write_text("\n".join(sorted(sources)) + "\n")
    return suite


def run_writer(tmp_path: Path, sources=SOURCES, impls=("full=hazard-pointer,rcu,hp-batch,native-api",
                                                       "hponly=hazard-pointer"), excluded=""):
    suite = write_suite(tmp_path, sources)
    out = tmp_path / "build" / "saferecl"
    args = ["--suite-dir", str(suite), "--sources", str(tmp_path / "sources.txt"),
            "--out-dir", str(out), "--known-capabilities", KNOWN, "--test-timeout", "300",
            f"--excluded={excluded}", *[f"--implementation={i}" for i in impls]]
    return writer.main(args), out


def by_id(out: Path) -> dict[str, dict]:
    index = json.loads((out / "index.json").read_text())
    assert index["schema"] == "saferecl-index/1"
    return {t["id"]: t for t in index["tests"]}


def test_doctest_cases_with_their_facts(tmp_path):
    rc, out = run_writer(tmp_path)
    assert rc == 0
    tests = by_id(out)
    first = tests["full/saferecl.hp.holder.mem/5 H30: try_protect with a changed source"]
    assert first["line"] == 5 and first["tier"] == "core" and first["kind"] == "semantic"
    assert first["requirement"] == "saferecl.hp.holder.mem/5" and first["rows"] == ["H30"]
    assert first["stable_name"] == "saferecl.hp.holder.mem" and first["paragraph"] == "5"
    assert first["group"] == "hp" and first["executable"] == "full.hp"
    assert first["status"] == "built" and first["capabilities"] == ["hazard-pointer"]
    assert first["timeout"] == 300
    assert first["source"] == "suite/saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.mem/try_protect.pass.cpp"
    escaped = tests['full/saferecl.hp.holder.mem/3 H28 HX-01: protect "quotes"; a [b]']
    assert escaped["line"] == 10 and escaped["tier"] == "strict" and escaped["rows"] == ["H28"]
    assert not any("not a test" in i for i in tests)


def test_capabilities_decide_applicability(tmp_path):
    _, out = run_writer(tmp_path)
    tests = by_id(out)
    batch = "saferecl.hp.holder.nonmem/8 B2: batches"
    assert tests[f"full/{batch}"]["status"] == "built"
    assert tests[f"hponly/{batch}"]["status"] == "not-applicable"
    assert tests[f"hponly/{batch}"]["reason"] == "the hponly adapter lacks: hp-batch"
    stress = tests["hponly/saferecl.rcu.general/5 R3 RX-01: flood"]
    assert stress["status"] == "built" and stress["group"] == "stress" and stress["timeout"] == 900


def test_compile_fail_test(tmp_path):
    _, out = run_writer(tmp_path)
    tests = by_id(out)
    name = "saferecl.rcu.domain.general R19: copying an rcu_domain is ill-formed"
    test = tests[f"full/{name}"]
    assert (test["kind"], test["tier"], test["group"], test["executable"], test["status"]) == \
        ("compile-fail", "strict", "api", "", "compile-test")
    assert test["line"] == 2 and test["timeout"] == 120
    assert test["capabilities"] == ["rcu", "native-api"]
    assert tests[f"hponly/{name}"]["reason"] == "the hponly adapter lacks: rcu, native-api"
    fragment = (out / "battery.cmake").read_text()
    assert f"saferecl_add_compile_fail_test(full [==[saferecl.rcu/saferecl.rcu.domain/copy.compile.fail.cpp]==] [==[{name}]==] strict 120)" in fragment
    assert "saferecl_add_compile_fail_test(hponly" not in fragment


def test_excluded_sources_are_not_built(tmp_path):
    rel = "saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.mem/try_protect.pass.cpp"
    _, out = run_writer(tmp_path, excluded=f"full|{rel}")
    tests = by_id(out)
    entry = tests["full/saferecl.hp.holder.mem/5 H30: try_protect with a changed source"]
    assert entry["status"] == "not-built" and entry["reason"] == "does not compile against full"
    assert tests["hponly/saferecl.hp.holder.mem/5 H30: try_protect with a changed source"]["status"] == "built"
    fragment = (out / "battery.cmake").read_text()
    executable_of_full_hp = fragment.split("saferecl_add_battery_executable(full hp\n")[1].split(")")[0]
    assert "try_protect" not in executable_of_full_hp and "batch.pass.cpp" in executable_of_full_hp


def test_expected_cases_for_the_discovery_check(tmp_path):
    _, out = run_writer(tmp_path)
    lines = (out / "cases" / "full.hp.txt").read_text().splitlines()
    assert lines == sorted(lines)
    assert 'strict.concurrency saferecl.hp.holder.mem/3 H28 HX-01: protect "quotes"&#59 a &#91b&#93' in lines
    assert len(lines) == 3
    assert not (out / "cases" / "hponly.hp.txt").read_text().count("batches")


@pytest.mark.parametrize("rel, text, message", [
    ("saferecl.rcu/x.compile.fail.cpp", "// TIER: core\n", "needs a '// TEST: <name>' line"),
    ("saferecl.rcu/x.compile.fail.cpp", "// TEST: a\n// TIER: soon\n", "unknown TIER 'soon'"),
    ("saferecl.rcu/x.pass.cpp", "// REQUIRES: rcu, time-travel\n", "unknown capability 'time-travel'"),
])
def test_broken_conventions_stop_the_configuration(tmp_path, capsys, rel, text, message):
    rc, _ = run_writer(tmp_path, sources={rel: text})
    assert rc != 0
    err = capsys.readouterr().err
    assert message in err and f"suite/{rel}" in err


def test_the_real_suite_indexes():
    """Every battery source of the repository follows the conventions, and every .pass.cpp
    defines at least one test (a parser that misses TEST_CASEs fails here)."""
    sources = [p for p in SUITE.rglob("*.cpp") if p.relative_to(SUITE).parts[0].startswith(("saferecl.", "stress"))]
    assert sources
    for path in sources:
        scanned = writer.scan_source(str(path.relative_to(SUITE)), path.read_text(), KNOWN.split(","))
        assert scanned.cases, f"{path}: no test found"
        assert all(c.tier != "unlabelled" for c in scanned.cases), path


def test_sources_regex_selects_the_defining_sources():
    tests = {"a/x.pass.cpp": ["saferecl.hp.base/3 H12: one"], "b/y.pass.cpp": ["saferecl.rcu.base/1 R1: two"]}
    assert sources_regex("mutants", ["H12"], tests) == r"^(a/x\.pass\.cpp)$"
    assert sources_regex("mutants", ["^mutants/saferecl\\.rcu"], tests) == r"^(b/y\.pass\.cpp)$"
    assert sources_regex("mutants", ["nothing"], tests) == "^$"


TWO_CASES = textwrap.dedent('''\
    #include "support/test.hpp"
    namespace { struct helper { int braces = '{'; }; }

    TEST_CASE("saferecl.rcu.domain.func/8 R38: copyable deleter" * doctest::test_suite("core.semantic")) {
      const char* text = "}";  // }
      CHECK(text[0] == 1'000);
    }

    TEST_CASE("saferecl.rcu.domain.func/8 R38: move-only deleter" * doctest::test_suite("core.semantic")) {
      /* } */ if (true) { CHECK(true); }
    }
    ''')
TWO_CASES_REL = "saferecl.rcu/rcu_retire.pass.cpp"


def test_a_case_body_ends_at_its_own_closing_brace():
    source = writer.scan_source(TWO_CASES_REL, TWO_CASES)
    assert [(c.line, c.last_line) for c in source.cases] == [(4, 7), (9, 11)]


def test_a_case_alone_keeps_every_line_number_and_the_original_file_name():
    source = writer.scan_source(TWO_CASES_REL, TWO_CASES)
    alone = writer.isolated_case(TWO_CASES, source, 9, Path("/s/x.cpp"))
    lines = alone.split("\n")
    assert lines[0] == '#line 1 "/s/x.cpp"'
    assert lines[1:4] == TWO_CASES.split("\n")[:3]  # includes and helpers stay
    assert lines[4:8] == [""] * 4  # the other case is blanked, line for line
    assert lines[9:12] == TWO_CASES.split("\n")[8:11]


def test_excluded_cases_are_not_built_and_their_source_is_built_without_them(tmp_path):
    sources = {**SOURCES, TWO_CASES_REL: TWO_CASES}
    rc, out = run_writer(tmp_path, sources, excluded=f"full|{TWO_CASES_REL}@9")
    assert rc == 0
    tests = by_id(out)
    assert tests["full/saferecl.rcu.domain.func/8 R38: move-only deleter"]["status"] == "not-built"
    assert tests["full/saferecl.rcu.domain.func/8 R38: copyable deleter"]["status"] == "built"
    copy = out / "pruned" / "full" / TWO_CASES_REL
    assert "move-only" not in copy.read_text() and "copyable" in copy.read_text()
    executable = (out / "battery.cmake").read_text().split("saferecl_add_battery_executable(full rcu\n")[1]
    executable = executable.split(")")[0]
    assert str(copy) in executable and str(tmp_path / "suite" / TWO_CASES_REL) not in executable
    assert "move-only" not in (out / "cases" / "full.rcu.txt").read_text()
