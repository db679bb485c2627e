"""The example CI workflows (ci/github-actions.yml, ci/gitlab-ci.yml) are valid YAML of the
shape their CI systems expect, and every `./conformance` command they run parses with the
driver's own command line (driver.cli.parser()): a renamed command or option, or a value
its choices reject, fails here instead of in a vendor's pipeline."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

try:
    import yaml
except ImportError:  # ./conformance test installs it first
    pytest.fail("the CI examples' test needs Debian's python3-yaml: apt-get install python3-yaml",
                pytrace=False)

from driver.cli import parser  # noqa: E402
from driver.options import SANITIZERS  # noqa: E402

CI = Path(__file__).resolve().parents[2] / "ci"
# What the CI systems put where the workflows write an expression or a variable.
SUBSTITUTIONS = [
    (r"\$\{\{\s*matrix\.sanitizer\s*\}\}", "tsan"), (r"\$\{\{\s*matrix\.shard\s*\}\}", "2"),
    (r"\$\{\{\s*github\.run_number\s*\}\}", "17"), (r"\$\{SHARDS\}|\$SHARDS", "3"),
    (r"\$SANITIZER", "asan"), (r"\$SHARD", "2"), (r"\$CI_PIPELINE_IID", "17"),
]
COMMAND_END = re.compile(r"\s*(\|\||&&|;|>>|>|\|)\s*")


def load(name: str) -> dict:
    doc = yaml.safe_load((CI / name).read_text())
    assert isinstance(doc, dict), f"{name} is a YAML mapping"
    return doc


def shell_lines(doc) -> list[str]:
    """Every shell line of a workflow: GitHub's `run:` and GitLab's script lists."""
    found = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key == "run" and isinstance(value, str):
                found.append(value)
            elif key in ("script", "before_script", "after_script") and isinstance(value, list):
                found += [v for v in value if isinstance(v, str)]
            else:
                found += shell_lines(value)
    elif isinstance(doc, list):
        for value in doc:
            found += shell_lines(value)
    return found


def conformance_commands(doc) -> list[list[str]]:
    """The argument lists of every ./conformance invocation, expressions substituted."""
    commands = []
    for script in shell_lines(doc):
        script = script.replace("\\\n", " ")
        for pattern, value in SUBSTITUTIONS:
            script = re.sub(pattern, value, script)
        for line in script.splitlines():
            for m in re.finditer(r"\./conformance\s+(.*)", line):
                words = COMMAND_END.split(m[1])[0]
                commands.append(shlex.split(words))
    return commands


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_every_conformance_command_parses(name):
    commands = conformance_commands(load(name))
    assert {c[0] for c in commands} >= {"run", "merge"}, f"{name} runs shards and merges them"
    for args in commands:
        try:
            parsed = parser().parse_args(args)
        except SystemExit:
            pytest.fail(f"{name}: ./conformance {' '.join(args)} does not parse (argparse said why above)")
        if args[0] == "run":
            assert parsed.shard and parsed.seed is not None, "every shard of a run has the same seed"


def test_a_command_that_does_not_exist_is_caught():
    doc = {"jobs": {"x": {"steps": [{"run": "./conformance run --shard 1/3 --no-such-option"}]}}}
    with pytest.raises(SystemExit):
        parser().parse_args(conformance_commands(doc)[0])


def test_github_workflow_shape():
    doc = load("github-actions.yml")
    jobs = doc["jobs"]
    matrix = jobs["shard"]["strategy"]["matrix"]
    assert set(matrix["sanitizer"]) == set(SANITIZERS) and matrix["shard"] == [1, 2, 3]
    assert jobs["merge"]["needs"] == "shard" and "always()" in jobs["merge"]["if"]
    uses = [s.get("uses", "") for s in jobs["shard"]["steps"] + jobs["merge"]["steps"]]
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    assert any(u.startswith("actions/download-artifact@") for u in uses)
    assert any("GITHUB_STEP_SUMMARY" in line for line in shell_lines(jobs["merge"]))
    assert True in doc or "on" in doc  # YAML 1.1 reads the key `on` as true


def test_gitlab_pipeline_shape():
    doc = load("gitlab-ci.yml")
    assert doc["stages"] == ["shards", "merge"]
    [matrix] = doc["shard"]["parallel"]["matrix"]
    assert set(matrix["SANITIZER"]) == set(SANITIZERS) and matrix["SHARD"] == ["1", "2", "3"]
    assert doc["merge"]["stage"] == "merge" and doc["merge"]["when"] == "always"
    assert doc["merge"]["artifacts"]["reports"]["junit"].endswith("junit.xml")
