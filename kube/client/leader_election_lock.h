// LeaseLock: the leader elector's I/O on its Lease (get, create, update with optimistic
// concurrency), so the elector can run against a fake; RestLeaseLock talks to the API server.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kube/client/leader_election.h"
#include "kube/client/rest_client.h"

namespace tailor::kube {

struct LeaseState {
  LeaseRecord record;
  std::string resource_version;
};

class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  // nullopt when the Lease does not exist; throws on other failures.
  virtual std::optional<LeaseState> get() = 0;
  // Throws ApiError 409 (AlreadyExists) when another candidate created it first.
  virtual LeaseState create(const LeaseRecord& record) = 0;
  // Writes `record` if the Lease is still at `resource_version`; throws ApiError 409 otherwise.
  virtual LeaseState update(const LeaseRecord& record, const std::string& resource_version) = 0;
  virtual std::string describe() const = 0;  // "namespace/name", for logs
};

// Lease JSON through the model's decoder: the fields leader election uses. Throws
// std::invalid_argument with the DecodeError's message (the JSON path at fault).
LeaseState parse_lease(std::string_view lease_json);
// A Lease document for create (no resourceVersion), from the model's encoder.
std::string lease_json(const std::string& namespace_, const std::string& name,
                       const LeaseRecord& record);
// `lease_json` (as last read) with the model's lease_update_patch applied: spec fields replaced
// and metadata.resourceVersion set, for an update (PUT) that keeps every field leader election
// does not own (labels, owners, spec.strategy, ...). Throws std::invalid_argument as
// parse_lease does, and PatchError without a resourceVersion.
std::string updated_lease_json(std::string_view lease_json, const LeaseRecord& record,
                               const std::string& resource_version);

class RestLeaseLock : public LeaseLock {
 public:
  // client must outlive the lock.
  RestLeaseLock(RestClient& client, std::string namespace_, std::string name);
  std::optional<LeaseState> get() override;
  LeaseState create(const LeaseRecord& record) override;
  LeaseState update(const LeaseRecord& record, const std::string& resource_version) override;
  std::string describe() const override;

 private:
  RestClient& client_;
  ObjectRef ref_;
  std::string last_json_;  // the Lease as last read or written
};

}  // namespace tailor::kube
