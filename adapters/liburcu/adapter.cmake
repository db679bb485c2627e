# liburcu (userspace RCU), urcu-memb flavor: <rcu> only. Debian: liburcu-dev.
#
# The read side is compiled inline (_LGPL_SOURCE, in sut.hpp); the rest links liburcu-memb
# and liburcu-common. tsan.supp next to this file is applied to this adapter's tests.
saferecl_library_adapter(
  NAME liburcu PACKAGE liburcu-dev
  HEADER urcu/urcu-memb.h HEADER_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE}
  LIBRARIES urcu-memb urcu-common
  VERSION_PKG_CONFIG liburcu-memb
  DESCRIPTION "(urcu-memb, inline read side)"
  CAPABILITIES rcu
  LIBRARY_THREADS)  # the call_rcu thread
