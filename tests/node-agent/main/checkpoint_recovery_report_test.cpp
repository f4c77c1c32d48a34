#include "node-agent/main/checkpoint_recovery_report.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::node {
namespace {

TEST(CheckpointRecoveryReport, TheNodeConditionIsOneEntryMergedByType) {
  const allocation::RecoveryCondition condition{"True", "CheckpointCorrupt",
                                                "allocation checkpoint corrupt"};
  const boost::json::value patch =
      boost::json::parse(node_condition_patch(condition, "2026-11-27T15:00:00Z"));
  EXPECT_EQ(patch, boost::json::parse(R"({"status":{"conditions":[{
              "type":"tailor.dev/AllocationCheckpointRebuilt","status":"True",
              "reason":"CheckpointCorrupt","message":"allocation checkpoint corrupt",
              "lastHeartbeatTime":"2026-11-27T15:00:00Z",
              "lastTransitionTime":"2026-11-27T15:00:00Z"}]}})"));
}

}  // namespace
}  // namespace tailor::node
