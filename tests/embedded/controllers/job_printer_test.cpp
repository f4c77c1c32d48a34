// The STATUS column of `kubectl get jobs`, as kube-apiserver's printJob fills it.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "embedded/api/tables.h"
#include "embedded/storage/resource_info.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

std::string job_status_cell(const std::string& job_json) {
  const Printer* printer =
      workload_printer({.group = "batch", .version = "v1", .resource = "jobs"});
  EXPECT_NE(printer, nullptr);
  if (!printer) return "";
  const bj::array row = printer->cells(bj::parse(job_json).as_object(), kube::TimePoint{});
  return std::string(row.at(1).as_string());
}

TEST(JobPrinter, StatusAsPrintJob) {
  struct Case {
    const char* what;
    const char* job;
    const char* status;
  } cases[] = {
      {"no status", R"({"metadata":{"name":"j"}})", "Running"},
      {"complete",
       R"({"metadata":{"name":"j"},"status":{"conditions":[
           {"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}})",
       "Complete"},
      {"failed after FailureTarget",
       R"({"metadata":{"name":"j"},"status":{"conditions":[
           {"type":"FailureTarget","status":"True"},{"type":"Failed","status":"True"}]}})",
       "Failed"},
      {"Complete False, Failed True",
       R"({"metadata":{"name":"j"},"status":{"conditions":[
           {"type":"Complete","status":"False"},{"type":"Failed","status":"True"}]}})",
       "Failed"},
      {"a finished Job being deleted is still finished",
       R"({"metadata":{"name":"j","deletionTimestamp":"2027-01-15T08:00:00Z"},
           "status":{"conditions":[{"type":"Complete","status":"True"}]}})",
       "Complete"},
      {"deleted while suspended",
       R"({"metadata":{"name":"j","deletionTimestamp":"2027-01-15T08:00:00Z"},
           "status":{"conditions":[{"type":"Suspended","status":"True"}]}})",
       "Terminating"},
      {"suspended", R"({"metadata":{"name":"j"},"spec":{"suspend":true},
           "status":{"conditions":[{"type":"Suspended","status":"True"}]}})",
       "Suspended"},
      {"spec.suspend before the controller's Suspended condition",
       R"({"metadata":{"name":"j"},"spec":{"suspend":true}})", "Running"},
      {"resumed", R"({"metadata":{"name":"j"},
           "status":{"conditions":[{"type":"Suspended","status":"False"}]}})",
       "Running"},
      {"suspended before FailureTarget",
       R"({"metadata":{"name":"j"},"status":{"conditions":[
           {"type":"FailureTarget","status":"True"},{"type":"Suspended","status":"True"}]}})",
       "Suspended"},
      {"FailureTarget", R"({"metadata":{"name":"j"},
           "status":{"conditions":[{"type":"FailureTarget","status":"True"}]}})",
       "FailureTarget"},
      {"SuccessCriteriaMet", R"({"metadata":{"name":"j"},
           "status":{"conditions":[{"type":"SuccessCriteriaMet","status":"True"}]}})",
       "SuccessCriteriaMet"},
      {"the first condition of a type decides",
       R"({"metadata":{"name":"j"},"status":{"conditions":[
           {"type":"Suspended","status":"False"},{"type":"Suspended","status":"True"}]}})",
       "Running"},
  };
  for (const Case& c : cases) EXPECT_EQ(job_status_cell(c.job), c.status) << c.what;
}

}  // namespace
}  // namespace tailor::embedded
