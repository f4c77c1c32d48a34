#include "controller/kube/client/leader_election_lock.h"

#include <boost/json.hpp>
#include <limits>

namespace tailor::kube {
namespace {

namespace json = boost::json;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("Lease JSON: " + what);
}

std::string string_at(const json::object& object, std::string_view key, std::string_view where) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return "";
  if (!value->is_string()) bad(std::string(where) + std::string(key) + ": expected a string");
  return std::string(value->get_string());
}

int int32_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return 0;
  if (!value->is_int64() || value->get_int64() < std::numeric_limits<std::int32_t>::min() ||
      value->get_int64() > std::numeric_limits<std::int32_t>::max()) {
    bad("spec." + std::string(key) + ": expected a 32-bit integer");
  }
  return static_cast<int>(value->get_int64());
}

const json::object& object_at(const json::object& object, std::string_view key) {
  static const json::object empty;
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return empty;
  if (!value->is_object()) bad(std::string(key) + ": expected an object");
  return value->get_object();
}

json::object parse_object(std::string_view text) {
  json::error_code error;
  json::value doc = json::parse(text, error);
  if (error) bad("malformed: " + error.message());
  if (!doc.is_object()) bad("expected an object");
  return std::move(doc.get_object());
}

void set_spec(json::object& lease, const LeaseRecord& r) {
  json::object spec;
  spec["holderIdentity"] = r.holder_identity;
  spec["leaseDurationSeconds"] = r.lease_duration_seconds;
  if (!r.acquire_time.empty()) spec["acquireTime"] = r.acquire_time;
  if (!r.renew_time.empty()) spec["renewTime"] = r.renew_time;
  spec["leaseTransitions"] = r.lease_transitions;
  // Keep spec fields leader election does not own (e.g. strategy, preferredHolder).
  if (auto* old = lease.if_contains("spec"); old && old->is_object()) {
    for (const auto& [key, value] : old->get_object()) {
      if (!spec.contains(key)) spec[key] = value;
    }
  }
  lease["spec"] = std::move(spec);
}

}  // namespace

LeaseState parse_lease(std::string_view text) {
  json::object lease = parse_object(text);
  const json::object& meta = object_at(lease, "metadata");
  const json::object& spec = object_at(lease, "spec");
  LeaseState state;
  state.resource_version = string_at(meta, "resourceVersion", "metadata.");
  state.record.holder_identity = string_at(spec, "holderIdentity", "spec.");
  state.record.lease_duration_seconds = int32_at(spec, "leaseDurationSeconds");
  state.record.acquire_time = string_at(spec, "acquireTime", "spec.");
  state.record.renew_time = string_at(spec, "renewTime", "spec.");
  state.record.lease_transitions = int32_at(spec, "leaseTransitions");
  return state;
}

std::string lease_json(const std::string& namespace_, const std::string& name,
                       const LeaseRecord& record) {
  json::object lease;
  lease["apiVersion"] = "coordination.k8s.io/v1";
  lease["kind"] = "Lease";
  lease["metadata"] = json::object{{"name", name}, {"namespace", namespace_}};
  set_spec(lease, record);
  return json::serialize(lease);
}

std::string updated_lease_json(std::string_view text, const LeaseRecord& record,
                               const std::string& resource_version) {
  json::object lease = parse_object(text);
  json::value& meta = lease["metadata"];
  if (!meta.is_object()) bad("metadata: expected an object");
  meta.get_object()["resourceVersion"] = resource_version;
  set_spec(lease, record);
  return json::serialize(lease);
}

RestLeaseLock::RestLeaseLock(RestClient& client, std::string namespace_, std::string name)
    : client_(client), ref_{resources::kLeases, std::move(namespace_), std::move(name), ""} {}

std::optional<LeaseState> RestLeaseLock::get() {
  try {
    last_json_ = client_.get(ref_);
  } catch (const ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
  return parse_lease(last_json_);
}

LeaseState RestLeaseLock::create(const LeaseRecord& record) {
  ObjectRef collection = ref_;
  collection.name.clear();
  last_json_ = client_.create(collection, lease_json(ref_.namespace_, ref_.name, record));
  return parse_lease(last_json_);
}

LeaseState RestLeaseLock::update(const LeaseRecord& record, const std::string& resource_version) {
  std::string base =
      last_json_.empty() ? lease_json(ref_.namespace_, ref_.name, record) : last_json_;
  last_json_ = client_.update(ref_, updated_lease_json(base, record, resource_version));
  return parse_lease(last_json_);
}

std::string RestLeaseLock::describe() const { return ref_.namespace_ + "/" + ref_.name; }

}  // namespace tailor::kube
