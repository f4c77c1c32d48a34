// Writing the Prometheus text exposition format (version 0.0.4) straight into a string, for
// collectors with too many series for prometheus-cpp's MetricFamily objects (a vector of label
// pairs and their strings per series): one family's HELP and TYPE lines, then its samples, each
// as a name, a label set written once and shared, and a value.
#pragma once

#include <string>
#include <string_view>

namespace tailor::kube::metrics {

enum class SeriesType { Counter, Gauge };

// "# HELP name [ALPHA] help\n# TYPE name counter|gauge\n" (the stability prefix as metrics.h
// writes it); help text escaped as the format wants (backslash, newline).
void append_family(std::string& out, std::string_view name, std::string_view help, SeriesType type);
// `name="value"` with the value escaped (backslash, double quote, newline), preceded by a comma
// unless `labels` is empty: builds a label set to pass to append_sample.
void append_label(std::string& labels, std::string_view name, std::string_view value);
// "name{labels[,extra]} value\n"; `labels` and `extra` are label sets from append_label (either
// may be empty). The value in the shortest form that reads back the same; NaN and infinities
// as Prometheus spells them.
void append_sample(std::string& out, std::string_view name, std::string_view labels,
                   std::string_view extra, double value);

}  // namespace tailor::kube::metrics
