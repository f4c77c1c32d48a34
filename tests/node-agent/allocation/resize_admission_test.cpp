#include "node-agent/allocation/resize_admission.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tailor::node::allocation {
namespace {

kube::ResourceList list(const std::string& cpu, const std::string& memory) {
  kube::ResourceList out;
  if (!cpu.empty()) out.insert_or_assign(kube::kResourceCpu, kube::Quantity::parse(cpu));
  if (!memory.empty()) out.insert_or_assign(kube::kResourceMemory, kube::Quantity::parse(memory));
  return out;
}

kube::Container container(const std::string& name, const kube::ResourceList& requests,
                          const kube::ResourceList& limits = {}) {
  kube::Container c;
  c.name = name;
  c.resources.requests = requests;
  c.resources.limits = limits;
  return c;
}

kube::Pod pod_with(std::vector<kube::Container> containers) {
  kube::Pod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = "web";
  pod.spec.containers = std::move(containers);
  return pod;
}

kube::Pod burstable(const std::string& cpu, const std::string& memory) {
  return pod_with({container("app", list(cpu, memory))});
}

kube::Pod guaranteed(const std::string& cpu, const std::string& memory) {
  return pod_with({container("app", list(cpu, memory), list(cpu, memory))});
}

struct Case {
  const char* name;
  kube::Pod pod;
  kube::ResourceList allocatable;
  kube::ResourceList others;
  AdmissionVerdict verdict;
  std::string message;
};

void expect_case(const Case& c, const AdmissionResult& result) {
  EXPECT_EQ(to_string(result.verdict), to_string(c.verdict)) << c.name;
  EXPECT_EQ(result.message, c.message) << c.name;
}

std::vector<Case> capacity_cases() {
  return {
      {"fits", burstable("1", "1Gi"), list("8", "16Gi"), list("2", "4Gi"), AdmissionVerdict::Accept,
       ""},
      {"exactly fills what is free", burstable("6", "12Gi"), list("8", "16Gi"), list("2", "4Gi"),
       AdmissionVerdict::Accept, ""},
      {"memory over allocatable",
       burstable("1", "20Gi"),
       list("8", "16Gi"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: memory, requested: 21474836480, capacity: 17179869184"},
      {"cpu over allocatable, in millicores",
       burstable("9500m", "1Gi"),
       list("8", "16Gi"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: cpu, requested: 9500, capacity: 8000"},
      {"both over: memory reported first",
       burstable("10", "20Gi"),
       list("8", "16Gi"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: memory, requested: 21474836480, capacity: 17179869184"},
      {"infeasible wins over deferred", burstable("9", "1Gi"), list("8", "16Gi"), list("7", ""),
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: cpu, requested: 9000, capacity: 8000"},
      {"cpu not free", burstable("6", "1Gi"), list("8", "16Gi"), list("3950m", "1Gi"),
       AdmissionVerdict::Deferred,
       "Node didn't have enough resource: cpu, requested: 6000, used: 3950, capacity: 8000"},
      {"memory not free", burstable("1", "10Gi"), list("8", "16Gi"), list("1", "8Gi"),
       AdmissionVerdict::Deferred,
       "Node didn't have enough resource: memory, requested: 10737418240, used: 8589934592, "
       "capacity: 17179869184"},
      {"both not free: cpu reported first", burstable("6", "10Gi"), list("8", "16Gi"),
       list("4", "8Gi"), AdmissionVerdict::Deferred,
       "Node didn't have enough resource: cpu, requested: 6000, used: 4000, capacity: 8000"},
      {"zero allocatable",
       burstable("100m", ""),
       list("0", "0"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: cpu, requested: 100, capacity: 0"},
      {"allocatable without cpu counts as zero",
       burstable("100m", ""),
       list("", "1Gi"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: cpu, requested: 100, capacity: 0"},
      {"no requests always fit", burstable("", ""), list("0", "0"), list("5", "5Gi"),
       AdmissionVerdict::Accept, ""},
      {"absurd request saturates and is infeasible",
       burstable("1e20", "1"),
       list("8", "16Gi"),
       {},
       AdmissionVerdict::Infeasible,
       "Node didn't have enough capacity: cpu, requested: 9223372036854775807, capacity: 8000"},
      {"absurd usage of others does not wrap", burstable("1", "1"), list("8", "16Gi"),
       list("1e20", ""), AdmissionVerdict::Deferred,
       "Node didn't have enough resource: cpu, requested: 1000, used: 9223372036854775807, "
       "capacity: 8000"},
  };
}

TEST(ResizeAdmission, CapacityAndFitTable) {
  for (const Case& c : capacity_cases()) {
    expect_case(c, admit_resize(c.pod, {}, c.allocatable, c.others));
    expect_case(c, admit_pod(c.pod, c.allocatable, c.others));  // the same rule
  }
}

TEST(ResizeAdmission, CountsSidecarsInitContainersAndOverhead) {
  kube::Pod pod = burstable("2", "1Gi");
  kube::Container sidecar = container("proxy", list("1", ""));
  sidecar.restart_policy = "Always";
  pod.spec.init_containers = {sidecar, container("setup", list("2500m", ""))};
  pod.spec.overhead = list("250m", "");
  // max(2 + 1, 1 + 2.5) + 0.25 = 3.75 cores.
  const AdmissionResult result = admit_resize(pod, {}, list("8", "16Gi"), list("4500m", ""));
  EXPECT_EQ(result.verdict, AdmissionVerdict::Deferred);
  EXPECT_EQ(result.message,
            "Node didn't have enough resource: cpu, requested: 3750, used: 4500, capacity: 8000");
}

TEST(ResizeAdmission, AllContainersAreOneRequest) {
  // Each container alone fits the free 2 cores; together they do not: nothing is admitted.
  const kube::Pod pod =
      pod_with({container("a", list("1500m", "")), container("b", list("1500m", ""))});
  const AdmissionResult result = admit_resize(pod, {}, list("8", "16Gi"), list("6", ""));
  EXPECT_EQ(result.verdict, AdmissionVerdict::Deferred);
  EXPECT_EQ(result.message,
            "Node didn't have enough resource: cpu, requested: 3000, used: 6000, capacity: 8000");
}

TEST(ResizeAdmission, OtherResourcesFollowCpuAndMemory) {
  kube::Pod pod = burstable("1", "1Gi");
  pod.spec.containers[0].resources.requests.insert_or_assign("hugepages-2Mi",
                                                             kube::Quantity::parse("4Mi"));
  pod.spec.containers[0].resources.requests.insert_or_assign("example.com/gpu",
                                                             kube::Quantity::parse("1"));
  kube::ResourceList allocatable = list("8", "16Gi");
  // The GPU is not advertised: left to its device plugin. Hugepages are not either: zero.
  EXPECT_EQ(admit_pod(pod, allocatable, {}).message,
            "Node didn't have enough resource: hugepages-2Mi, requested: 4194304, used: 0, "
            "capacity: 0");
  allocatable.insert_or_assign("hugepages-2Mi", kube::Quantity::parse("8Mi"));
  allocatable.insert_or_assign("example.com/gpu", kube::Quantity::parse("1"));
  kube::ResourceList others;
  others.insert_or_assign("example.com/gpu", kube::Quantity::parse("1"));
  EXPECT_EQ(admit_pod(pod, allocatable, others).message,
            "Node didn't have enough resource: example.com/gpu, requested: 1, used: 1, "
            "capacity: 1");
}

struct PolicyCase {
  const char* name;
  kube::Pod pod;
  kube::ResourceList allocated;
  AdmissionOptions options;
  AdmissionVerdict verdict;
  std::string message;
};

TEST(ResizeAdmission, StaticManagerPolicyTable) {
  const AdmissionOptions static_cpu{CpuManagerPolicy::Static, MemoryManagerPolicy::None};
  const AdmissionOptions static_memory{CpuManagerPolicy::None, MemoryManagerPolicy::Static};
  const std::string cpu_message =
      "Resize is infeasible for Guaranteed Pods alongside CPU Manager static policy";
  const std::string memory_message =
      "Resize is infeasible for Guaranteed Pods alongside Memory Manager static policy";
  const std::vector<PolicyCase> cases = {
      {"guaranteed cpu change, static cpu", guaranteed("2", "1Gi"), list("1", "1Gi"), static_cpu,
       AdmissionVerdict::Infeasible, cpu_message},
      {"guaranteed memory change, static cpu", guaranteed("1", "2Gi"), list("1", "1Gi"), static_cpu,
       AdmissionVerdict::Accept, ""},
      {"burstable cpu change, static cpu", burstable("2", "1Gi"), list("1", "1Gi"), static_cpu,
       AdmissionVerdict::Accept, ""},
      {"guaranteed memory change, static memory", guaranteed("1", "2Gi"), list("1", "1Gi"),
       static_memory, AdmissionVerdict::Infeasible, memory_message},
      {"guaranteed cpu change, static memory", guaranteed("2", "1Gi"), list("1", "1Gi"),
       static_memory, AdmissionVerdict::Accept, ""},
      {"guaranteed cpu change, no policy",
       guaranteed("2", "1Gi"),
       list("1", "1Gi"),
       {},
       AdmissionVerdict::Accept,
       ""},
  };
  for (const PolicyCase& c : cases) {
    const AdmissionResult result =
        admit_resize(c.pod, c.allocated, list("8", "16Gi"), {}, c.options);
    EXPECT_EQ(to_string(result.verdict), to_string(c.verdict)) << c.name;
    EXPECT_EQ(result.message, c.message) << c.name;
  }
}

TEST(ResizeAdmission, NegativeInputIsRejectedWithItsName) {
  const kube::Pod pod = burstable("1", "1Gi");
  EXPECT_THROW(
      {
        try {
          admit_pod(pod, list("-1", "16Gi"), {});
        } catch (const AdmissionError& e) {
          EXPECT_STREQ(e.what(), "node allocatable cpu is negative: -1000");
          throw;
        }
      },
      AdmissionError);
  EXPECT_THROW(admit_pod(pod, list("8", "16Gi"), list("", "-1Gi")), AdmissionError);
  EXPECT_THROW(
      {
        try {
          admit_resize(burstable("-500m", ""), {}, list("8", "16Gi"), {});
        } catch (const AdmissionError& e) {
          EXPECT_STREQ(e.what(), "pod default/web requests cpu is negative: -500");
          throw;
        }
      },
      AdmissionError);
}

}  // namespace
}  // namespace tailor::node::allocation
