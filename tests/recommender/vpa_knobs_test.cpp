#include "recommender/vpa_knobs.h"

#include <gtest/gtest.h>

#include <set>

#include "recommender/strategy.h"
#include "recommender/vpa_model.h"

namespace tailor::recommender {
namespace {

std::string error_of(const std::string& spec) {
  try {
    parse_vpa_knobs(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(VpaKnobs, PlainVpaIsVpasDefaults) {
  EXPECT_EQ(parse_vpa_knobs("vpa"), VpaKnobs{});
  const VpaEstimatorConfig c = vpa_estimator_config(VpaKnobs{});
  const VpaEstimatorConfig upstream;
  EXPECT_EQ(c.cpu_target_percentile, upstream.cpu_target_percentile);
  EXPECT_EQ(c.cpu_upper_percentile, upstream.cpu_upper_percentile);
  EXPECT_EQ(c.memory_lower_percentile, upstream.memory_lower_percentile);
  EXPECT_EQ(c.cpu_safety_margin, 0.15);
  EXPECT_EQ(c.memory_safety_margin, 0.15);
}

TEST(VpaKnobs, ParsesEveryKnobInAnyOrder) {
  const VpaKnobs k =
      parse_vpa_knobs("vpa:memory-margin=0.3,cpu-percentile=0.8,cpu-margin=0,memory-percentile=1");
  EXPECT_EQ(k.cpu_percentile, 0.8);
  EXPECT_EQ(k.cpu_margin, 0.0);
  EXPECT_EQ(k.memory_percentile, 1.0);
  EXPECT_EQ(k.memory_margin, 0.3);
  EXPECT_FALSE(k.cpu_only());
  EXPECT_FALSE(k.memory_only());
}

TEST(VpaKnobs, BadSpecsSayWhatIsWrong) {
  EXPECT_NE(error_of("vpa:cpu-percentil=0.8").find("unknown knob 'cpu-percentil'"),
            std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-percentile=1.5").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-percentile=0").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("vpa:memory-margin=-0.1").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("vpa:memory-margin=1.01").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=abc").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=0.1x").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=nan").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=").find("not a number"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin").find("not KNOB=VALUE"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=0.1,").find("not KNOB=VALUE"), std::string::npos);
  EXPECT_NE(error_of("vpa:").find("no knob"), std::string::npos);
  EXPECT_NE(error_of("vpa:cpu-margin=0.1,cpu-margin=0.2").find("twice"), std::string::npos);
  EXPECT_NE(error_of("vpaa").find("not a vpa strategy"), std::string::npos);
  // The message names the spec as given.
  EXPECT_EQ(error_of("vpa:x=1").rfind("strategy 'vpa:x=1': ", 0), 0u);
}

TEST(VpaKnobs, BoundsWidenToTakeInTheTarget) {
  const VpaEstimatorConfig c =
      vpa_estimator_config(parse_vpa_knobs("vpa:cpu-percentile=0.99,memory-percentile=0.3"));
  EXPECT_EQ(c.cpu_upper_percentile, 0.99);
  EXPECT_EQ(c.cpu_lower_percentile, 0.5);
  EXPECT_EQ(c.memory_lower_percentile, 0.3);
  EXPECT_EQ(c.memory_upper_percentile, 0.95);
}

TEST(VpaKnobs, FrontierMovesOneResourceAtATime) {
  std::set<std::string> seen;
  int cpu = 0, memory = 0;
  for (const auto& spec : vpa_frontier_specs()) {
    EXPECT_TRUE(seen.insert(spec).second) << spec;
    const VpaKnobs k = parse_vpa_knobs(spec);
    EXPECT_NE(k, VpaKnobs{}) << spec;  // the default is the vpa row itself
    EXPECT_NE(k.cpu_only(), k.memory_only()) << spec;
    cpu += k.cpu_only();
    memory += k.memory_only();
  }
  EXPECT_EQ(cpu, 9);     // p 0.80/0.85/0.95/0.99, margin 0/5/10/20/30 %
  EXPECT_EQ(memory, 8);  // p 0.80/0.95/0.99, margin 0/5/10/20/30 %
}

TEST(VpaKnobs, VariantIsNamedAsWrittenAndMovesItsTarget) {
  VpaContainerModel m;
  for (int i = 0; i < 2000; ++i) {
    // CPU spread evenly over 0.1-1.0 cores, memory peaks over 1-2 GiB.
    m.add_cpu_sample(i * 60, 0.1 + 0.9 * (i % 100) / 100.0, 1.0);
    m.add_memory_sample(i * 60, (1.0 + (i % 50) / 50.0) * 1024 * kMiB);
  }
  const Recommendation base = vpa_recommend(m, vpa_estimator_config({}));
  const Recommendation low = vpa_recommend(
      m, vpa_estimator_config(parse_vpa_knobs("vpa:cpu-percentile=0.5,memory-margin=0")));
  EXPECT_LT(low.target.cpu_cores, 0.75 * base.target.cpu_cores);
  EXPECT_NEAR(low.target.memory_bytes * 1.15, base.target.memory_bytes,
              1e-6 * base.target.memory_bytes);
  EXPECT_EQ(make_strategy("vpa:cpu-percentile=0.5,memory-margin=0")->name(),
            "vpa:cpu-percentile=0.5,memory-margin=0");
  EXPECT_THROW(make_strategy("vpa:cpu-percentile=2"), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::recommender
