// Reading List pages, Status objects and bookmarks for the informer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/client/list_watch.h"
#include "kube/client/store_meta.h"

namespace tailor::kube::cache {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseListPage, SplitsItemsAndReadsResourceVersionAndContinue) {
  ListPage page = parse_list_page(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"77",
      "continue":"abc","remainingItemCount":3},"items":[{"metadata":{"name":"a"}},
      {"metadata":{"name":"b","labels":{"x":"[}"}}}]})");
  EXPECT_EQ(page.resource_version, "77");
  EXPECT_EQ(page.continue_token, "abc");
  EXPECT_THAT(page.items, ElementsAre(R"({"metadata":{"name":"a"}})",
                                      R"({"metadata":{"name":"b","labels":{"x":"[}"}}})"));
}

TEST(ParseListPage, ItemsBeforeMetadataAndNullItems) {
  ListPage page = parse_list_page(R"({"items":[{"metadata":{"name":"a"}}],
      "metadata":{"resourceVersion":"5"}})");
  EXPECT_EQ(page.resource_version, "5");
  EXPECT_EQ(page.items.size(), 1u);
  EXPECT_TRUE(
      parse_list_page(R"({"metadata":{"resourceVersion":"6"},"items":null})").items.empty());
}

TEST(ParseListPage, RejectsWhatIsNotAList) {
  for (auto [json, error] : std::vector<std::pair<const char*, const char*>>{
           {"", "List JSON is malformed"},
           {R"({"metadata":{}})", "List has no items field"},
           {R"({"items":{}})", "List items: expected an array"},
           {R"({"items":[1]})", "List items[0]: expected an object"},
           {R"({"items":[],"metadata":{"resourceVersion":5}})", "resourceVersion: expected"},
           {R"({"items":[{"a":1},)", "malformed"}}) {
    try {
      parse_list_page(json);
      ADD_FAILURE() << "no error for " << json;
    } catch (const DecodeError& e) {
      EXPECT_THAT(e.what(), HasSubstr(error)) << json;
    }
  }
}

TEST(ParseStatus, ReadsCodeReasonMessage) {
  StatusInfo s = parse_status(R"json({"kind":"Status","apiVersion":"v1","metadata":{},
      "status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired",
      "code":410})json");
  EXPECT_EQ(s.code, 410);
  EXPECT_EQ(s.reason, "Expired");
  EXPECT_EQ(s.message, "too old resource version: 1 (5)");
  EXPECT_EQ(parse_status("{}").code, 0);
  EXPECT_THROW(parse_status(R"({"code":"410"})"), DecodeError);
  EXPECT_THROW(parse_status(R"({"code":99999999999})"), DecodeError);
}

TEST(ParseResourceVersion, ReadsBookmarks) {
  EXPECT_EQ(parse_resource_version(
                R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12345",
                "annotations":{"k8s.io/initial-events-end":"true"}}})"),
            "12345");
  EXPECT_THROW(parse_resource_version(R"({"metadata":{}})"), DecodeError);
  EXPECT_THROW(parse_resource_version("nope"), DecodeError);
}

}  // namespace
}  // namespace tailor::kube::cache
