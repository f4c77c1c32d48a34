// Structural schemas of CustomResourceDefinitions (embedded/crd/schema.h): any schema is either
// structural or gets its causes; a custom object under a structural schema is pruned, defaulted
// and validated as the server's admission does (embedded/crd/register.cpp), with violations as
// 422 causes and never a crash. Pruning again prunes nothing. Input: a JSON array [schema, object].
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>

#include "embedded/crd/schema.h"
#include "fuzz/embedded_pair.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace bj = boost::json;
namespace crd = tailor::embedded::crd;
using tailor::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto pair = tailor::fuzz::json_pair(data, size);
  if (!pair) return 0;
  auto& [schema, object] = *pair;
  const auto causes = crd::structural_errors(schema, "spec.versions[0].schema.openAPIV3Schema");
  for (const auto& c : causes) check(!c.field.empty(), "a cause names its field", c.message);
  if (!causes.empty() || !schema.is_object() || !object.is_object()) return 0;
  const bj::object& s = schema.as_object();
  bj::object& o = object.as_object();
  (void)crd::prune(o, s);
  check(crd::prune(o, s).empty(), "pruning again prunes nothing", bj::serialize(o));
  crd::apply_defaults(o, s);
  (void)crd::violations(o, s);
  return 0;
}
