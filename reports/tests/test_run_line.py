"""The report's run line says how busy the machine was while the tests ran (run.json's
load_average), so that a reader can tell a verdict given on a loaded machine."""

from types import SimpleNamespace

from reports.facts import run_line


def test_the_load_average_and_the_spinners_beside_the_tests_are_named():
    run = {"sanitizer": "tsan", "host_cores": 2,
           "load_average": {"busy_processes": 8, "test_start": [0.4, 1, 1], "test_end": [9.1, 5, 2]}}
    assert "2 cores; load average 0.4 -> 9.1 in the tests (8 spinning processes beside them)" in \
        run_line(SimpleNamespace(run=run))


def test_without_spinners_only_the_load_average():
    run = {"load_average": {"busy_processes": 0, "test_start": [1.5, 1, 1], "test_end": [2.0, 1, 1]}}
    assert run_line(SimpleNamespace(run=run)) == "load average 1.5 -> 2.0 in the tests"


def test_an_older_run_without_it_has_none():
    assert "load" not in run_line(SimpleNamespace(run={"sanitizer": "tsan"}))
