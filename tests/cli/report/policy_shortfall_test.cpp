#include "cli/policy_shortfall.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tailor::cli {
namespace {

std::string error_of(const std::string& body) {
  try {
    parse_shortfall(body);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ShortfallQuery, TheControllersCounterOverADayPerWorkloadContainer) {
  EXPECT_EQ(shortfall_query(""),
            "max by (namespace, target_kind, target_name, container) "
            "(increase(tailor_workload_cpu_shortfall_core_seconds_total[1d]))");
  EXPECT_EQ(shortfall_query("shop"),
            "max by (namespace, target_kind, target_name, container) "
            "(increase(tailor_workload_cpu_shortfall_core_seconds_total{namespace=\"shop\"}[1d]))");
}

TEST(ParseShortfall, OneValuePerWorkloadContainer) {
  const ShortfallIndex index = parse_shortfall(R"({"status":"success","data":{
    "resultType":"vector","result":[
      {"metric":{"namespace":"shop","target_kind":"Deployment","target_name":"web",
                 "container":"app"},"value":[1764300000.5,"118.25"]},
      {"metric":{"namespace":"shop","target_kind":"StatefulSet","target_name":"db",
                 "container":"pg"},"value":[1764300000.5,"0"]}]}})");
  ASSERT_EQ(index.size(), 2u);
  EXPECT_DOUBLE_EQ(index.at(shortfall_key("shop", "Deployment", "web", "app")), 118.25);
  EXPECT_DOUBLE_EQ(index.at(shortfall_key("shop", "StatefulSet", "db", "pg")), 0);
  EXPECT_TRUE(parse_shortfall(R"({"status":"success","data":{"resultType":"vector",
                                  "result":[]}})")
                  .empty());
}

TEST(ParseShortfall, SaysWhatIsWrongWithTheAnswer) {
  EXPECT_NE(error_of("<html>").find("the answer is not JSON"), std::string::npos);
  EXPECT_EQ(error_of(R"({"status":"error","errorType":"bad_data","error":"parse error at 3"})"),
            "the query failed: parse error at 3");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"matrix","result":[]}})"),
            "the answer is not a vector: \"matrix\"");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"vector","result":[
                        {"metric":{"namespace":"shop"},"value":[1,"2"]}]}})"),
            "a series of the answer has no label target_kind");
  EXPECT_EQ(error_of(R"({"status":"success","data":{"resultType":"vector","result":[
                        {"metric":{"namespace":"a","target_kind":"b","target_name":"c",
                                   "container":"d"},"value":[1,"lots"]}]}})"),
            "a sample value 'lots' is not a number");
  EXPECT_EQ(error_of(R"({"data":{}})"), "the answer has no status");
}

TEST(AttachShortfall, ByWorkloadAndContainerUnknownWithoutASeries) {
  std::vector<ContainerRow> rows(3);
  rows[0] = {
      .ns = "shop", .workload_kind = "Deployment", .workload_name = "web", .container = "app"};
  rows[1] = rows[0];
  rows[1].container = "sidecar";
  rows[2] = rows[0];
  rows[2].ns = "other";
  attach_shortfall(rows, {{shortfall_key("shop", "Deployment", "web", "app"), 42.5},
                          {shortfall_key("shop", "Deployment", "web", "sidecar"), 0}});
  EXPECT_EQ(rows[0].cpu_shortfall_last_day, 42.5);
  EXPECT_EQ(rows[1].cpu_shortfall_last_day, 0.0);
  EXPECT_EQ(rows[2].cpu_shortfall_last_day, std::nullopt);
}

TEST(ReadShortfall, AnUnreachablePrometheusIsNamed) {
  try {
    read_shortfall("http://127.0.0.1:1", "", std::chrono::seconds(5));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "reading CPU shortfall from Prometheus at http://127.0.0.1:1: ", 0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace tailor::cli
