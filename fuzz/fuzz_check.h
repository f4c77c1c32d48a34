// What every fuzz target asserts: a broken invariant aborts with the input's story, so libFuzzer
// saves the input as a crash (assert() would vanish under NDEBUG).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace tailor::fuzz {

[[noreturn]] inline void invariant_broken(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

inline void check(bool holds, const char* what, std::string_view detail = {}) {
  if (!holds) invariant_broken(what, detail);
}

}  // namespace tailor::fuzz
