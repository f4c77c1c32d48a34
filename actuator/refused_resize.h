// A resize the API refused as invalid or forbidden (422, or 403 other than a quota): the same patch
// to the same pod would be refused the same way, so it is not sent again until the recommendation
// (the patch) or the pod (its generation, which every spec change moves) is different. A quota
// refusal is not one of these: freed quota lets the same patch through.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tailor::actuator {

struct RefusedResize {
  std::string body{};           // the PATCH of pods/{name}/resize that was refused
  std::int64_t generation = 0;  // the pod's metadata.generation when it was sent
  std::string message{};        // the API's Status message
  bool operator==(const RefusedResize&) const = default;
};

// Whether a resize with patch `body` may be sent to a pod now at `generation`.
bool may_resend(const RefusedResize& refused, std::string_view body, std::int64_t generation);

}  // namespace tailor::actuator
