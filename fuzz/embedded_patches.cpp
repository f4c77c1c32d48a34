// The embedded server's patches (embedded/api/patch.h) as PATCH applies them: JSON merge patch,
// JSON patch and strategic merge patch of any target by any patch either give the patched object
// or refuse the patch with a StatusError (a 400 or 422 to the client); anything else would be a
// 500 or a crash. A merge patch applied twice changes nothing the second time (RFC 7386).
// Input: a JSON array [target, patch].
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "embedded/api/patch.h"
#include "embedded/api/strict_decoding.h"
#include "embedded/storage/status_error.h"
#include "fuzz/embedded_pair.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace bj = boost::json;
namespace embedded = tailor::embedded;
using tailor::fuzz::check;

using PatchFn = bj::value (*)(const bj::value&, const bj::value&);

std::optional<bj::value> applied(PatchFn patch_fn, const bj::value& target,
                                 const bj::value& patch) {
  try {
    return patch_fn(target, patch);
  } catch (const embedded::StatusError& e) {
    check(e.code() == 400 || e.code() == 422, "a refused patch is the client's error", e.what());
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto pair = tailor::fuzz::json_pair(data, size);
  if (!pair) return 0;
  const auto& [target, patch] = *pair;
  const std::string patch_text = bj::serialize(patch);
  // The strict decoding errors PATCH reports are read from the patch's text.
  (void)embedded::strict_decoding_errors(patch_text, nullptr);
  (void)embedded::strict_decoding_errors(patch_text, &embedded::json_patch_operation_fields(),
                                         "json patch ");
  if (auto merged = applied(embedded::merge_patch, target, patch)) {
    auto twice = applied(embedded::merge_patch, *merged, patch);
    check(twice && *twice == *merged, "a merge patch is idempotent", bj::serialize(*merged));
  }
  (void)applied(embedded::json_patch, target, patch);
  (void)applied(embedded::strategic_merge_patch, target, patch);
  return 0;
}
