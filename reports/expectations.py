"""Known failures ("expectations"): what a CI job may accept, so that it gates on what changed.

An implementation that does not conform today fails the same tests on every run; a CI job
that runs saferecl against it needs to tell those known gaps from a regression, as lit's
XFAIL does. Each adapter may ship `adapters/<impl>/expectations.json`, and
`./conformance run --expect FILE` names another file:

    {"schema": "saferecl-expectations/1",
     "implementation": "liburcu",                  # optional: every id must then start "liburcu/"
     "expected": [
       {"test": "liburcu/saferecl.rcu.domain.func/9 R14: ...",   # the CTest name (index "id")
        "verdict": "FAIL",                         # or a list: ["FAIL", "TIMEOUT"]
        "paragraph": "saferecl.rcu.domain.func/9",
        "reason": "why it fails (the adapter README's words)",  # a reason, a link, or both
        "link": "https://github.com/...",
        "sanitizers": ["tsan"],                    # optional: only under these tiers
        "flaky": true}]}                           # optional: it may also pass

Applied to a run, every test gets an outcome next to its verdict:
  EXPECTED FAIL    it failed as the file says (the verdict is one of the expected ones);
  UNEXPECTED PASS  the file says it fails, and it passed: the entry is stale, or fixed
                   (not for a "flaky" entry: a race or a timing bound that fails only
                   sometimes, whose pass is a PASS);
  NEW FAILURE      it failed (FAIL, TIMEOUT, CRASH, NOT BUILT) and no entry expects that
                   verdict: the "(new) FAIL" a CI job must not accept;
  otherwise its verdict (PASS, NOT APPLICABLE).
"Nothing unexpected" (exit status 0 for CI) means no NEW FAILURE and no UNEXPECTED PASS. Every
tier counts: a strict or QoI test that starts failing is a change a CI job wants to see, and
the file records the known ones of every tier. An entry whose test did not run here (another
shard, a filter) says nothing; it is listed as not in the run.

`updated()` is `--update-expectations`: it rewrites the entries of the tests a run ran under
its sanitizer tier, keeping the reasons already written, and leaves every other entry alone.

A malformed file is an ExpectationsError naming the file, the entry and what is wrong; the
driver checks the files before it builds anything, so a typo costs seconds, not a run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from reports import protocol

SCHEMA = "saferecl-expectations/1"
SCHEMA_PREFIX = "saferecl-expectations/"
SANITIZERS = ("tsan", "asan", "tso", "none")  # the tiers of ./conformance run --sanitizer
ENTRY_KEYS = {"test", "verdict", "paragraph", "reason", "link", "sanitizers", "flaky"}
TOP_KEYS = {"schema", "implementation", "expected", "comment"}

# Outcomes of a test once the expectations are applied.
EXPECTED_FAIL = "EXPECTED FAIL"
UNEXPECTED_PASS = "UNEXPECTED PASS"
NEW_FAILURE = "NEW FAILURE"
UNEXPECTED_OUTCOMES = frozenset({UNEXPECTED_PASS, NEW_FAILURE})
# What an observed run writes as the reason of an entry nobody has explained yet.
UNEXPLAINED = "observed in a run, not yet explained: "


class ExpectationsError(ValueError):
    """A malformed expectations file; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class Expectation:
    test: str  # the CTest name "<impl>/<test name>"
    verdicts: tuple[str, ...]  # the failing verdicts it may end with
    paragraph: str
    reason: str = ""
    link: str = ""
    sanitizers: tuple[str, ...] = ()  # () = under every tier
    flaky: bool = False  # it fails only sometimes: a pass is no surprise

    @property
    def implementation(self) -> str:
        return self.test.split("/", 1)[0]

    def applies_to(self, sanitizer: str | None) -> bool:
        return not self.sanitizers or sanitizer is None or sanitizer in self.sanitizers

    def to_json(self) -> dict:
        entry: dict = {"test": self.test,
                       "verdict": self.verdicts[0] if len(self.verdicts) == 1 else list(self.verdicts),
                       "paragraph": self.paragraph}
        if self.reason:
            entry["reason"] = self.reason
        if self.link:
            entry["link"] = self.link
        if self.sanitizers:
            entry["sanitizers"] = list(self.sanitizers)
        if self.flaky:
            entry["flaky"] = True
        return entry


def _entry(raw: object, where: str, implementation: str | None) -> Expectation:
    if not isinstance(raw, dict):
        raise ExpectationsError(f"{where}: an entry must be an object, not {type(raw).__name__}")
    unknown = sorted(set(raw) - ENTRY_KEYS)
    if unknown:
        raise ExpectationsError(f"{where}: unknown key(s) {', '.join(unknown)} "
                                f"(known: {', '.join(sorted(ENTRY_KEYS))})")
    test = raw.get("test")
    if not isinstance(test, str) or "/" not in test.strip("/"):
        raise ExpectationsError(f"{where}: \"test\" must be a CTest name \"<implementation>/<test>\"")
    where = f"{where} ({test[:80]})"
    if implementation and not test.startswith(implementation + "/"):
        raise ExpectationsError(f"{where}: the file is for {implementation}, the test is not")
    verdict = raw.get("verdict")
    verdicts = [verdict] if isinstance(verdict, str) else verdict
    failing = sorted(protocol.FAILING_VERDICTS)
    if not isinstance(verdicts, list) or not verdicts or \
            any(v not in protocol.FAILING_VERDICTS for v in verdicts):
        raise ExpectationsError(f"{where}: \"verdict\" must be one of {', '.join(failing)}, or a "
                                f"list of them (got {json.dumps(verdict)})")
    paragraph = raw.get("paragraph")
    if not isinstance(paragraph, str) or not paragraph.strip():
        raise ExpectationsError(f"{where}: \"paragraph\" (e.g. \"saferecl.rcu.domain.func/9\") is missing")
    reason, link = raw.get("reason", ""), raw.get("link", "")
    if not isinstance(reason, str) or not isinstance(link, str):
        raise ExpectationsError(f"{where}: \"reason\" and \"link\" are text")
    if not reason.strip() and not link.strip():
        raise ExpectationsError(f"{where}: a known failure needs a \"reason\" or an upstream \"link\"")
    sanitizers = raw.get("sanitizers", [])
    if not isinstance(sanitizers, list) or any(s not in SANITIZERS for s in sanitizers):
        raise ExpectationsError(f"{where}: \"sanitizers\" must be a list of {', '.join(SANITIZERS)}")
    flaky = raw.get("flaky", False)
    if not isinstance(flaky, bool):
        raise ExpectationsError(f"{where}: \"flaky\" is true or false")
    return Expectation(test=test, verdicts=tuple(dict.fromkeys(verdicts)), paragraph=paragraph,
                       reason=reason, link=link, sanitizers=tuple(dict.fromkeys(sanitizers)),
                       flaky=flaky)


def parse(doc: object, origin: str, implementation: str | None = None) -> list[Expectation]:
    """The entries of an expectations document; `origin` names it in errors. With
    `implementation`, every entry must be one of its tests (an adapter's own file)."""
    if not isinstance(doc, dict):
        raise ExpectationsError(f"{origin}: must be a JSON object with \"schema\" and \"expected\"")
    schema = doc.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        raise ExpectationsError(f"{origin}: \"schema\" must be \"{SCHEMA}\" (got {json.dumps(schema)})")
    if schema != SCHEMA:
        raise ExpectationsError(f"{origin}: schema {schema} is not supported by this saferecl "
                                f"(it reads {SCHEMA})")
    unknown = sorted(set(doc) - TOP_KEYS)
    if unknown:
        raise ExpectationsError(f"{origin}: unknown key(s) {', '.join(unknown)} "
                                f"(known: {', '.join(sorted(TOP_KEYS))})")
    declared = doc.get("implementation")
    if declared is not None and not isinstance(declared, str):
        raise ExpectationsError(f"{origin}: \"implementation\" is a name")
    if implementation and declared and declared != implementation:
        raise ExpectationsError(f"{origin}: says it is for {declared}, expected {implementation}")
    entries = doc.get("expected")
    if not isinstance(entries, list):
        raise ExpectationsError(f"{origin}: \"expected\" must be a list of known failures")
    out = [_entry(raw, f"{origin}: expected[{n}]", implementation or declared)
           for n, raw in enumerate(entries)]
    _check_no_overlap(out, origin)
    return out


def _check_no_overlap(entries: list[Expectation], origin: str) -> None:
    """One test may have several entries only for disjoint sanitizer tiers."""
    seen: dict[str, list[Expectation]] = {}
    for e in entries:
        for other in seen.get(e.test, []):
            mine, theirs = set(e.sanitizers or SANITIZERS), set(other.sanitizers or SANITIZERS)
            if mine & theirs:
                raise ExpectationsError(f"{origin}: {e.test[:80]} is listed twice for "
                                        f"{', '.join(sorted(mine & theirs))}")
        seen.setdefault(e.test, []).append(e)


def read_file(path: Path, implementation: str | None = None) -> list[Expectation]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExpectationsError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ExpectationsError(f"{path}: unreadable: {e}") from None
    except json.JSONDecodeError as e:
        raise ExpectationsError(f"{path}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    return parse(doc, str(path), implementation)


def document(entries: list[Expectation], implementation: str | None = None) -> dict:
    """An expectations document, entries in a stable order (by test, then tiers)."""
    doc: dict = {"schema": SCHEMA}
    if implementation:
        doc["implementation"] = implementation
    doc["expected"] = [e.to_json() for e in sorted(entries, key=lambda e: (e.test, e.sanitizers))]
    return doc


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


@dataclass
class Observed:
    """One test of a run, as the expectations see it."""
    test: str  # CTest name "<impl>/<name>"
    verdict: str
    paragraph: str = ""
    headline: str = ""  # the telling line of its output, for an unexplained entry


@dataclass
class Evaluation:
    """The expectations applied to one run."""
    outcomes: dict[str, str] = field(default_factory=dict)  # test -> outcome
    matched: dict[str, Expectation] = field(default_factory=dict)  # test -> its entry
    not_in_run: list[str] = field(default_factory=list)  # entries whose test did not run
    problems: list[str] = field(default_factory=list)  # unexpected things that are not tests

    def count(self, outcome: str) -> int:
        return sum(1 for o in self.outcomes.values() if o == outcome)

    @property
    def unexpected(self) -> list[str]:
        return [t for t, o in self.outcomes.items() if o in UNEXPECTED_OUTCOMES]

    @property
    def nothing_unexpected(self) -> bool:
        return not self.unexpected and not self.problems


def outcome_of(verdict: str, expectation: Expectation | None) -> str:
    failing = protocol.is_failing(verdict)
    if expectation is None:
        return NEW_FAILURE if failing else verdict
    if failing:
        return EXPECTED_FAIL if verdict in expectation.verdicts else NEW_FAILURE
    if verdict == protocol.VERDICT_PASS:
        return verdict if expectation.flaky else UNEXPECTED_PASS
    return verdict  # NOT APPLICABLE: the capability went away; the test says nothing


def evaluate(entries: list[Expectation], tests: list[Observed], sanitizer: str | None) -> Evaluation:
    result = Evaluation()
    applicable = {e.test: e for e in entries if e.applies_to(sanitizer)}
    ran = set()
    for t in tests:
        if t.verdict != protocol.VERDICT_NOT_RUN:
            ran.add(t.test)
        expectation = applicable.get(t.test)
        result.outcomes[t.test] = outcome_of(t.verdict, expectation)
        if expectation is not None:
            result.matched[t.test] = expectation
    result.not_in_run = sorted(test for test in applicable if test not in ran)
    return result


def updated(entries: list[Expectation], tests: list[Observed], sanitizer: str) -> list[Expectation]:
    """--update-expectations: the entries after a run under `sanitizer`.

    For every test the run ran: a failure keeps its entry (reason, link, paragraph) with the
    verdict seen added, or gets a new entry for this tier whose reason quotes the output's
    telling line (to be explained by a person); a pass or a not-applicable test loses this
    tier from its entry, and the entry goes when no tier is left (a flaky entry stays: its
    pass says nothing). Entries of tests the run did not run, and of other tiers, stay as
    they were."""
    ran = {t.test: t for t in tests}
    out: list[Expectation] = []
    covered: set[str] = set()  # tests of the run whose failure an entry now covers
    for e in entries:
        t = ran.get(e.test)
        if t is None or not e.applies_to(sanitizer) or (e.flaky and not protocol.is_failing(t.verdict)) \
                or t.verdict in (protocol.VERDICT_INCONCLUSIVE, protocol.VERDICT_NOT_RUN):  # says nothing
            out.append(e)
            continue
        if protocol.is_failing(t.verdict):
            verdicts = e.verdicts if t.verdict in e.verdicts else (*e.verdicts, t.verdict)
            out.append(Expectation(e.test, verdicts, e.paragraph, e.reason, e.link, e.sanitizers, e.flaky))
            covered.add(e.test)
            continue
        remaining = tuple(s for s in (e.sanitizers or SANITIZERS) if s != sanitizer)
        if remaining:
            out.append(Expectation(e.test, e.verdicts, e.paragraph, e.reason, e.link, remaining, e.flaky))
    for t in tests:
        if protocol.is_failing(t.verdict) and t.test not in covered:
            reason = UNEXPLAINED + (t.headline or f"{t.verdict} under {sanitizer}")
            out.append(Expectation(t.test, (t.verdict,), t.paragraph or t.test.split("/", 1)[1].split(" ")[0],
                                   reason=reason[:300], sanitizers=(sanitizer,)))
    return sorted(out, key=lambda e: (e.test, e.sanitizers))


def combined_document(files: list[tuple[Path, list[Expectation]]]) -> dict:
    """The report directory's expectations.json: every entry in effect, and where it came from."""
    doc = document([e for _, entries in files for e in entries])
    doc["comment"] = "from " + ", ".join(str(p) for p, _ in files) if files else "no expectations file"
    return doc
