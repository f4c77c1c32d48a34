// The CRD in the chart and the code must agree on enums and defaults: an API server defaults and
// validates with the CRD, the controller with effective.h.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kube/observe/duration.h"
#include "policy/effective.h"

namespace tailor::policy {
namespace {

std::string crd_text() {
  std::ifstream in(std::string(TAILOR_SOURCE_DIR) +
                   "/charts/tailor/crds/verticalscalingpolicies.yaml");
  EXPECT_TRUE(in) << "charts/tailor/crds/verticalscalingpolicies.yaml is missing";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The YAML block of the property `name` (from its line to the next line at the same indent).
std::string property(const std::string& text, const std::string& name) {
  auto at = text.find(" " + name + ":\n");
  EXPECT_NE(at, std::string::npos) << name;
  if (at == std::string::npos) return "";
  auto line_start = text.rfind('\n', at) + 1;
  std::string indent(at + 1 - line_start, ' ');
  auto end = at + 1;
  while (true) {
    end = text.find('\n', end);
    if (end == std::string::npos || text.compare(end + 1, indent.size(), indent) != 0 ||
        text[end + 1 + indent.size()] != ' ') {
      break;
    }
    ++end;
  }
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(VerticalScalingPolicyCrd, ModesAndDefaultsMatchTheCode) {
  std::string text = crd_text();
  std::string mode = property(text, "mode");
  for (auto m : {UpdateMode::Off, UpdateMode::Initial, UpdateMode::Recreate,
                 UpdateMode::InPlaceOrRecreate, UpdateMode::InPlace}) {
    EXPECT_NE(mode.find(std::string(to_string(m))), std::string::npos) << to_string(m);
  }
  EXPECT_NE(mode.find("default: " + std::string(to_string(EffectivePolicy{}.mode))),
            std::string::npos)
      << mode;
  EXPECT_NE(property(text, "minReplicas").find("default: " + std::to_string(kDefaultMinReplicas)),
            std::string::npos);
  auto default_of = [&](const char* name) {
    std::string block = property(text, name);
    auto at = block.find("default: ");
    EXPECT_NE(at, std::string::npos) << name;
    return block.substr(at + 9, block.find('\n', at) - at - 9);
  };
  EXPECT_EQ(kube::parse_duration(default_of("deferredTimeout")), kDefaultDeferredTimeout);
  EXPECT_EQ(kube::parse_duration(default_of("inProgressTimeout")), kDefaultInProgressTimeout);
  EXPECT_EQ(default_of("controlledValues"), "RequestsAndLimits");
}

// The CRD carries VPA's startupBoost rules, so the API server refuses what validate() refuses.
TEST(VerticalScalingPolicyCrd, StartupBoostRulesMatchTheCode) {
  std::string text = crd_text();
  std::string boost = property(text, "startupBoost");
  for (const char* rule : {"(self.type == 'Factor') == has(self.factor)",
                           "factor is required when type is Factor and forbidden otherwise",
                           "(self.type == 'Quantity') == has(self.quantity)",
                           "quantity is required when type is Quantity and forbidden otherwise",
                           "enum: [Factor, Quantity]", "required: [type]", "durationSeconds:"}) {
    EXPECT_NE(boost.find(rule), std::string::npos) << rule;
  }
  EXPECT_NE(property(boost, "factor").find("minimum: 1"), std::string::npos);
  EXPECT_NE(text.find("startupBoost: *startupBoost"), std::string::npos);  // also on the spec
}

TEST(VerticalScalingPolicyCrd, PrinterColumnsForKubectlGetVsp) {
  std::string text = crd_text();
  EXPECT_NE(text.find("shortNames: [vsp]"), std::string::npos);
  for (const char* column :
       {"name: Mode", "name: CPU", "name: Mem", "name: Provided", "name: Age"}) {
    EXPECT_NE(text.find(column), std::string::npos) << column;
  }
}

}  // namespace
}  // namespace tailor::policy
