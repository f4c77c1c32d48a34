#include "actuator/refused_resize.h"

namespace tailor::actuator {

bool may_resend(const RefusedResize& refused, std::string_view body, std::int64_t generation) {
  return body != refused.body || generation != refused.generation;
}

}  // namespace tailor::actuator
