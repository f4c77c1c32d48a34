// validateMetrics of autoscaling/v2 HorizontalPodAutoscalers: field paths and messages as
// kube-apiserver words them.
#include "embedded/controllers/hpa_metrics.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

struct Case {
  const char* metrics;              // spec.metrics as JSON
  std::vector<std::string> causes;  // "field: message"
};

TEST(HpaMetrics, ValidatedAsKubeApiserver) {
  const Case cases[] = {
      {R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization",
          "averageUtilization":60}}}])",
       {}},
      {R"([{"type":"ContainerResource","containerResource":{"name":"memory","container":"app",
          "target":{"type":"AverageValue","averageValue":"500Mi"}}}])",
       {}},
      {R"([{"resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}])",
       {"spec.metrics[0].type: Required value: must specify a metric source type",
        "spec.metrics[0].type: Unsupported value: \"\": supported values: \"ContainerResource\", "
        "\"External\", \"Object\", \"Pods\", \"Resource\""}},
      {R"([{"type":"Resource"}])",
       {"spec.metrics[0].resource: Required value: must populate information for the given "
        "metric source"}},
      {R"([{"type":"Resource","resource":{"target":{"type":"Utilization",
          "averageUtilization":0}}}])",
       {"spec.metrics[0].resource.name: Required value: must specify a resource name",
        "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater "
        "than 0"}},
      {R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Percent"}}}])",
       {"spec.metrics[0].resource.target.type: Invalid value: \"Percent\": must be either "
        "Utilization, Value, or AverageValue",
        "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
        "target raw value or a target utilization"}},
      {R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization",
          "averageUtilization":50,"averageValue":"100m"}}}])",
       {"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw "
        "value and a target utilization"}},
      {R"([{"type":"Pods","pods":{}},{"type":"ContainerResource","containerResource":{
          "name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])",
       {"spec.metrics[1].containerResource.container: Required value: must specify a "
        "container"}},
  };
  for (const Case& c : cases) {
    bj::object hpa{{"spec", bj::object{{"metrics", bj::parse(c.metrics)}}}};
    std::vector<std::string> got;
    for (const FieldCause& f : metric_errors(hpa)) got.push_back(f.field + ": " + f.message);
    EXPECT_EQ(got, c.causes) << c.metrics;
  }
}

}  // namespace
}  // namespace tailor::embedded
