// limit_malloc_arenas: after it, threads allocating at the same time share at most
// kControllerMallocArenas glibc arenas; a limit the operator set in the environment is left alone.
// Each case runs in a fresh child process (threadsafe death-test style re-runs this binary with
// only that test), since arenas other tests' threads already have are kept.
#include "controller/app/malloc_arenas.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <latch>
#include <string>
#include <thread>
#include <vector>

// The sanitizers' allocators replace glibc's arenas, so there is nothing to count in the
// sanitizer builds: the cases exist only where glibc's malloc runs (CI's release job).
#if !defined(__SANITIZE_ADDRESS__) && !defined(TAILOR_TSAN)
namespace tailor::controller {
namespace {

constexpr int kThreads = 8;

// Threads that each allocate while all are alive, so none can take over an arena another
// thread left; then the arenas ("<heap nr=") glibc's malloc_info reports.
int arenas_after_concurrent_threads() {
  std::latch all_allocated(kThreads);
  std::vector<void*> blocks(kThreads);  // kept past the threads: the allocations cannot be elided
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      blocks[i] = std::malloc(4096);
      all_allocated.arrive_and_wait();
    });
  }
  for (std::thread& t : threads) t.join();
  for (void* block : blocks) std::free(block);
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  malloc_info(0, out);
  std::fclose(out);
  int arenas = 0;
  for (std::string_view rest(text, size); rest.find("<heap nr=") != std::string_view::npos;) {
    rest.remove_prefix(rest.find("<heap nr=") + 1);
    ++arenas;
  }
  std::free(text);
  return arenas;
}

class MallocArenasTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(MallocArenasTest, ThreadsShareTheLimitedArenas) {
  EXPECT_EXIT(
      {
        unsetenv("MALLOC_ARENA_MAX");
        unsetenv("GLIBC_TUNABLES");
        limit_malloc_arenas();
        std::exit(arenas_after_concurrent_threads());
      },
      ::testing::ExitedWithCode(kControllerMallocArenas), "");
}

TEST_F(MallocArenasTest, AnArenaLimitInTheEnvironmentIsLeftInForce) {
  // glibc read the environment at start, before this setenv: with the limit left to glibc's
  // default (eight per core), every thread gets an arena of its own.
  EXPECT_EXIT(
      {
        setenv("MALLOC_ARENA_MAX", "64", 1);
        limit_malloc_arenas();
        std::exit(arenas_after_concurrent_threads());
      },
      ::testing::ExitedWithCode(kThreads + 1), "");
}

}  // namespace
}  // namespace tailor::controller
#endif  // !defined(__SANITIZE_ADDRESS__) && !defined(TAILOR_TSAN)
