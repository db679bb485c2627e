"""What the driver reads from a failed build: ninja's FAILED records, and the TEST_CASE each
compiler error is charged to (the compile-time mutants' kills)."""

from driver.build import charged_tests, parse_build_failures, syntax_only

SOURCE = "suite/saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.general/class.compile.pass.cpp"
CASES = [(12, "saferecl.hp.holder.general H20: not copyable"),
         (30, "saferecl.hp.holder.general H21: nothrow move"),
         (51, "saferecl.hp.holder.general H22: swap")]


def error_at(line: int, path: str = SOURCE) -> str:
    return f"/work/repo/{path}:{line}:5: error: static assertion failed due to requirement\n"


def test_an_error_goes_to_the_case_whose_body_holds_it():
    assert charged_tests(SOURCE, error_at(35), CASES) == [CASES[1][1]]
    assert charged_tests(SOURCE, error_at(30) + error_at(60), CASES) == [CASES[1][1], CASES[2][1]]


def test_an_error_above_the_first_case_goes_to_every_case():
    assert charged_tests(SOURCE, error_at(3), CASES) == [name for _, name in CASES]


def test_errors_only_in_other_files_go_to_every_case():
    log = error_at(40, "reference-impl/include/saferecl/hazard_pointer.hpp")
    assert charged_tests(SOURCE, log, CASES) == [name for _, name in CASES]


def test_the_cases_need_not_come_in_line_order():
    assert charged_tests(SOURCE, error_at(35), list(reversed(CASES))) == [CASES[1][1]]


NINJA_LOG = f"""\
[1/4] Building CXX object suite/CMakeFiles/mutants.hp.dir/support/knobs.cpp.o
FAILED: suite/CMakeFiles/mutants.hp.dir/saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.general/class.compile.pass.cpp.o
/usr/bin/clang++ -c {SOURCE}
{error_at(35).rstrip()}
1 error generated.
[2/4] Building CXX object suite/CMakeFiles/mutants.hp.dir/x.pass.cpp.o
FAILED: suite/CMakeFiles/saferecl_test_support.dir/support/main.cpp.o
/usr/bin/clang++ -c suite/support/main.cpp
suite/support/main.cpp:1:1: error: oops
ninja: build stopped: cannot make progress due to previous errors.
""".splitlines()


def test_failed_battery_sources_are_left_out_and_others_recorded():
    failures = parse_build_failures(NINJA_LOG, ["mutants"])
    assert [(f["implementation"], f["source"], f["executable"], f["exclude"]) for f in failures] == [
        ("mutants", SOURCE, "mutants.hp", True),
        (None, None, "suite/CMakeFiles/saferecl_test_support.dir/support/main.cpp.o", False)]
    assert failures[0]["key"] == "mutants|" + SOURCE.removeprefix("suite/")
    assert failures[0]["log"] == error_at(35).rstrip() + "\n1 error generated."
    assert failures[1]["log"] == "suite/support/main.cpp:1:1: error: oops"


def test_a_source_of_an_implementation_not_built_is_not_left_out():
    assert not parse_build_failures(NINJA_LOG, ["reference"])[0]["exclude"]


def test_a_failed_copy_without_failing_cases_leaves_out_its_whole_source():
    rel = "saferecl.rcu/rcu_retire.pass.cpp"
    log = [f"FAILED: suite/CMakeFiles/std.rcu.dir/pruned/std/{rel}.o", "clang++ -c x", "x: error: e"]
    failure = parse_build_failures(log, ["std"])[0]
    assert (failure["source"], failure["key"], failure["pruned"]) == (f"suite/{rel}", f"std|{rel}", True)


def test_a_case_alone_is_checked_with_the_sources_own_command_line():
    command = ["clang++", "-DX", "-MD", "-MT", "a.o", "-MF", "a.o.d", "-o", "a.o", "-c", "/s/a.cpp"]
    assert syntax_only(command, "/s/a.cpp", "/p/a@9.cpp") == ["clang++", "-DX", "/p/a@9.cpp",
                                                              "-fsyntax-only"]
