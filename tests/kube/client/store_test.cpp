// Store<T> and StoreCore: keys, indexes kept in step with updates and deletes, relist diffing,
// and the generic metadata reader with its errors.
#include "kube/client/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace tailor::kube::cache {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

struct Obj {
  std::string node;
  int value = 0;
};

StoreEntry entry(std::string ns, std::string name, std::string rv, Obj obj,
                 std::vector<std::string> owners = {}) {
  MetaInfo meta{std::move(ns), std::move(name), "uid", std::move(rv), std::move(owners)};
  return {std::move(meta), std::make_shared<const Obj>(std::move(obj))};
}

std::vector<std::string> node_index(const MetaInfo&, const Obj& o) {
  return o.node.empty() ? std::vector<std::string>{} : std::vector<std::string>{o.node};
}

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() {
    store_.add_indexer(std::string(kIndexNamespace), index_by_namespace<Obj>());
    store_.add_indexer(std::string(kIndexNodeName), node_index);
    store_.add_indexer(std::string(kIndexOwnerUid), index_by_owner_uid<Obj>());
  }
  std::vector<int> values(std::string_view index, std::string_view value) {
    std::vector<int> out;
    for (const auto& o : store_.by_index(index, value)) out.push_back(o->value);
    std::sort(out.begin(), out.end());
    return out;
  }
  Store<Obj> store_;
};

TEST_F(StoreTest, KeysAreNamespaceSlashNameOrJustNameWhenClusterScoped) {
  store_.core().upsert(entry("ns", "a", "1", {"n1", 1}));
  store_.core().upsert(entry("", "node-1", "2", {"", 2}));
  EXPECT_THAT(store_.keys(), UnorderedElementsAre("ns/a", "node-1"));
  EXPECT_EQ(store_.get("ns", "a")->value, 1);
  EXPECT_EQ(store_.get("node-1")->value, 2);
  EXPECT_EQ(store_.get("ns", "missing"), nullptr);
  EXPECT_EQ(store_.meta("ns/a")->resource_version, "1");
  EXPECT_EQ(object_key("", "x"), "x");
  EXPECT_EQ(object_key("kube-system", "x"), "kube-system/x");
}

TEST_F(StoreTest, IndexesFollowUpsertsAndErases) {
  store_.core().upsert(entry("a", "p1", "1", {"n1", 1}, {"rs-1"}));
  store_.core().upsert(entry("a", "p2", "1", {"n2", 2}, {"rs-1", "other"}));
  store_.core().upsert(entry("b", "p3", "1", {"n1", 3}));
  EXPECT_THAT(values(kIndexNamespace, "a"), ElementsAre(1, 2));
  EXPECT_THAT(values(kIndexNodeName, "n1"), ElementsAre(1, 3));
  EXPECT_THAT(values(kIndexOwnerUid, "rs-1"), ElementsAre(1, 2));
  EXPECT_THAT(values(kIndexOwnerUid, "other"), ElementsAre(2));

  auto previous = store_.core().upsert(entry("a", "p1", "2", {"n2", 10}, {}));
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->meta.resource_version, "1");
  EXPECT_THAT(values(kIndexNodeName, "n1"), ElementsAre(3));
  EXPECT_THAT(values(kIndexNodeName, "n2"), ElementsAre(2, 10));
  EXPECT_THAT(values(kIndexOwnerUid, "rs-1"), ElementsAre(2));

  store_.core().erase("a/p2");
  EXPECT_THAT(store_.index_values(kIndexOwnerUid), IsEmpty());
  EXPECT_THAT(store_.index_values(kIndexNamespace), UnorderedElementsAre("a", "b"));
  EXPECT_FALSE(store_.core().erase("a/p2"));
}

TEST_F(StoreTest, ReplaceReportsAddedUpdatedAndDeletedAndKeepsUnchangedEntries) {
  store_.core().upsert(entry("ns", "keep", "1", {"n1", 1}));
  store_.core().upsert(entry("ns", "change", "2", {"n1", 2}));
  store_.core().upsert(entry("ns", "gone", "3", {"n1", 3}));
  auto kept = store_.get("ns", "keep");
  StoreDiff diff = store_.core().replace({entry("ns", "keep", "1", {"n1", 100}),
                                          entry("ns", "change", "5", {"n2", 20}),
                                          entry("ns", "new", "6", {"n3", 30})});
  ASSERT_EQ(diff.added.size(), 1u);
  EXPECT_EQ(diff.added[0].meta.name, "new");
  ASSERT_EQ(diff.updated.size(), 1u);
  EXPECT_EQ(diff.updated[0].first.meta.resource_version, "2");
  EXPECT_EQ(diff.updated[0].second.meta.resource_version, "5");
  ASSERT_EQ(diff.deleted.size(), 1u);
  EXPECT_EQ(diff.deleted[0].meta.name, "gone");
  EXPECT_EQ(store_.get("ns", "keep"), kept);  // same resourceVersion: the entry is kept
  EXPECT_THAT(values(kIndexNodeName, "n1"), ElementsAre(1));
  EXPECT_THAT(values(kIndexNodeName, "n2"), ElementsAre(20));
}

TEST_F(StoreTest, UnknownIndexAndLateOrDuplicateIndexersAreErrors) {
  EXPECT_THROW(store_.by_index("byColor", "red"), std::invalid_argument);
  EXPECT_THROW(store_.index_values("byColor"), std::invalid_argument);
  EXPECT_THROW(store_.add_indexer(std::string(kIndexNamespace), index_by_namespace<Obj>()),
               std::logic_error);
  EXPECT_THROW(store_.add_indexer("empty", nullptr), std::invalid_argument);
  store_.core().upsert(entry("ns", "a", "1", {}));
  EXPECT_THROW(store_.add_indexer("late", node_index), std::logic_error);
}

TEST(StoreIndexFailure, AnIndexFunctionThatThrowsLeavesTheStoreUnchanged) {
  Store<Obj> store;
  store.add_indexer("picky", [](const MetaInfo&, const Obj& o) -> std::vector<std::string> {
    if (o.value < 0) throw std::runtime_error("negative");
    return {std::to_string(o.value)};
  });
  store.core().upsert(entry("ns", "a", "1", {"", 1}));
  EXPECT_THROW(store.core().upsert(entry("ns", "a", "2", {"", -1})), std::runtime_error);
  EXPECT_EQ(store.get("ns", "a")->value, 1);
  EXPECT_EQ(store.by_index("picky", "1").size(), 1u);
}

TEST(ParseMeta, ReadsIdentityAndOwners) {
  MetaInfo m = parse_meta(R"({"kind":"Pod","metadata":{"name":"web-0","namespace":"shop",
    "uid":"u-1","resourceVersion":"42","labels":{"a":"b"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"o-1"},
                       {"uid":"o-2","kind":"X"}]},"spec":{}})");
  EXPECT_EQ(m.name, "web-0");
  EXPECT_EQ(m.namespace_, "shop");
  EXPECT_EQ(m.uid, "u-1");
  EXPECT_EQ(m.resource_version, "42");
  EXPECT_THAT(m.owner_uids, ElementsAre("o-1", "o-2"));
  EXPECT_EQ(m.key(), "shop/web-0");
}

struct BadMetaCase {
  const char* json;
  const char* error;
};

class ParseMetaErrors : public ::testing::TestWithParam<BadMetaCase> {};

TEST_P(ParseMetaErrors, SayWhatIsWrong) {
  try {
    parse_meta(GetParam().json);
    FAIL() << "no error for " << GetParam().json;
  } catch (const DecodeError& e) {
    EXPECT_THAT(e.what(), HasSubstr(GetParam().error));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseMetaErrors,
    ::testing::Values(BadMetaCase{"", "malformed"}, BadMetaCase{"[1,2]", "malformed"},
                      BadMetaCase{R"({"metadata":{"name":"a")", "malformed"},
                      BadMetaCase{R"({"spec":{}})", "no metadata"},
                      BadMetaCase{R"({"metadata":{"namespace":"x"}})", "no metadata.name"},
                      BadMetaCase{R"({"metadata":{"name":7}})", "metadata.name: expected a string"},
                      BadMetaCase{R"({"metadata":[]})", "metadata: expected an object"},
                      BadMetaCase{R"({"metadata":{"name":"a","ownerReferences":{}}})",
                                  "ownerReferences: expected an array"},
                      BadMetaCase{R"({"metadata":{"name":"a","ownerReferences":[{"uid":1}]}})",
                                  "ownerReferences[].uid: expected a string"},
                      BadMetaCase{R"({"metadata":{"name":"a","resourceVersion":null}})",
                                  "resourceVersion: expected a string"}));

}  // namespace
}  // namespace tailor::kube::cache
