// Protobuf bodies with map fields decoded on many threads at once, as tailor-cluster's
// connection threads do. Labelled unit-threads so that the ThreadSanitizer pass runs it: a TSan
// build once compiled protobuf's headers with a MapFieldBase layout Debian's libprotobuf.so does
// not have (cmake/Toolchain.cmake), and the first map read through reflection crashed.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "embedded/api/resources.h"
#include "embedded/protobuf/body_decoder.h"
#include "proto/k8s/core.pb.h"
#include "tests/embedded/protobuf/envelope.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;
namespace core = ::k8s::io::api::core::v1;

const ResourceInfo& core_resource(const std::string& name) {
  const ResourceInfo* r = find_resource("", "v1", name);
  if (!r) throw std::logic_error("no resource " + name);
  return *r;
}

std::string config_map_body(int i) {
  core::ConfigMap cm;
  cm.mutable_metadata()->set_name("cm-" + std::to_string(i));
  (*cm.mutable_metadata()->mutable_labels())["app"] = "web";
  (*cm.mutable_data())["b"] = "2";
  (*cm.mutable_data())["a"] = "1";
  (*cm.mutable_binarydata())["bin"] = std::string("\x01\x02", 2);
  return protobuf_body("v1", "ConfigMap", cm);
}

bj::value config_map_json(int i) {
  return bj::parse(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-)" + std::to_string(i) +
      R"(","labels":{"app":"web"}},"data":{"a":"1","b":"2"},"binaryData":{"bin":"AQI="}})");
}

std::string pod_body() {
  core::Pod pod;
  pod.mutable_metadata()->set_name("web");
  core::Container* c = pod.mutable_spec()->add_containers();
  c->set_name("app");
  c->set_image("nginx");
  (*c->mutable_resources()->mutable_requests())["cpu"].set_string("250m");
  (*c->mutable_resources()->mutable_limits())["memory"].set_string("64Mi");
  return protobuf_body("v1", "Pod", pod);
}

TEST(ConcurrentProtobufDecode, MapFieldsDecodeTheSameOnEveryThread) {
  constexpr int kThreads = 8, kRounds = 50;
  const std::string pod = pod_body();
  const bj::value pod_resources =
      bj::parse(R"({"limits":{"memory":"64Mi"},"requests":{"cpu":"250m"}})");
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const int i = t * kRounds + round;
        const bj::object cm = decode_protobuf_body(core_resource("configmaps"), config_map_body(i));
        const bj::object p = decode_protobuf_body(core_resource("pods"), pod);
        const bj::value& resources = p.at("spec").at("containers").at(0).at("resources");
        mismatches[static_cast<std::size_t>(t)] +=
            (bj::value(cm) != config_map_json(i)) + (resources != pod_resources);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0) << t;
}

}  // namespace
}  // namespace tailor::embedded::testing
