#include "controller/usage/prometheus_answer.h"

#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>

#include "kube/model/json_value.h"

namespace tailor::controller::usage {
namespace {

namespace bj = boost::json;
using Problem = PrometheusAnswerError::Problem;

[[noreturn]] void malformed(const std::string& what) {
  throw PrometheusAnswerError(Problem::malformed, what);
}

std::string string_member(const bj::object& o, std::string_view name) {
  const bj::value* v = o.if_contains(name);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Prometheus writes sample values as strings ("0.25", "NaN", "+Inf").
double sample_value(const bj::value& v) {
  if (!v.is_string()) malformed("a sample value is not a string");
  const std::string text(v.get_string());
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    throw PrometheusAnswerError(Problem::bad_value, "a sample value is not a number", text);
  }
  return d;
}

std::int64_t sample_time_ms(const bj::value& v) {
  if (!v.is_number()) malformed("a sample time is not a number");
  const double ms = v.to_number<double>() * 1000;
  // llround of a value past int64 is unspecified.
  if (!(std::abs(ms) < 9e18)) malformed("a sample time is out of range");
  return std::llround(ms);
}

std::pair<std::int64_t, double> sample(const bj::value& pair) {
  if (!pair.is_array() || pair.get_array().size() != 2) {
    malformed("a sample is not a [time, value] pair");
  }
  return {sample_time_ms(pair.get_array()[0]), sample_value(pair.get_array()[1])};
}

PrometheusSeries series_of(const bj::value& entry, PrometheusResult type) {
  if (!entry.is_object()) malformed("a series is not an object");
  PrometheusSeries s;
  if (const bj::value* metric = entry.get_object().if_contains("metric");
      metric && metric->is_object()) {
    for (const auto& [name, value] : metric->get_object()) {
      if (value.is_string()) s.labels.emplace(name, value.get_string());
    }
  }
  if (type == PrometheusResult::vector) {
    const bj::value* value = entry.get_object().if_contains("value");
    if (!value) malformed("a series has no value");
    s.points.push_back(sample(*value));
    return s;
  }
  const bj::value* values = entry.get_object().if_contains("values");
  if (!values || !values->is_array()) malformed("a series has no values");
  for (const bj::value& pair : values->get_array()) s.points.push_back(sample(pair));
  return s;
}

// The answer's "data", once its status says success.
const bj::object& data_of(const bj::value& v) {
  const char* no_success = "the answer has no \"status\":\"success\"";
  if (!v.is_object()) {
    throw PrometheusAnswerError(Problem::no_status, "the answer is not a JSON object");
  }
  const bj::object& o = v.get_object();
  const bj::value* status = o.if_contains("status");
  if (!status) throw PrometheusAnswerError(Problem::no_status, no_success);
  if (!status->is_string() || status->get_string() != "success") {
    const bj::value* error = o.if_contains("error");
    std::string detail =
        error && error->is_string() ? std::string(error->get_string()) : bj::serialize(v);
    if (!status->is_string() || status->get_string() != "error") {
      throw PrometheusAnswerError(Problem::failed, no_success, std::move(detail));
    }
    throw PrometheusAnswerError(Problem::failed,
                                string_member(o, "errorType") + ": " + string_member(o, "error"),
                                std::move(detail));
  }
  const bj::value* data = o.if_contains("data");
  if (!data || !data->is_object()) malformed("the answer has no data");
  return data->get_object();
}

}  // namespace

std::vector<PrometheusSeries> parse_prometheus_answer(std::string_view body,
                                                      PrometheusResult type) {
  boost::system::error_code ec;
  const bj::value answer = kube::json::parse_value(body, ec);
  if (ec) {
    throw PrometheusAnswerError(Problem::not_json, "the answer is not a JSON object", ec.message());
  }
  const bj::object& data = data_of(answer);
  const char* name = type == PrometheusResult::vector ? "vector" : "matrix";
  const bj::value* result_type = data.if_contains("resultType");
  if (!result_type || !result_type->is_string() || result_type->get_string() != name) {
    throw PrometheusAnswerError(Problem::wrong_type, std::string("the result is not a ") + name,
                                result_type ? bj::serialize(*result_type) : "null");
  }
  const bj::value* result = data.if_contains("result");
  if (!result || !result->is_array()) malformed("the answer has no result");
  std::vector<PrometheusSeries> out;
  out.reserve(result->get_array().size());
  for (const bj::value& entry : result->get_array()) out.push_back(series_of(entry, type));
  return out;
}

}  // namespace tailor::controller::usage
