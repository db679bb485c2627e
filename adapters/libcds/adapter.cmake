# libcds (Concurrent Data Structures): <hazard_pointer> over cds::gc::HP and <rcu> over
# cds::urcu general_threaded. Debian: libcds-dev.
#
# Debian's LibCDSConfig.cmake is not used: it points at /usr/lib64 and injects
# "-std=c++11 -mcx16". The kit (cmake/SafereclAdapterKit.cmake) finds the header and
# libcds.so directly.

# libcds.so is a compiled C++ library built against libstdc++: a program built with
# -stdlib=libc++ would link both C++ runtimes (and their differing ABIs) into one process.
if(SAFERECL_STDLIB STREQUAL "libc++")
  saferecl_adapter(NAME libcds UNAVAILABLE
    "Debian's libcds.so is built against libstdc++; with --stdlib libc++ the program would link both C++ runtimes")
  return()
endif()

# The per-thread hazard pointer count, fixed when libcds is initialized.
set(SAFERECL_LIBCDS_HAZARD_POINTERS 64 CACHE STRING
    "libcds adapter: hazard pointers per thread (cds::gc::HP's fixed array)")

saferecl_library_adapter(
  NAME libcds PACKAGE libcds-dev
  HEADER cds/gc/hp.h LIBRARIES cds
  VERSION_MACRO cds/version.h CDS_VERSION_STRING
  DESCRIPTION "(cds::gc::HP, cds::urcu general_threaded)"
  CAPABILITIES hazard-pointer rcu
  LIMITS "${SAFERECL_LIBCDS_HAZARD_POINTERS} hazard pointers per thread (fixed array); a hazard_pointer must be destroyed on the thread that made it; no retire inside a read-side critical section"
  DEFINITIONS SAFERECL_LIBCDS_HAZARD_POINTERS=${SAFERECL_LIBCDS_HAZARD_POINTERS}
  LIBRARY_THREADS)  # general_threaded's disposer thread
