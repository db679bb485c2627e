# Concurrency Kit: <hazard_pointer> over ck_hp and <rcu> over ck_epoch. Debian: libck-dev.
#
# libck is a C library (no C++ runtime of its own), so it links with either standard
# library. ck.pc gives its version.

# The slots of a ck_hp record, fixed when the domain is initialized (ck_hp_init's degree).
set(SAFERECL_CK_HAZARD_POINTERS 64 CACHE STRING
    "ck adapter: hazard pointers per thread (ck_hp_init's degree, at most 64)")

saferecl_library_adapter(
  NAME ck PACKAGE libck-dev
  HEADER ck_hp.h LIBRARIES ck
  VERSION_PKG_CONFIG ck
  DESCRIPTION "(ck_hp, ck_epoch)"
  CAPABILITIES hazard-pointer rcu
  LIMITS "${SAFERECL_CK_HAZARD_POINTERS} hazard pointers per thread (ck_hp_init's degree); deferred callbacks run when their record polls or in rcu_barrier"
  DEFINITIONS SAFERECL_CK_HAZARD_POINTERS=${SAFERECL_CK_HAZARD_POINTERS})
