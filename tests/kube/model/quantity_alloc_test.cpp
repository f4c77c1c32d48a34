// Parsing is on the hot path of decoding pod lists (about ten quantities per pod), so it must not
// touch the heap for well-formed input. Counts allocations by replacing the global operator new
// for this test binary (it still allocates with malloc, so other tests are unaffected).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string_view>

#include "kube/model/quantity.h"

namespace {
thread_local std::size_t allocations = 0;
}  // namespace

// Every form is replaced, all on malloc/free, so that blocks from any form (simdjson allocates
// with the nothrow form, containers with the array form) are freed consistently and ASan sees no
// allocation/deallocation mismatch.
void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace tailor::kube {
namespace {

TEST(QuantityAllocations, ParsingTypicalInputsDoesNotAllocate) {
  constexpr std::string_view kInputs[] = {
      "100m",    "250m",          "1",
      "2",       "0.5",           "1Gi",
      "512Mi",   "1.5Gi",         "128974848",
      "129e6",   "129M",          "123Mi",
      "-3.001n", "1e3",           "0.000000000001Ki",
      "9Ei",     "1e-2147483647", "1.000000000000000000000000000000001",
      "0",       "64Ki",
  };
  for (std::string_view input : kInputs) {
    SCOPED_TRACE(input);
    const std::size_t before = allocations;
    const auto parsed = Quantity::try_parse(input);
    const Quantity thrown_on_error = Quantity::parse(input);
    const std::size_t after = allocations;
    EXPECT_EQ(after, before);
    EXPECT_EQ(parsed, thrown_on_error);
  }
}

TEST(QuantityAllocations, CounterSeesAllocations) {
  const std::size_t before = allocations;
  std::string error;
  EXPECT_FALSE(Quantity::try_parse("1Q", &error));  // building the message allocates
  EXPECT_GT(allocations, before);
}

}  // namespace
}  // namespace tailor::kube
