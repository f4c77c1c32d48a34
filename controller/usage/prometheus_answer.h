// An answer of Prometheus' HTTP query API parsed once: /api/v1/query's vector and
// /api/v1/query_range's matrix, for the history bootstrap (prometheus_history.h) and
// `tailor report`'s shortfall column (cli/policy_shortfall.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tailor::controller::usage {

class PrometheusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What is wrong with an answer. what() says it as the history bootstrap does; a caller that words
// it otherwise reads problem and detail.
class PrometheusAnswerError : public PrometheusError {
 public:
  enum class Problem {
    not_json,    // not JSON; detail: the JSON parser's complaint
    no_status,   // JSON but not an object, or one without "status"
    failed,      // "status" is not "success"; detail: its "error", or the answer when it has none
    wrong_type,  // the result is not of the type asked for; detail: "resultType", as JSON
    bad_value,   // a sample value is not a number; detail: its text
    malformed,   // anything else, said in what()
  };
  PrometheusAnswerError(Problem problem, const std::string& what, std::string detail = {})
      : PrometheusError(what), problem(problem), detail(std::move(detail)) {}
  Problem problem;
  std::string detail;
};

// One series of the answer: its string labels and its samples, (unix milliseconds, value) as the
// answer lists them. Values "NaN", "+Inf", "-Inf" are kept.
struct PrometheusSeries {
  std::map<std::string, std::string, std::less<>> labels;
  std::vector<std::pair<std::int64_t, double>> points;
};

enum class PrometheusResult { vector, matrix };

// Parses the answer, which must be a "status":"success" one of the type given (a vector's series
// have one point each). Throws PrometheusAnswerError.
std::vector<PrometheusSeries> parse_prometheus_answer(std::string_view body, PrometheusResult type);

}  // namespace tailor::controller::usage
