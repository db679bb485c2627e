// ck_cxx.hpp: Concurrency Kit's headers, as C++ can include them (the adapter's sut.hpp and
// native.bench.cpp both include ck through this).
//
// libck 0.7.1's ck_stack.h is not valid C++ in three inline functions (a void* from
// ck_pr_fas_ptr assigned to an entry pointer without a cast). Their feature macros keep them
// out; the one the adapter needs, batch pop, is re-spelt in sut.hpp with the cast. ck's
// headers declare C functions without extern "C" of their own.
#pragma once

#define CK_F_STACK_BATCH_POP_UPMC
#define CK_F_STACK_BATCH_POP_MPMC
#define CK_F_STACK_PUSH_MPNC
extern "C" {
#include <ck_epoch.h>
#include <ck_hp.h>
#include <ck_pr.h>
#include <ck_stack.h>
}
