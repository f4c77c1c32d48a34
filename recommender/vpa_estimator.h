#pragma once

#include "recommender/resources.h"
#include "recommender/vpa_model.h"

namespace tailor::recommender {

// VPA's estimator chain (logic/recommender.go, estimator.go) with its defaults.
struct VpaEstimatorConfig {
  double cpu_target_percentile = 0.9;
  double cpu_lower_percentile = 0.5;
  double cpu_upper_percentile = 0.95;
  double memory_target_percentile = 0.9;
  double memory_lower_percentile = 0.5;
  double memory_upper_percentile = 0.95;
  // VPA has one --recommendation-margin-fraction for both resources; they are apart here so
  // that a trade-off curve can move one resource's margin at a time (docs/scoring.md).
  double cpu_safety_margin = 0.15;
  double memory_safety_margin = 0.15;
  // Bounds scale by (1 + multiplier / confidence)^exponent.
  double upper_confidence_multiplier = 1.0;
  double upper_confidence_exponent = 1.0;
  double lower_confidence_multiplier = 0.001;
  double lower_confidence_exponent = -2.0;
  MinResources min_resources;  // per pod, divided among its containers
  int containers_in_pod = 1;
};

// (1 + multiplier / confidence)^exponent, with VPA's limits: infinite at zero confidence for a
// positive exponent (capped later to VPA's MaxResourceAmount), zero for a negative one.
double confidence_scale(double confidence, double multiplier, double exponent);

Recommendation vpa_recommend(const VpaContainerModel& model, const VpaEstimatorConfig& config = {});

}  // namespace tailor::recommender
