// The one include of every battery file: doctest, the adapter's names (namespace `sut`)
// and the harness.
//
// Conventions (see suite/README.md):
//   TEST_CASE("saferecl.hp.holder.mem/5 try_protect: ..." * doctest::test_suite("core.semantic"))
// The name starts with the stable name and paragraph it checks (requirement row ids such as
// H30 may follow); the doctest suite is "<tier>.<kind>" and becomes the CTest labels.
#pragma once

#include <doctest/doctest.h>
#include <sut.hpp>

#include "support/knobs.hpp"
#include "support/not_applicable.hpp"
#include "support/object_log.hpp"
#include "support/threads.hpp"
#include "support/tracked.hpp"
#include "support/watchdog.hpp"
