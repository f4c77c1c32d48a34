#include "kube/observe/exposition.h"

#include <charconv>
#include <cmath>

namespace tailor::kube::metrics {
namespace {

void append_escaped(std::string& out, std::string_view text, bool quotes) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void append_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out.append(buffer, end);
  }
}

}  // namespace

void append_family(std::string& out, std::string_view name, std::string_view help,
                   SeriesType type) {
  out.append("# HELP ").append(name).append(" [ALPHA] ");
  append_escaped(out, help, false);
  out.append("\n# TYPE ").append(name);
  out.append(type == SeriesType::Counter ? " counter\n" : " gauge\n");
}

void append_label(std::string& labels, std::string_view name, std::string_view value) {
  if (!labels.empty()) labels += ',';
  labels.append(name).append("=\"");
  append_escaped(labels, value, true);
  labels += '"';
}

void append_sample(std::string& out, std::string_view name, std::string_view labels,
                   std::string_view extra, double value) {
  out.append(name);
  if (!labels.empty() || !extra.empty()) {
    out += '{';
    out.append(labels);
    if (!labels.empty() && !extra.empty()) out += ',';
    out.append(extra);
    out += '}';
  }
  out += ' ';
  append_value(out, value);
  out += '\n';
}

}  // namespace tailor::kube::metrics
