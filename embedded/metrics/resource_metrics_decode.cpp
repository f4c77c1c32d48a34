#include "embedded/metrics/resource_metrics_decode.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

namespace tailor::embedded {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
  std::optional<std::int64_t> at_ms;
};

[[noreturn]] void fail(std::string_view line, const std::string& why) {
  throw std::invalid_argument("resource metrics: " + why + ": \"" + std::string(line) + "\"");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// `{key="value",...}` from rest (which starts at '{'); rest is left after the '}'.
std::map<std::string, std::string> parse_labels(std::string_view line, std::string_view& rest) {
  std::map<std::string, std::string> labels;
  rest.remove_prefix(1);
  while (true) {
    rest = trim(rest);
    if (rest.empty()) fail(line, "unterminated labels");
    if (rest.front() == '}') break;
    const auto eq = rest.find('=');
    if (eq == std::string_view::npos || eq + 1 >= rest.size() || rest[eq + 1] != '"') {
      fail(line, "a label needs name=\"value\"");
    }
    const std::string key(trim(rest.substr(0, eq)));
    std::string value;
    std::size_t i = eq + 2;
    for (; i < rest.size() && rest[i] != '"'; ++i) {
      if (rest[i] == '\\' && i + 1 < rest.size()) {
        ++i;
        value += rest[i] == 'n' ? '\n' : rest[i];
      } else {
        value += rest[i];
      }
    }
    if (i >= rest.size()) fail(line, "unterminated label value");
    labels[key] = std::move(value);
    rest.remove_prefix(i + 1);
    rest = trim(rest);
    if (!rest.empty() && rest.front() == ',') rest.remove_prefix(1);
  }
  rest.remove_prefix(1);
  return labels;
}

double parse_value(std::string_view line, std::string_view text) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) fail(line, "not a number");
  return value;
}

Sample parse_sample(std::string_view line) {
  Sample out;
  const auto name_end = line.find_first_of("{ \t");
  if (name_end == std::string_view::npos) fail(line, "a sample needs a value");
  out.name = std::string(line.substr(0, name_end));
  std::string_view rest = line.substr(name_end);
  if (rest.front() == '{') out.labels = parse_labels(line, rest);
  rest = trim(rest);
  const auto space = rest.find_first_of(" \t");
  out.value = parse_value(line, rest.substr(0, space));
  if (space != std::string_view::npos) {
    const std::string_view stamp = trim(rest.substr(space));
    std::int64_t ms = 0;
    const auto [end, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
    if (ec != std::errc() || end != stamp.data() + stamp.size()) fail(line, "bad timestamp");
    out.at_ms = ms;
  }
  return out;
}

std::int64_t nanos(double seconds) { return std::llround(seconds * 1e9); }

using ContainerId = std::tuple<std::string, std::string, std::string>;

struct Partial {
  std::optional<std::int64_t> cpu_ns, cpu_at_ms, memory, memory_at_ms;
  std::int64_t start_ms = 0;
};

}  // namespace

NodeScrape decode_resource_metrics(std::string_view text) {
  std::map<ContainerId, Partial> containers;
  Partial node;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty() || line.front() == '#') continue;
    const Sample s = parse_sample(line);
    if (!s.at_ms) continue;  // metrics-server drops samples without a timestamp
    const auto label = [&s](const char* key) {
      const auto it = s.labels.find(key);
      return it == s.labels.end() ? std::string() : it->second;
    };
    Partial* target = &node;
    if (s.name.starts_with("container_")) {
      target = &containers[{label("namespace"), label("pod"), label("container")}];
    }
    if (s.name == "container_cpu_usage_seconds_total" || s.name == "node_cpu_usage_seconds_total") {
      target->cpu_ns = nanos(s.value);
      target->cpu_at_ms = s.at_ms;
    } else if (s.name == "container_memory_working_set_bytes" ||
               s.name == "node_memory_working_set_bytes") {
      target->memory = std::llround(s.value);
      target->memory_at_ms = s.at_ms;
    } else if (s.name == "container_start_time_seconds") {
      target->start_ms = std::llround(s.value * 1e3);
    }
  }
  NodeScrape out;
  const auto point = [](const Partial& p) -> std::optional<MetricsPoint> {
    if (!p.cpu_ns || !p.memory) return std::nullopt;
    return MetricsPoint{std::max(*p.cpu_at_ms, *p.memory_at_ms), *p.cpu_ns, *p.memory};
  };
  out.node = point(node);
  for (const auto& [id, partial] : containers) {
    if (const auto p = point(partial)) {
      out.containers.push_back(
          {std::get<0>(id), std::get<1>(id), std::get<2>(id), partial.start_ms, *p});
    }
  }
  return out;
}

}  // namespace tailor::embedded
