# xenium (header-only): <hazard_pointer> over its hazard_pointer reclaimer, and the read
# side of <rcu> over epoch_based (no rcu_synchronize / rcu_barrier: tests that need them
# end NOT APPLICABLE). Debian: libxenium-dev. xenium has no version header; the version is
# the Debian package's, when there is one.
saferecl_library_adapter(
  NAME xenium PACKAGE libxenium-dev
  HEADER xenium/reclamation/hazard_pointer.hpp
  VERSION_DPKG libxenium-dev
  DESCRIPTION "(hazard_pointer with dynamic_strategy<8>, epoch_based)"
  CAPABILITIES hazard-pointer rcu
  LIMITS "no rcu_synchronize / rcu_barrier (tests reaching them are NOT APPLICABLE); a hazard_pointer must be used and destroyed on the thread that made it")
