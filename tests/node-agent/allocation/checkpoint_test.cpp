#include "node-agent/allocation/checkpoint.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tailor::node::allocation {
namespace {

Checkpoint sample() {
  AllocatedPod pod;
  pod.uid = "uid-1";
  pod.namespace_ = "default";
  pod.name = "web";
  pod.generation = 3;
  pod.resize_in_progress = true;
  pod.in_progress_generation = 3;
  pod.containers.push_back(
      {"app",
       {{{"cpu", kube::Quantity::parse("500m")}, {"memory", kube::Quantity::parse("256Mi")}},
        {{"cpu", kube::Quantity::parse("250m")}, {"memory", kube::Quantity::parse("128Mi")}}}});
  pod.init_containers.push_back({"sidecar", {{}, {{"cpu", kube::Quantity::parse("10m")}}}});
  AllocatedPod other;
  other.uid = "uid-2";
  other.namespace_ = "ns";
  other.name = "db";
  other.generation = 1;
  other.containers.push_back({"db", {}});
  Checkpoint checkpoint;
  checkpoint.pods.emplace(pod.uid, pod);
  checkpoint.pods.emplace(other.uid, other);
  return checkpoint;
}

TEST(Checkpoint, RoundTrips) {
  const Checkpoint checkpoint = sample();
  EXPECT_EQ(decode_checkpoint(encode_checkpoint(checkpoint), "mem"), checkpoint);
  EXPECT_EQ(decode_checkpoint(encode_checkpoint({}), "mem"), Checkpoint{});
}

TEST(Checkpoint, HeaderNamesVersionAndChecksum) {
  const std::string text = encode_checkpoint(sample());
  EXPECT_EQ(text.rfind("tailor-node-agent-checkpoint v1 fnv1a64:", 0), 0u) << text;
}

TEST(Checkpoint, Fnv1a64KnownValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
}

CheckpointErrorKind error_kind(const std::string& text, std::string* message = nullptr) {
  try {
    decode_checkpoint(text, "/x/checkpoint");
  } catch (const CheckpointError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "accepted: " << text;
  return CheckpointErrorKind::Io;
}

std::string with_payload(const std::string& payload, const std::string& version = "v1") {
  std::ostringstream out;
  out << "tailor-node-agent-checkpoint " << version << " fnv1a64:" << std::hex;
  out.width(16);
  out.fill('0');
  out << fnv1a64(payload) << "\n" << payload;
  return out.str();
}

TEST(Checkpoint, CorruptionIsDetected) {
  const std::string good = encode_checkpoint(sample());
  std::string flipped = good;
  flipped[good.find("500m")] = '9';  // one changed byte in the payload
  std::string message;
  EXPECT_EQ(error_kind(flipped, &message), CheckpointErrorKind::Corrupt);
  EXPECT_NE(message.find("checksum mismatch"), std::string::npos) << message;
  EXPECT_NE(message.find("/x/checkpoint"), std::string::npos) << message;

  EXPECT_EQ(error_kind(good.substr(0, good.size() - 5)), CheckpointErrorKind::Corrupt);  // torn
  EXPECT_EQ(error_kind(""), CheckpointErrorKind::Corrupt);
  EXPECT_EQ(error_kind("garbage\n{}"), CheckpointErrorKind::Corrupt);
  EXPECT_EQ(error_kind(std::string(good.size(), '\0')), CheckpointErrorKind::Corrupt);
}

TEST(Checkpoint, UnknownVersionIsReported) {
  std::string message;
  EXPECT_EQ(error_kind(with_payload(R"({"pods":[]})", "v2"), &message),
            CheckpointErrorKind::UnknownVersion);
  EXPECT_NE(message.find("unknown version \"v2\""), std::string::npos) << message;
}

// A payload whose checksum is right but whose content is not a valid checkpoint (e.g. written by
// a buggy version) is rejected with the JSON path at fault.
TEST(Checkpoint, InvalidPayloadsNameThePath) {
  struct Case {
    std::string payload, expected;
  };
  const Case cases[] = {
      {"not json", "invalid JSON"},
      {R"([])", "$ is not an object"},
      {R"({})", "missing $.pods"},
      {R"({"pods":[{"uid":"u"}]})", "missing $.pods[0].namespace"},
      {R"({"pods":[{"uid":"u","namespace":"n","name":"p","generation":"1"}]})",
       "$.pods[0].generation is not an integer"},
      {R"({"pods":[{"uid":"u","namespace":"n","name":"p","generation":1,"resizeInProgress":false,)"
       R"("inProgressGeneration":0,"containers":[{"name":"c","requests":{"cpu":"lots"},"limits":{}}],)"
       R"("initContainers":[]}]})",
       "$.pods[0].containers[0].requests.cpu"},
      {R"({"pods":[{"uid":"u","namespace":"n","name":"p","generation":1,"resizeInProgress":false,)"
       R"("inProgressGeneration":0,"containers":[{"name":"c","requests":{"cpu":"-1"},"limits":{}}],)"
       R"("initContainers":[]}]})",
       "is negative"},
  };
  for (const Case& c : cases) {
    std::string message;
    EXPECT_EQ(error_kind(with_payload(c.payload), &message), CheckpointErrorKind::Corrupt);
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
  const AllocatedPod pod = sample().pods.at("uid-1");
  Checkpoint twice;
  twice.pods.emplace("a", pod);
  twice.pods.emplace("b", pod);  // same uid inside
  std::string message;
  EXPECT_EQ(error_kind(encode_checkpoint(twice), &message), CheckpointErrorKind::Corrupt);
  EXPECT_NE(message.find("appears twice"), std::string::npos) << message;
}

class CheckpointStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-checkpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(CheckpointStoreTest, NoFileIsANewNode) {
  EXPECT_EQ(CheckpointStore(dir_).load(), std::nullopt);
}

TEST_F(CheckpointStoreTest, SavesAtomicallyAndLoads) {
  CheckpointStore store(dir_);
  store.save(sample());
  EXPECT_EQ(store.load(), sample());
  store.save({});
  EXPECT_EQ(store.load(), Checkpoint{});
  EXPECT_FALSE(std::filesystem::exists(store.path().string() + ".tmp"));
}

TEST_F(CheckpointStoreTest, CorruptFileIsAnErrorNotAnEmptyNode) {
  CheckpointStore store(dir_);
  store.save(sample());
  {
    std::fstream f(store.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.write("XYZ", 3);
  }
  try {
    store.load();
    FAIL() << "a corrupt checkpoint was used";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointErrorKind::Corrupt);
    EXPECT_NE(std::string(e.what()).find(store.path().string()), std::string::npos);
  }
}

TEST_F(CheckpointStoreTest, FailedWriteKeepsThePreviousCheckpoint) {
  CheckpointStore store(dir_);
  store.save(sample());
  // The temporary file cannot be created where a directory of that name stands (this holds for
  // root too, unlike permissions).
  std::filesystem::create_directory(store.path().string() + ".tmp");
  try {
    store.save({});
    FAIL() << "the write succeeded";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointErrorKind::Io);
  }
  EXPECT_EQ(store.load(), sample());
}

TEST_F(CheckpointStoreTest, MissingDirectoryIsAnIoError) {
  CheckpointStore store(dir_ / "absent");
  EXPECT_THROW(store.save(sample()), CheckpointError);
}

}  // namespace
}  // namespace tailor::node::allocation
