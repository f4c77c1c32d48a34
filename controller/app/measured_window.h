// A usage window from any source (node agent, Prometheus history, metrics.k8s.io) as the models'
// sample periods fold it (recommender/sample_period.h).
#pragma once

#include <string>

#include "controller/usage/usage_server.h"
#include "recommender/sample_period.h"

namespace tailor::controller {

// The window's span, mean and peak CPU, and memory peak: the larger of the working set's maximum
// and the cgroup's peak (a source may give either). A window shorter than a second, as one of a
// single sample spans no time (an agent's window runs from its first reading to its last; one
// reading when --usage-sample-interval equals the report interval), stands for the second
// before its end, as the controller has always weighed it.
recommender::MeasuredWindow measured_window(const usage::UsageWindow& w);

// Whose windows these are: the pod, and the source (an agent's carry the pod's uid, the history
// and the metrics.k8s.io readings none), so each source's windows are folded in their own order.
std::string window_source(const usage::UsageWindow& w);

}  // namespace tailor::controller
