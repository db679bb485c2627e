"""Small text helpers shared by the readers and the writers (the C++ tool's util)."""

from __future__ import annotations

import os
from pathlib import Path

WHITESPACE = " \t\r\n"


def split_lines(text: str) -> list[str]:
    """Lines without their end ("\\n" or "\\r\\n"); a final newline adds no empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def trim(text: str) -> str:
    return text.strip(WHITESPACE)


def fixed(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def seconds(value: float) -> str:
    """"0.05 s", "12.3 s": two decimals under ten seconds, one above."""
    return fixed(value, 2 if value < 10 else 1) + " s"


def md_escape(text: str) -> str:
    """For Markdown table cells and inline text: no markup, no line breaks."""
    out = []
    for c in text:
        if c == "\n":
            out.append(" ")
            continue
        if c in "|<>*_`[]":
            out.append("\\")
        out.append(c)
    return "".join(out)


def slug(text: str) -> str:
    """For HTML ids: every character outside [A-Za-z0-9_-] becomes '_'."""
    return "".join(c if (c.isascii() and c.isalnum()) or c in "-_" else "_" for c in text)


def write_atomically(path: Path, content: str) -> None:
    """Writes to a temporary name next to `path`, then renames it over `path`, so a reader
    never sees a half-written file."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(content, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
