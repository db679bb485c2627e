# The worked example of the guide to adding a library (adapters/README.md): <rcu> over tinyrcu,
# a header-only library that lives next to it (library/tiny_rcu.hpp), so it is always found.
# Not in the default selection of ./conformance run (--impl example); ./conformance test runs
# it on a slice of the battery.
saferecl_library_adapter(
  NAME example
  HEADER tiny_rcu.hpp HEADER_PATHS ${CMAKE_CURRENT_LIST_DIR}/library
  VERSION_MACRO tiny_rcu.hpp TINY_RCU_VERSION
  DESCRIPTION "(the adapter guide's worked example)"
  CAPABILITIES rcu)
