#include "kube/model/resources.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::kube {
namespace {

Quantity q(const char* text) { return Quantity::parse(text); }

TEST(ResourceList, KeepsNamesSortedWhateverTheInsertionOrder) {
  ResourceList list;
  list.insert_or_assign("memory", q("1Gi"));
  list.insert_or_assign("cpu", q("1"));
  list.insert_or_assign("example.com/gpu", q("2"));
  list["ephemeral-storage"] = q("10Gi");
  std::vector<std::string> names;
  for (const auto& [name, quantity] : list) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"cpu", "ephemeral-storage", "example.com/gpu", "memory"}));
}

TEST(ResourceList, LookupInsertAndErase) {
  ResourceList list{{"cpu", q("250m")}, {"memory", q("64Mi")}};
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list.at("cpu"), q("250m"));
  EXPECT_TRUE(list.contains("memory"));
  EXPECT_EQ(list.count("pods"), 0u);
  EXPECT_EQ(list.find("pods"), list.end());
  EXPECT_THROW(list.at("pods"), std::out_of_range);
  EXPECT_FALSE(list.try_emplace("cpu", q("1")).second);
  EXPECT_EQ(list.at("cpu"), q("250m"));
  EXPECT_FALSE(list.insert_or_assign("cpu", q("1")).second);
  EXPECT_EQ(list.at("cpu"), q("1"));
  EXPECT_TRUE(list["pods"].is_zero());
  EXPECT_EQ(list.erase("pods"), 1u);
  EXPECT_EQ(list.erase("pods"), 0u);
  EXPECT_EQ(list, (ResourceList{{"memory", q("64Mi")}, {"cpu", q("1")}}));
}

TEST(ResourceList, AddAndMax) {
  ResourceList total{{"cpu", q("100m")}};
  add_resources(total, {{"cpu", q("150m")}, {"memory", q("1Gi")}});
  EXPECT_EQ(total, (ResourceList{{"cpu", q("250m")}, {"memory", q("1Gi")}}));
  max_resources(total, {{"cpu", q("200m")}, {"memory", q("2Gi")}});
  EXPECT_EQ(total, (ResourceList{{"cpu", q("250m")}, {"memory", q("2Gi")}}));
  EXPECT_EQ(find_resource(total, "cpu"), &total.at("cpu"));
  EXPECT_EQ(find_resource(total, "pods"), nullptr);
}

}  // namespace
}  // namespace tailor::kube
