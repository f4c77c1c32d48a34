// VerticalScalingPolicy and VerticalPodAutoscaler decoding (policy/decode.h): the controller must
// never stop on a bad object, so the lenient decoders return any problem as text and the strict
// ones throw DecodeError; both agree on whether an object is valid.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "kube/model/decode.h"
#include "policy/decode.h"

namespace {

using tailor::fuzz::check;
namespace policy = tailor::policy;

template <class Lenient, class Strict>
void agree(Lenient lenient, Strict strict, std::string_view json) {
  const auto decoded = lenient(json);
  bool strict_ok = true;
  try {
    strict(json);
  } catch (const tailor::kube::DecodeError& e) {
    strict_ok = false;
    check(!decoded.ok(), "the strict decoder refuses only what the lenient one refuses", e.what());
  }
  check(strict_ok || !decoded.ok(), "the lenient decoder refuses what the strict one refuses",
        decoded.error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  agree(policy::decode_vertical_scaling_policy, policy::decode_vertical_scaling_policy_or_throw,
        json);
  agree(policy::decode_vertical_pod_autoscaler, policy::decode_vertical_pod_autoscaler_or_throw,
        json);
  return 0;
}
