#include <algorithm>
#include <limits>

#include "recommender/strategy.h"

namespace tailor::recommender {
namespace {
constexpr Seconds kMax = std::numeric_limits<std::uint32_t>::max();
}  // namespace

void CompactSpan::add_rarely(Seconds start) {
  if (count == 0) {
    first = start;
    length = 0;
  } else if (start < first) {
    length = static_cast<std::uint32_t>(std::min<Seconds>(length + (first - start), kMax));
    first = start;
  } else if (start - first > static_cast<Seconds>(length)) {
    length = static_cast<std::uint32_t>(std::min<Seconds>(start - first, kMax));
  }
  if (count < kMax) ++count;
}

bool CompactSpan::assign(const SampleSpan& s) {
  if (s.count < 0 || s.last < s.first || s.last - s.first > kMax || s.count > kMax) return false;
  first = s.first;
  length = static_cast<std::uint32_t>(s.last - s.first);
  count = static_cast<std::uint32_t>(s.count);
  return true;
}

}  // namespace tailor::recommender
