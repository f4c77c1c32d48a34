#include "kube/client/leader_election_lock.h"

#include <boost/json.hpp>
#include <stdexcept>

#include "kube/model/decode.h"
#include "kube/model/encode.h"

namespace tailor::kube {
namespace {

namespace bj = boost::json;

LeaseSpec to_lease_spec(const LeaseRecord& r) {
  return {r.holder_identity, r.lease_duration_seconds, r.acquire_time, r.renew_time,
          r.lease_transitions};
}

Lease to_lease(const std::string& namespace_, const std::string& name, const LeaseRecord& r) {
  Lease lease;
  lease.metadata.namespace_ = namespace_;
  lease.metadata.name = name;
  lease.spec = to_lease_spec(r);
  return lease;
}

// RFC 7386 JSON merge patch: null removes a field, objects merge, anything else replaces.
void merge_patch(bj::object& target, const bj::object& patch) {
  for (const auto& [key, value] : patch) {
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object()) {
      bj::value& field = target[key];
      if (!field.is_object()) field = bj::object{};
      merge_patch(field.get_object(), value.get_object());
    } else {
      target[key] = value;
    }
  }
}

}  // namespace

LeaseState parse_lease(std::string_view json) {
  try {
    Lease lease = decode<Lease>(json);
    const LeaseSpec& s = lease.spec;
    return {{s.holder_identity, s.lease_duration_seconds.value_or(0), s.acquire_time, s.renew_time,
             s.lease_transitions.value_or(0)},
            lease.metadata.resource_version};
  } catch (const DecodeError& e) {
    throw std::invalid_argument(std::string("Lease JSON: ") + e.what());
  }
}

std::string lease_json(const std::string& namespace_, const std::string& name,
                       const LeaseRecord& record) {
  return to_json(to_lease(namespace_, name, record));
}

std::string updated_lease_json(std::string_view json, const LeaseRecord& record,
                               const std::string& resource_version) {
  parse_lease(json);  // rejects what a read rejects, with the same message
  Lease update = to_lease("", "", record);
  update.metadata.resource_version = resource_version;
  // The Lease as read with the model's update patch applied keeps every field Tailor does not
  // model (labels, owners, spec.strategy, ...).
  bj::object lease = bj::parse(json).as_object();
  merge_patch(lease, bj::parse(lease_update_patch(update)).as_object());
  // A released lease says so with an empty holder, as client-go writes it.
  lease["spec"].as_object()["holderIdentity"] = record.holder_identity;
  return bj::serialize(lease);
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
