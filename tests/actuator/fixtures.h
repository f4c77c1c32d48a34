// Small builders for actuator tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kube/model/pod.h"
#include "policy/effective.h"

namespace tailor::actuator::testing_support {

inline kube::Quantity q(const char* text) { return kube::Quantity::parse(text); }

// "cpu=100m,memory=1Gi" -> list ("" -> empty).
inline kube::ResourceList rl(const std::string& spec) {
  kube::ResourceList out;
  std::size_t start = 0;
  while (start < spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t eq = item.find('=');
    out.insert_or_assign(item.substr(0, eq), kube::Quantity::parse(item.substr(eq + 1)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

inline kube::Container container(const char* name, const std::string& requests,
                                 const std::string& limits = "") {
  kube::Container c;
  c.name = name;
  c.resources.requests = rl(requests);
  c.resources.limits = rl(limits);
  return c;
}

inline kube::Pod running_pod(std::vector<kube::Container> containers) {
  kube::Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "ns";
  pod.metadata.uid = "uid-web-1";
  pod.metadata.generation = 1;
  pod.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  pod.spec.containers = std::move(containers);
  pod.status.phase = "Running";
  pod.status.start_time = "2026-01-01T00:00:00Z";
  return pod;
}

inline policy::EffectivePolicy default_policy() {
  policy::EffectivePolicy p;
  p.metadata.name = "web";
  p.metadata.namespace_ = "ns";
  p.target_ref = policy::CrossVersionObjectReference{"apps/v1", "Deployment", "web"};
  return p;
}

inline policy::RecommendedContainerResources recommendation(const char* name,
                                                            const std::string& target,
                                                            const std::string& lower = "",
                                                            const std::string& upper = "") {
  policy::RecommendedContainerResources r;
  r.container_name = name;
  r.target = rl(target);
  r.lower_bound = rl(lower);
  r.upper_bound = rl(upper);
  r.uncapped_target = r.target;
  return r;
}

}  // namespace tailor::actuator::testing_support
