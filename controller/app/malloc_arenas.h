// glibc's malloc gives a thread that finds the main heap busy an arena of its own, up to eight
// per core, and keeps what is freed in an arena for that arena's later use. tailor-controller's
// informer, HTTP, gRPC and pass threads build and drop large objects (lists, JSON, pod facts), so
// at 100,000 pods its arenas held ~100 MiB freed and unused; two arenas (MALLOC_ARENA_MAX=2)
// keep most of that reusable by every thread (bench/RESULTS.md, tailor-controller → Scale).
#pragma once

namespace tailor::controller {

inline constexpr int kControllerMallocArenas = 2;

// Limits glibc to kControllerMallocArenas arenas unless the operator chose a limit
// (MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES). Call first in main(), before any
// thread starts: a thread that has an arena keeps it.
void limit_malloc_arenas();

}  // namespace tailor::controller
