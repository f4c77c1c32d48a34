// The informer and the typed model together: Informer<Pod> decoding with the model's simdjson
// decoder, indexed by node name, as the node agent and the controller use it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kube/client/informer.h"
#include "kube/model/decode.h"
#include "tests/kube/client/informer_fake_api.h"

namespace tailor::kube::cache {
namespace {

TEST(InformerWithModel, PodsDecodeIntoTheModelAndIndexByNode) {
  auto api = std::make_shared<testing::FakeApi>();
  api->put({"shop", "web-1", "node-a", "", "Running"});
  api->put({"shop", "web-2", "node-b", "", "Pending"});

  Informer<Pod> pods(api, [](std::string_view json) { return decode<Pod>(json); },
                     {.name = "pods"});
  pods.store().add_indexer(std::string(kIndexNodeName), [](const MetaInfo&, const Pod& pod) {
    return std::vector{pod.spec.node_name};
  });
  pods.start();
  ASSERT_TRUE(pods.wait_for_sync(std::chrono::seconds(10)));

  auto on_a = pods.store().by_index(std::string(kIndexNodeName), "node-a");
  ASSERT_EQ(on_a.size(), 1u);
  EXPECT_EQ(on_a[0]->metadata.name, "web-1");
  EXPECT_EQ(on_a[0]->metadata.namespace_, "shop");
  EXPECT_EQ(on_a[0]->status.phase, "Running");
  pods.stop();
}

}  // namespace
}  // namespace tailor::kube::cache
