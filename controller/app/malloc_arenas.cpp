#include "controller/app/malloc_arenas.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace tailor::controller {

void limit_malloc_arenas() {
  // The environment, read by glibc at start, is the operator's word: leave it in force.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr ||
      (tunables != nullptr && std::strstr(tunables, "glibc.malloc.arena_max") != nullptr)) {
    return;
  }
  mallopt(M_ARENA_MAX, kControllerMallocArenas);
}

}  // namespace tailor::controller
