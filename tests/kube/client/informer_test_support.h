// Shared by the informer tests: a small typed object with its decoder, and a recorder of
// handler calls that tests wait on (with a generous bound; never a sleep-as-assertion).
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client/informer.h"
#include "tests/support/eventually.h"

namespace tailor::kube::cache::testing {

struct TestPod {
  std::string namespace_, name, resource_version, node, phase;
};

inline TestPod decode_test_pod(std::string_view json) {
  auto doc = boost::json::parse(json).as_object();
  const auto& meta = doc.at("metadata").as_object();
  TestPod pod;
  pod.name = meta.at("name").as_string().c_str();
  pod.namespace_ = meta.at("namespace").as_string().c_str();
  pod.resource_version = meta.at("resourceVersion").as_string().c_str();
  pod.node = doc.at("spec").as_object().at("nodeName").as_string().c_str();
  pod.phase = doc.at("status").as_object().at("phase").as_string().c_str();
  return pod;
}

using kube::testing::eventually;

inline std::vector<std::string> pod_node_index(const MetaInfo&, const TestPod& pod) {
  if (pod.node.empty()) return {};
  return {pod.node};
}

// One handler call, flattened for comparisons: "add ns/a@101", "update ns/a@101->105",
// "delete ns/a@105", "delete? ns/a@101" (final state unknown), "resync ns/a@101".
class CallLog {
 public:
  EventHandlers<TestPod> handlers() {
    EventHandlers<TestPod> h;
    h.on_add = [this](const auto& pod) { push("add " + id(*pod)); };
    h.on_update = [this](const auto& old_pod, const auto& pod) {
      if (old_pod == pod) {
        push("resync " + id(*pod));
      } else {
        push("update " + id(*old_pod) + "->" + pod->resource_version);
      }
    };
    h.on_delete = [this](const auto& pod, bool unknown) {
      push((unknown ? "delete? " : "delete ") + id(*pod));
    };
    return h;
  }

  // Waits (up to 10 s) until pred(calls) holds; returns whether it did.
  bool wait_for(const std::function<bool(const std::vector<std::string>&)>& pred) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return pred(calls_); });
  }
  bool wait_for_count(std::size_t n) {
    return wait_for([n](const auto& calls) { return calls.size() >= n; });
  }
  std::vector<std::string> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  static std::string id(const TestPod& pod) {
    return pod.namespace_ + "/" + pod.name + "@" + pod.resource_version;
  }
  void push(std::string call) {
    {
      std::lock_guard lock(mutex_);
      calls_.push_back(std::move(call));
    }
    changed_.notify_all();
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> calls_;
};

}  // namespace tailor::kube::cache::testing
