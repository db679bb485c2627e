"""./conformance repro TEST: a directory that reproduces one test's verdict outside this
repository (driver/repro.py): the test's source and the support code it needs, the run's
compiler, flags, libraries, standard library and TSan runtime choice, its seed and
environment, build.sh, run.sh and a README with the verdict expected and the paragraph."""

from __future__ import annotations

import shlex
import sys

from driver import repro
from driver.errors import EXIT_OK


def command(args) -> int:
    line = "./conformance repro " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if len(sys.argv) > 2 \
        else "./conformance repro"
    out, test = repro.make(args.test, args.run, args.impl, args.out, line)
    kind = repro.sanitizer_report_kind(test.get("output_excerpt", "") + "\n" + test.get("headline", ""))
    print(f"reproducer of {test['implementation']}/{test['name']}: expected {test['verdict']}"
          + (f" ({kind})" if kind else ""), file=sys.stderr)
    print(f"   cd {out} && ./build.sh && ./run.sh", file=sys.stderr)
    print(out)
    return EXIT_OK
