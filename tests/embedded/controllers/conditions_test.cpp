// When a Job counts as finished (upstream's IsJobFinished / the CronJob controller's
// getFinishedStatus): a Complete or Failed condition with status True, whatever else it carries.
#include "embedded/controllers/conditions.h"

#include <gtest/gtest.h>

namespace tailor::embedded {
namespace {

struct FinishedCase {
  const char* what;
  const char* conditions;  // status.conditions as JSON
  const char* type;        // "" while running
  const char* since;
};

TEST(JobFinished, CompleteOrFailedTrue) {
  const FinishedCase cases[] = {
      {"no conditions", "[]", "", ""},
      {"suspended only", R"([{"type":"Suspended","status":"True"}])", "", ""},
      {"interim SuccessCriteriaMet only",
       R"([{"type":"SuccessCriteriaMet","status":"True","lastTransitionTime":"t1"}])", "", ""},
      {"interim FailureTarget only", R"([{"type":"FailureTarget","status":"True"}])", "", ""},
      {"complete",
       R"([{"type":"SuccessCriteriaMet","status":"True","lastTransitionTime":"t1"},
           {"type":"Complete","status":"True","lastTransitionTime":"t2"}])",
       "Complete", "t2"},
      {"failed", R"([{"type":"Failed","status":"True","lastTransitionTime":"t3"}])", "Failed",
       "t3"},
      {"Complete False is not finished", R"([{"type":"Complete","status":"False"}])", "", ""},
      {"Failed Unknown is not finished", R"([{"type":"Failed","status":"Unknown"}])", "", ""},
  };
  for (const FinishedCase& c : cases) {
    boost::json::object job{
        {"status", boost::json::object{{"conditions", boost::json::parse(c.conditions)}}}};
    std::optional<JobFinished> finished = job_finished(job);
    if (*c.type == '\0') {
      EXPECT_FALSE(finished) << c.what;
      continue;
    }
    ASSERT_TRUE(finished) << c.what;
    EXPECT_EQ(finished->type, c.type) << c.what;
    EXPECT_EQ(finished->last_transition_time, c.since) << c.what;
  }
  EXPECT_FALSE(job_finished(boost::json::object{})) << "no status";
}

}  // namespace
}  // namespace tailor::embedded
