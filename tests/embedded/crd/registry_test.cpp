// The resource registry: custom resources served per owner beside the built-in ones, with
// pointers that stay valid after they stop being served.
#include <gtest/gtest.h>

#include <algorithm>

#include "embedded/api/resources.h"

namespace tailor::embedded {
namespace {

ResourceInfo widget(const std::string& version) {
  return {.group = "example.com",
          .version = version,
          .resource = "widgets",
          .singular = "widget",
          .kind = "Widget",
          .short_names = {"wd"}};
}

bool served(const std::string& group, const std::string& version) {
  auto gvs = served_group_versions();
  return std::find(gvs.begin(), gvs.end(), std::pair{group, version}) != gvs.end();
}

TEST(Registry, CustomResourcesAreServedUntilForgotten) {
  int owner = 0;
  std::vector<const ResourceInfo*> infos =
      serve_custom_resources(&owner, "widgets.example.com", {widget("v1"), widget("v2")});
  ASSERT_EQ(infos.size(), 2u);
  EXPECT_EQ(find_resource("example.com", "v2", "widgets"), infos[1]);
  EXPECT_TRUE(served("example.com", "v1"));
  std::vector<const ResourceInfo*> all = served_resources();
  EXPECT_NE(std::find(all.begin(), all.end(), infos[0]), all.end());
  // Serving again replaces; an identical info keeps its pointer.
  std::vector<const ResourceInfo*> again =
      serve_custom_resources(&owner, "widgets.example.com", {widget("v1")});
  EXPECT_EQ(again[0], infos[0]);
  EXPECT_EQ(find_resource("example.com", "v2", "widgets"), nullptr);
  forget_custom_resources(&owner);
  EXPECT_EQ(find_resource("example.com", "v1", "widgets"), nullptr);
  EXPECT_FALSE(served("example.com", "v1"));
  EXPECT_EQ(infos[1]->kind, "Widget");  // still valid: requests may hold it
}

TEST(Registry, OwnersAreIndependentAndShareIdenticalInfos) {
  int a = 0, b = 0;
  const ResourceInfo* first = serve_custom_resources(&a, "w", {widget("v1")})[0];
  const ResourceInfo* second = serve_custom_resources(&b, "w", {widget("v1")})[0];
  EXPECT_EQ(first, second);
  forget_custom_resources(&a);
  EXPECT_EQ(find_resource("example.com", "v1", "widgets"), second);
  forget_custom_resources(&b);
  EXPECT_EQ(find_resource("example.com", "v1", "widgets"), nullptr);
}

TEST(Registry, BuiltinsWinAndRefreshersRunBeforeCustomLookups) {
  int owner = 0;
  int refreshed = 0;
  set_custom_resource_refresher(&owner, [&] { ++refreshed; });
  const ResourceInfo* pods = find_resource("", "v1", "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ(refreshed, 0);  // built-in lookups do not refresh
  EXPECT_EQ(find_resource("example.com", "v1", "widgets"), nullptr);
  EXPECT_EQ(refreshed, 1);
  ResourceInfo shadow = *pods;
  serve_custom_resources(&owner, "pods", {shadow});
  EXPECT_EQ(find_resource("", "v1", "pods"), pods);
  std::vector<const ResourceInfo*> all = served_resources();
  EXPECT_EQ(std::count_if(
                all.begin(), all.end(),
                [](const ResourceInfo* r) { return r->group.empty() && r->resource == "pods"; }),
            1);
  EXPECT_EQ(refreshed, 2);
  forget_custom_resources(&owner);
  find_resource("example.com", "v1", "widgets");
  EXPECT_EQ(refreshed, 2);  // forgotten with the owner
}

}  // namespace
}  // namespace tailor::embedded
