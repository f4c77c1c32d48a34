// ClusterIP allocation, as kube-apiserver's Service storage does it: on create a Service of type
// ClusterIP, NodePort or LoadBalancer (not ExternalName, not headless `clusterIP: None`) gets
// spec.clusterIP and spec.clusterIPs from the service range (an address it names, if free and in
// the range; else a free one), spec.ipFamilies [IPv4] and ipFamilyPolicy SingleStack; on update
// the allocated address is kept when the client leaves it out and may not change; a deleted
// Service's address is free again at once.
//
// Who holds an address is read from the store itself (every stored Service's spec.clusterIPs),
// so a restart rebuilds the allocation from what was kept and a delete releases without
// bookkeeping. An address handed out by admission is held as pending until the store shows its
// Service (a watch on Services, read before each decision) or for 60 s (a write refused after
// admission: kube-apiserver reverts its allocation then; here it lapses).
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "embedded/api/extensions.h"
#include "embedded/services/service_cidr.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// What a Service says about its cluster IPs (reusable by whoever reads Services).
struct ServiceIps {
  std::string type;                      // spec.type ("ClusterIP" when unset)
  std::string cluster_ip;                // spec.clusterIP ("" unset, "None" headless)
  std::vector<std::string> cluster_ips;  // spec.clusterIPs
  // Whether the Service has (or gets) a cluster IP: not ExternalName, not headless.
  bool needs_cluster_ip() const;
};
ServiceIps service_ips(const boost::json::object& service);

class ClusterIpAllocator {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `random` picks where the search for a free address starts (kube-apiserver: at random).
  ClusterIpAllocator(ObjectStore& store, ServiceCidr range, std::function<std::uint64_t()> random,
                     Clock clock = std::chrono::steady_clock::now);
  ~ClusterIpAllocator();

  const ServiceCidr& range() const { return range_; }
  // The admission plugin (Services in the core group, create and update, not subresources):
  // fills the fields or throws the 422 kube-apiserver answers with. A dry run checks without
  // holding the address.
  void admit(AdmissionRequest& request);
  // Whether `ip` is held now (stored or pending).
  bool held(std::uint32_t ip);

 private:
  void catch_up();  // reads the Service watch; with the lock held
  bool held_locked(std::uint32_t ip) const;
  void allocate(AdmissionRequest& request, boost::json::object& spec);

  ObjectStore& store_;
  ServiceCidr range_;
  std::function<std::uint64_t()> random_;
  Clock clock_;
  std::mutex mutex_;
  std::shared_ptr<Watch> watch_;
  std::map<std::string, std::vector<std::uint32_t>> stored_;  // "ns/name" -> addresses
  std::map<std::uint32_t, int> stored_count_;                 // address -> Services holding it
  std::map<std::uint32_t, std::chrono::steady_clock::time_point> pending_;  // until
};

}  // namespace tailor::embedded
