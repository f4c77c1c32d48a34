// A create request's body as the embedded server reads and stores it (embedded/api/rest_write.cpp):
// parsed with kube-apiserver's depth limit, its strict decoding errors read from the text, unknown
// fields dropped, server defaults applied, validated (a refusal is a 400 or 422), and stored
// as serialised text (embedded/storage/stored_object.h). Invariants: what is stored reads back as
// the same object; a pod the server accepts is one the controller and node agent can decode
// (kube/model/decode.h), since they act on every stored pod; the parse never reads NaN or
// Infinity (encoding/json has neither) and names the number it refuses as out of range.
#include <boost/json.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "embedded/api/create_defaults.h"
#include "embedded/api/known_fields.h"
#include "embedded/api/resources.h"
#include "embedded/api/strict_decoding.h"
#include "embedded/api/validation.h"
#include "embedded/storage/json_text.h"
#include "embedded/storage/status_error.h"
#include "embedded/storage/stored_object.h"
#include "fuzz/fuzz_check.h"
#include "kube/model/decode.h"

namespace {

namespace bj = boost::json;
namespace embedded = tailor::embedded;
using tailor::fuzz::check;

// Walks the value without recursion (it may nest 10,000 levels).
bool all_numbers_finite(const bj::value& root) {
  std::vector<const bj::value*> pending{&root};
  while (!pending.empty()) {
    const bj::value* v = pending.back();
    pending.pop_back();
    if (v->is_double() && !std::isfinite(v->get_double())) return false;
    if (v->is_array()) {
      for (const bj::value& e : v->get_array()) pending.push_back(&e);
    } else if (v->is_object()) {
      for (const auto& member : v->get_object()) pending.push_back(&member.value());
    }
  }
  return true;
}

// What the server keeps of a body it accepts; false when it refuses it with a 422.
bool accepted(const embedded::ResourceInfo& r, std::string_view body, bj::object o) {
  if (const embedded::KnownFields* known = embedded::known_fields(r)) {
    (void)embedded::strict_decoding_errors(body, known);
    (void)embedded::drop_unknown_fields(*known, o);
  }
  if (!o["metadata"].is_object()) o["metadata"] = bj::object{};
  bj::object& meta = o["metadata"].as_object();
  meta.erase("uid");
  try {
    embedded::apply_create_defaults(r, o);  // 400 for a quantity a pod cannot be decoded with
    embedded::validate_create(r, o);        // 422 for an invalid object
  } catch (const embedded::StatusError& e) {
    check(e.code() == 400 || e.code() == 422, "a refused object is the client's error", e.what());
    return false;
  }
  o["metadata"].as_object()["resourceVersion"] = "1";
  const embedded::StoredObject stored(r, o);
  check(stored.object() == o, "the stored text reads back as the object", stored.json());
  if (r.group.empty() && r.resource == "pods") {
    try {
      (void)tailor::kube::decode<tailor::kube::Pod>(tailor::kube::JsonInput(stored.json()));
    } catch (const tailor::kube::DecodeError& e) {
      tailor::fuzz::invariant_broken("an accepted pod decodes in the controller", e.what());
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  boost::system::error_code ec;
  bj::value v = embedded::parse_json_text(body, ec);
  const std::string go = embedded::go_json_error(body, ec);
  check(go.empty() || ec, "only a parse error has encoding/json's message", go);
  check(ec != embedded::number_out_of_range() || go.find("number  into") == std::string::npos,
        "a number out of range is named", go);
  check(ec || all_numbers_finite(v), "a parsed body holds no NaN or Infinity", body);
  if (ec || !v.is_object()) return 0;
  for (const auto& [group, version, resource] : {std::tuple{"", "v1", "pods"},
                                                 {"", "v1", "nodes"},
                                                 {"apps", "v1", "deployments"},
                                                 {"", "v1", "namespaces"}}) {
    const embedded::ResourceInfo* r = embedded::find_resource(group, version, resource);
    check(r != nullptr, "a built-in resource is served", resource);
    (void)accepted(*r, body, v.as_object());
  }
  return 0;
}
