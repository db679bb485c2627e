"""The saferecl driver: the orchestration behind `./conformance`.

It only orchestrates: Debian packages, CMake, CTest, the report directory and the reports
package. Test logic lives in suite/, implementation logic in reference-impl/ and adapters/,
and what every test is lives in the test index (suite/cmake/index_tests.py writes it at
configure time; the driver reads it, never the suite's sources).

    paths        where things are (the repository, adapters, build trees)
    console      progress lines
    errors       the driver's exit statuses and the two exceptions that end a command
    options      RunOptions, MutantOptions, BenchOptions: one value per command
    environment  implementations and the Debian packages they need
    interpreter  re-executing under Debian's python3 when jinja2 is missing
    toolchain    compiler and flags of a build tree, for run.json
    build        one CMake build tree; compiler errors and the tests they are charged to
    index        the test index of a build tree
    ctest        running CTest and reading what it recorded
    report_dir   the lifecycle of a report directory (partial, published, `latest`)
    cli          the command line
    commands/    one module per command: list, run, mutants, test, bench
"""
