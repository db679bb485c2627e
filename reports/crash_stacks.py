"""Crashes the output alone cannot explain, and the stacks the driver got for them.

A sanitizer's runtime can itself crash, and then often prints no stack: ThreadSanitizer,
asked to run code from a pthread key destructor after it finished the thread (a late
destructor round at thread exit), takes a SEGV inside __tsan::TraceSwitchPart, and its
deadly-signal handler crashes in turn: "ThreadSanitizer:DEADLYSIGNAL ... SEGV on unknown
address ... ThreadSanitizer: nested bug in the same thread, aborting", exit 66, no frame.
That reads as the implementation's crash. The driver reruns such a test once under gdb
(driver/crash_stack.py) and writes what it got into the report directory's
crash-stacks.json: {CTest name: {"stack": ["#0 ...", ...], "file": "outputs/...gdb.txt",
"reproduced": bool}}; the reports then name where the crash happened: inside a sanitizer's
runtime (its frames: __tsan::, __asan::, __sanitizer::, interceptors) or in the program.
"""

from __future__ import annotations

import re

STACKS_FILE = "crash-stacks.json"
# A frame of a stack, as a sanitizer or gdb prints it.
FRAME = re.compile(r"^\s*#\d+\s")
# A crash the output shows but does not locate: a sanitizer's deadly signal or nested bug.
DEADLY = re.compile(r"Sanitizer:DEADLYSIGNAL|Sanitizer: nested bug|Sanitizer: (SEGV|BUS|FPE|ILL) on")
# Frames that belong to a sanitizer's runtime rather than to the program.
RUNTIME = re.compile(r"\b__(tsan|asan|lsan|msan|ubsan|sanitizer|interception)::|\b__interceptor_|"
                     r"\blibclang_rt\.|\b__tsan_")
RUNTIME_NAMES = {"tsan": "ThreadSanitizer", "asan": "AddressSanitizer", "lsan": "LeakSanitizer",
                 "msan": "MemorySanitizer", "ubsan": "UndefinedBehaviorSanitizer"}
# Where a crash happened, told by a frame further down.
CONTEXTS = (("__nptl_deallocate_tsd", "thread exit's pthread key destructors"),
            ("__call_tls_dtors", "thread exit's thread_local destructors"),
            ("__run_exit_handlers", "process exit (atexit handlers, static destructors)"),
            ("__libc_fork", "fork"), ("_Fork", "fork"))


def needs_stack(output: str) -> bool:
    """A sanitizer's deadly signal with no frame printed: only a rerun can tell where."""
    return DEADLY.search(output) is not None and not any(FRAME.match(line) for line in output.splitlines())


def frame_of(line: str) -> tuple[str, str] | None:
    """(function, location) of a gdb frame line: "#2  0x... in (anonymous namespace)::late
    (p=0x4) at x.cpp:17" -> ("(anonymous namespace)::late", "x.cpp:17")."""
    m = re.match(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(.*)$", line.strip())
    if not m:
        return None
    text, where = m[1], ""
    at = re.search(r" (?:at|from) (\S+)$", text)
    if at:
        text, where = text[:at.start()], at[1].rsplit("/", 1)[-1]  # file name and line
    if text.endswith(")"):  # the argument list: the last balanced "(...)" after a space
        depth = 0
        for n in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[n], 0)
            if depth == 0:
                if n > 0 and text[n - 1] == " ":
                    text = text[:n - 1]
                break
    # Parameter types of a symbol without debug information: "f(int*)" -> "f".
    text = re.sub(r"\((?!anonymous namespace\)).*$", "", text.strip())
    return (text, where) if text else None


def frames(stack: list[str]) -> list[tuple[str, str]]:
    """(function, location) of each gdb frame line."""
    return [f for f in (frame_of(line) for line in stack) if f is not None]


def runtime_of(function: str) -> str | None:
    """"ThreadSanitizer" for a frame of TSan's runtime, ...; None for the program's."""
    if not RUNTIME.search(function):
        return None
    m = re.search(r"__(tsan|asan|lsan|msan|ubsan)", function)
    return RUNTIME_NAMES.get(m[1], "the sanitizer") if m else "the sanitizer"


def describe(stack: list[str]) -> str:
    """"crash inside ThreadSanitizer's runtime (__tsan::TraceSwitchPart), called from destroy
    (k.cpp:8), during thread exit's pthread key destructors", or "crash in f (x.cpp:3)"."""
    found = frames(stack)
    if not found:
        return ""
    top, where = found[0]
    runtime = runtime_of(top)
    caller = next(((f, loc) for f, loc in found if runtime_of(f) is None), None)
    if runtime:
        text = f"crash inside {runtime}'s runtime ({top})"
        if caller:
            text += f", called from {caller[0]}" + (f" ({caller[1]})" if caller[1] else "")
    else:
        text = f"crash in {top}" + (f" ({where})" if where else "")
    context = next((words for symbol, words in CONTEXTS if any(symbol in f for f, _ in found)), None)
    return text + (f", during {context}" if context else "")
