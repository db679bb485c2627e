#!/bin/sh
# Runs one test case and states how it ended, so that the reports can tell a failure
# (exit 1, or a sanitizer's 66) from a crash (a signal), a watchdog timeout (124) and a
# test that is not applicable (77). A test killed by CTest's TIMEOUT prints no status line.
"$@"
status=$?
echo "[saferecl] exit status $status"
exit $status
