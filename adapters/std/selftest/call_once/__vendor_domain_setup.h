// The call_once vendor tree's one-time domain setup: plain data written by the callable of a
// std::call_once and read by every caller after it returns. A standard library would size
// its thread caches here; the self-test only needs the write, the publication inside the C++
// runtime, and the read.
#pragma once

#include <cstdlib>
#include <mutex>

namespace std::__vendor {

struct __domain_settings {
  unsigned __thread_cache_slots = 0;  // plain: published by call_once's completion
};

inline __domain_settings __settings;
inline once_flag __settings_once;

inline void __domain_setup_done() {
  call_once(__settings_once, [] { __settings.__thread_cache_slots = 8; });
  if (__settings.__thread_cache_slots != 8) std::abort();  // the setup's writes are visible
}

}  // namespace std::__vendor
