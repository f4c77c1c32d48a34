#include <memory>
#include <random>

#include "embedded/server/features.h"
#include "embedded/services/cluster_ips.h"

namespace tailor::embedded {

std::shared_ptr<ClusterIpAllocator> add_cluster_ips(ApiExtensions& extensions, ObjectStore& store,
                                                    const std::string& service_cidr) {
  auto random = std::make_shared<std::mt19937_64>(std::random_device{}());
  auto allocator = std::make_shared<ClusterIpAllocator>(store, ServiceCidr::parse(service_cidr),
                                                        [random] { return (*random)(); });
  extensions.validating.push_back([allocator](AdmissionRequest& r) { allocator->admit(r); });
  return allocator;
}

}  // namespace tailor::embedded
