"""The reader of CTest's junit.xml (`ctest --output-junit`), with the standard library's
XML parser. A damaged file (a run killed while CTest wrote it) still yields the test cases
before the damage, so a broken run gets a report of what did run."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from reports.classify import CaseRecord


@dataclass
class JunitFile:
    cases: list[CaseRecord]
    problem: str = ""  # why the file could be read only in part, "" when it was whole


def record_of(element: ET.Element) -> CaseRecord:
    skipped = element.find("skipped")
    output = element.find("system-out")
    try:
        time = float(element.get("time") or 0)
    except ValueError:
        time = 0.0
    return CaseRecord(
        name=element.get("name", ""), status=element.get("status", ""),
        skipped=skipped is not None,
        skip_message=skipped.get("message", "") if skipped is not None else "",
        failed=element.find("failure") is not None,
        output=(output.text or "") if output is not None else "", time=time)


def parse_junit(text: str) -> JunitFile:
    """Every <testcase>; on a syntax error, the complete ones before it."""
    parser = ET.XMLPullParser(events=("end",))
    cases: list[CaseRecord] = []
    try:
        parser.feed(text)
        parser.close()
    except ET.ParseError as e:
        cases = [record_of(el) for _, el in parser.read_events() if el.tag == "testcase"]
        line, column = e.position
        return JunitFile(cases, f"junit.xml is damaged ({e.msg.split(':')[0]} at line {line}, "
                                f"column {column}); the tests before that point are reported")
    cases = [record_of(el) for _, el in parser.read_events() if el.tag == "testcase"]
    return JunitFile(cases)


def read_junit(path: Path) -> JunitFile:
    return parse_junit(path.read_text(encoding="utf-8", errors="replace"))
