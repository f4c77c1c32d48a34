// Jobs and CronJobs through the real kubectl (`kubectl create job|cronjob` send protobuf): the
// Job controller runs pods labelled and owned as upstream's until they succeed, fails the Job
// past backoffLimit; the CronJob controller creates Jobs on schedule. No node runs these pods:
// the test reports their phase as a kubelet would.
#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "embedded/controllers/cron_schedule.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class JobsKubectlTest : public KubectlClusterTest {
 protected:
  // Polls kubectl until its output is non-empty; "" after 20 s.
  std::string await_output(const std::string& args) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      KubectlResult r = kubectl(args);
      if (r.exit_code == 0 && !r.out.empty()) return r.out;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
  }

  // The names of the job's pods that have not finished, once there are n of them; {} after 20 s.
  std::vector<std::string> await_running(const std::string& job, std::size_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      KubectlResult r = kubectl("get pods -l batch.kubernetes.io/job-name=" + job +
                                " --field-selector=status.phase!=Succeeded,status.phase!=Failed"
                                " -o jsonpath={.items[*].metadata.name}");
      std::istringstream in(r.out);
      std::vector<std::string> names;
      for (std::string name; in >> name;) names.push_back(name);
      if (r.exit_code == 0 && names.size() == n) return names;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return {};
  }

  // Job `name` with `spec` (its fields before the template, two-space indented), whose pods run
  // container w once (restartPolicy Never).
  void apply_job(const std::string& name, const std::string& spec) {
    write("job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + "}\nspec:\n" +
                          spec +
                          "  template:\n    spec:\n      restartPolicy: Never\n"
                          "      containers: [{name: w, image: busybox:1.36}]\n");
    KubectlResult r = kubectl("apply -f job.yaml");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  KubectlResult report_phase(const std::string& pod, const std::string& phase) {
    return kubectl("patch pod " + pod +
                   " --subresource status --type merge -p '{\"status\":{\"phase\":\"" + phase +
                   "\"}}'");
  }
};

TEST_F(JobsKubectlTest, CreateJobRunsAPodUntilItSucceeds) {
  KubectlResult r = kubectl("create job hello --image=busybox:1.36 -- echo hi");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "job.batch/hello created\n");
  std::string uid = kubectl("get job hello -o jsonpath={.metadata.uid}").out;
  // SetDefaults_Job: a non-parallel Job has completions and parallelism 1.
  EXPECT_EQ(kubectl("get job hello -o jsonpath={.spec.completions}/{.spec.parallelism}").out,
            "1/1");
  EXPECT_EQ(kubectl("get job hello -o jsonpath={.spec.selector.matchLabels}").out,
            R"({"batch.kubernetes.io/controller-uid":")" + uid + R"("})");

  std::vector<std::string> pods = await_running("hello", 1);
  ASSERT_EQ(pods.size(), 1u);
  const std::string& pod = pods[0];
  EXPECT_EQ(kubectl("get pod " + pod + " -o jsonpath={.metadata.labels}").out,
            R"({"batch.kubernetes.io/controller-uid":")" + uid +
                R"(","batch.kubernetes.io/job-name":"hello","controller-uid":")" + uid +
                R"(","job-name":"hello"})");
  EXPECT_EQ(kubectl("get pod " + pod +
                    " -o jsonpath={.metadata.ownerReferences[0].kind}/"
                    "{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}")
                .out,
            "Job/hello/true");
  EXPECT_EQ(await_output("get job hello -o jsonpath={.status.active}"), "1");

  ASSERT_EQ(report_phase(pod, "Succeeded").exit_code, 0);
  r = kubectl("wait --for=condition=complete job/hello --timeout=20s");
  EXPECT_EQ(r.out, "job.batch/hello condition met\n") << r.err;
  EXPECT_EQ(kubectl("get job hello -o jsonpath={.status.succeeded}/{.status.active}/"
                    "{.status.conditions[*].type}/{.status.conditions[*].reason}")
                .out,
            "1//SuccessCriteriaMet Complete/CompletionsReached CompletionsReached");
  std::string table = std::regex_replace(kubectl("get job hello").out, std::regex(" +"), " ");
  EXPECT_TRUE(table.starts_with("NAME STATUS COMPLETIONS DURATION AGE\nhello Complete 1/1 "))
      << table;
}

TEST_F(JobsKubectlTest, ParallelPodsUntilCompletions) {
  ASSERT_NO_FATAL_FAILURE(apply_job("batch", "  completions: 3\n  parallelism: 2\n"));
  std::vector<std::string> pods = await_running("batch", 2);
  ASSERT_EQ(pods.size(), 2u);
  ASSERT_EQ(report_phase(pods[0], "Succeeded").exit_code, 0);
  // One more pod starts for the third completion: two run again, the second one among them.
  std::vector<std::string> after = await_running("batch", 2);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_NE(std::find(after.begin(), after.end(), pods[1]), after.end());
  for (const std::string& p : after) ASSERT_EQ(report_phase(p, "Succeeded").exit_code, 0);
  KubectlResult r = kubectl("wait --for=condition=complete job/batch --timeout=20s");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kubectl("get job batch -o jsonpath={.status.succeeded}").out, "3");
}

TEST_F(JobsKubectlTest, FailsPastBackoffLimit) {
  ASSERT_NO_FATAL_FAILURE(apply_job("flaky", "  backoffLimit: 1\n"));
  std::vector<std::string> pod = await_running("flaky", 1);
  ASSERT_EQ(pod.size(), 1u);
  ASSERT_EQ(report_phase(pod[0], "Failed").exit_code, 0);
  // One failure allowed: a new pod, after the 10 s back-off.
  std::vector<std::string> retry = await_running("flaky", 1);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_NE(retry[0], pod[0]);
  ASSERT_EQ(report_phase(retry[0], "Failed").exit_code, 0);
  KubectlResult r = kubectl("wait --for=condition=failed job/flaky --timeout=20s");
  EXPECT_EQ(r.out, "job.batch/flaky condition met\n") << r.err;
  EXPECT_EQ(kubectl("get job flaky -o jsonpath={.status.failed}/{.status.conditions[*].type}/"
                    "{.status.conditions[1].message}")
                .out,
            "2/FailureTarget Failed/Job has reached the specified backoff limit");
}

TEST_F(JobsKubectlTest, CronJobCreatesJobsOnSchedule) {
  KubectlResult r =
      kubectl("create cronjob tick --image=busybox:1.36 --schedule='@every 1s' -- date");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "cronjob.batch/tick created\n");
  std::string job = await_output("get jobs -o jsonpath={.items[0].metadata.name}");
  ASSERT_TRUE(std::regex_match(job, std::regex("tick-[0-9]+"))) << job;
  EXPECT_EQ(kubectl("get job " + job +
                    " -o jsonpath={.metadata.ownerReferences[0].kind}/"
                    "{.metadata.ownerReferences[0].name}")
                .out,
            "CronJob/tick");
  std::string scheduled = kubectl("get job " + job +
                                  " -o jsonpath={.metadata.annotations.batch\\\\.kubernetes\\\\."
                                  "io/cronjob-scheduled-timestamp}")
                              .out;
  EXPECT_TRUE(std::regex_match(scheduled, std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")))
      << scheduled;
  EXPECT_EQ(await_output("get cronjob tick -o jsonpath={.status.active[0].name}"), job);
  EXPECT_FALSE(kubectl("get cronjob tick -o jsonpath={.status.lastScheduleTime}").out.empty());
  EXPECT_EQ(await_running(job, 1).size(), 1u);  // the Job runs a pod like any other
  // kubectl create job --from builds the Job from the CronJob's template.
  r = kubectl("create job manual --from=cronjob/tick");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "job.batch/manual created\n");
}

// validateScheduleFormat: the schedule must parse as robfig's ParseStandard, quoted in the 422.
TEST_F(JobsKubectlTest, UnparseableScheduleIsInvalid) {
  KubectlResult r = kubectl("create cronjob bad --image=busybox:1.36 --schedule='x * * * *'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: failed to create cronjob: CronJob.batch \"bad\" is invalid: spec.schedule: "
            "Invalid value: \"x * * * *\": failed to parse int from x: strconv.Atoi: parsing "
            "\"x\": invalid syntax\n");
  r = kubectl("create cronjob worse --image=busybox:1.36 --schedule='* * * *'");
  EXPECT_NE(r.err.find("spec.schedule: Invalid value: \"* * * *\": expected exactly 5 fields, "
                       "found 4: [* * * *]"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(kubectl("get cronjobs").err, "No resources found in default namespace.\n");
}

// spec.timeZone (GA in 1.27): validateTimeZone's 422, the schedule read on the zone's clock,
// the scheduled-timestamp annotation in that zone, the TIMEZONE column of kubectl get.
TEST_F(JobsKubectlTest, CronJobTimeZone) {
  auto cronjob = [&](const std::string& name, const std::string& schedule,
                     const std::string& zone) {
    write("cj.yaml", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: " + name +
                         "}\nspec:\n  schedule: '" + schedule + "'\n" +
                         (zone.empty() ? "" : "  timeZone: " + zone + "\n") +
                         "  jobTemplate:\n    spec:\n      template:\n        spec:\n"
                         "          restartPolicy: Never\n"
                         "          containers: [{name: w, image: busybox:1.36}]\n");
    return kubectl("apply -f cj.yaml");
  };
  KubectlResult r = cronjob("bad", "0 * * * *", "Mars/Olympus");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The CronJob \"bad\" is invalid: spec.timeZone: Invalid value: \"Mars/Olympus\": "
            "unknown time zone Mars/Olympus\n");
  r = cronjob("bad", "TZ=America/New_York 0 * * * *", "");
  EXPECT_EQ(r.err,
            "The CronJob \"bad\" is invalid: spec.schedule: Invalid value: \"TZ=America/New_York "
            "0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead\n");
  r = cronjob("ny", "@every 1s", "America/New_York");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string job = await_output("get jobs -o jsonpath={.items[0].metadata.name}");
  ASSERT_FALSE(job.empty());
  std::string scheduled = kubectl("get job " + job +
                                  " -o jsonpath={.metadata.annotations.batch\\\\.kubernetes\\\\."
                                  "io/cronjob-scheduled-timestamp}")
                              .out;
  // New York's offset at that instant (-05:00 or -04:00), not Z.
  auto t = kube::try_parse_rfc3339(scheduled);
  ASSERT_TRUE(t) << scheduled;
  EXPECT_EQ(scheduled, format_rfc3339_in(*t, *TimeZone::load("America/New_York")));
  EXPECT_TRUE(std::regex_search(scheduled, std::regex("-0[45]:00$"))) << scheduled;
  // An update is checked when it changes the zone.
  r = kubectl("patch cronjob ny --type merge -p '{\"spec\":{\"timeZone\":\"Mars/Olympus\"}}'");
  EXPECT_EQ(r.err,
            "The CronJob \"ny\" is invalid: spec.timeZone: Invalid value: \"Mars/Olympus\": "
            "unknown time zone Mars/Olympus\n");
  r = kubectl("get cronjob ny");
  std::istringstream rows(r.out);
  std::string header, row;
  std::getline(rows, header);
  std::getline(rows, row);
  EXPECT_TRUE(std::regex_match(header, std::regex("NAME +SCHEDULE +TIMEZONE +SUSPEND +ACTIVE +"
                                                  "LAST SCHEDULE +AGE")))
      << header;
  EXPECT_TRUE(std::regex_match(row, std::regex("ny +@every 1s +America/New_York +False +[01] +"
                                               "[0-9]+s +[0-9]+s")))
      << row;
}

TEST_F(JobsKubectlTest, SuspendedJobStartsNoPodUntilResumed) {
  ASSERT_NO_FATAL_FAILURE(apply_job("later", "  suspend: true\n"));
  EXPECT_EQ(await_output("get job later -o jsonpath={.status.conditions[0].reason}"),
            "JobSuspended");
  EXPECT_EQ(kubectl("get job later -o jsonpath={.status.conditions[0].type}/"
                    "{.status.conditions[0].status}/{.status.startTime}")
                .out,
            "Suspended/True/");
  EXPECT_EQ(kubectl("get pods -l job-name=later -o name").out, "");
  ASSERT_EQ(kubectl("patch job later --type merge -p '{\"spec\":{\"suspend\":false}}'").exit_code,
            0);
  EXPECT_EQ(await_running("later", 1).size(), 1u);
  EXPECT_EQ(kubectl("get job later -o jsonpath={.status.conditions[0].status}/"
                    "{.status.conditions[0].reason}/{.status.conditions[0].message}")
                .out,
            "False/JobResumed/Job resumed");
  EXPECT_FALSE(kubectl("get job later -o jsonpath={.status.startTime}").out.empty());
}

TEST_F(JobsKubectlTest, FinishedJobGoesAfterItsTtl) {
  ASSERT_NO_FATAL_FAILURE(apply_job("brief", "  ttlSecondsAfterFinished: 0\n"));
  std::vector<std::string> pods = await_running("brief", 1);
  ASSERT_EQ(pods.size(), 1u);
  ASSERT_EQ(report_phase(pods[0], "Succeeded").exit_code, 0);
  KubectlResult r = kubectl("wait --for=delete job/brief --timeout=20s");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = kubectl("wait --for=delete pod/" + pods[0] + " --timeout=20s");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Job pods carry batch.kubernetes.io/job-tracking until counted: one deleted before it finished
// counts as failed (podReplacementPolicy TerminatingOrFailed) and is replaced.
TEST_F(JobsKubectlTest, DeletedPodCountsAsFailedAndIsReplaced) {
  ASSERT_EQ(kubectl("create job work --image=busybox:1.36 -- true").exit_code, 0);
  std::vector<std::string> pods = await_running("work", 1);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(kubectl("get pod " + pods[0] + " -o jsonpath={.metadata.finalizers}").out,
            R"(["batch.kubernetes.io/job-tracking"])");
  KubectlResult r = kubectl("delete pod " + pods[0] + " --timeout=20s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> replacement = await_running("work", 1);
  ASSERT_EQ(replacement.size(), 1u);
  EXPECT_NE(replacement[0], pods[0]);
  EXPECT_EQ(await_output("get job work -o jsonpath={.status.failed}"), "1");
  // A success is counted once, however often the pod is seen afterwards.
  ASSERT_EQ(report_phase(replacement[0], "Succeeded").exit_code, 0);
  ASSERT_EQ(kubectl("wait --for=condition=complete job/work --timeout=20s").exit_code, 0);
  EXPECT_EQ(kubectl("get job work -o jsonpath={.status.succeeded}/{.status.failed}").out, "1/1");
  EXPECT_EQ(kubectl("get pod " + replacement[0] + " -o jsonpath={.metadata.finalizers}").out, "");
}

// completionMode Indexed: one pod per index (annotation, label, hostname, JOB_COMPLETION_INDEX),
// each index succeeds once, status.completedIndexes says which.
TEST_F(JobsKubectlTest, IndexedJobRunsEachIndexOnce) {
  ASSERT_NO_FATAL_FAILURE(
      apply_job("shard", "  completionMode: Indexed\n  completions: 3\n  parallelism: 2\n"));
  std::vector<std::string> pods = await_running("shard", 2);
  ASSERT_EQ(pods.size(), 2u);
  auto index_of = [&](const std::string& pod) {
    return kubectl("get pod " + pod +
                   " -o jsonpath={.metadata.annotations.batch\\\\.kubernetes\\\\.io/"
                   "job-completion-index}")
        .out;
  };
  std::string one = index_of(pods[0]) == "1" ? pods[0] : pods[1];
  EXPECT_EQ(index_of(one), "1");
  EXPECT_TRUE(one.starts_with("shard-1-")) << one;
  EXPECT_EQ(kubectl("get pod " + one +
                    " -o jsonpath={.spec.hostname}/{.spec.containers[0].env[0].name}/"
                    "{.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath}")
                .out,
            "shard-1/JOB_COMPLETION_INDEX/metadata.annotations['batch.kubernetes.io/"
            "job-completion-index']");
  ASSERT_EQ(report_phase(one, "Succeeded").exit_code, 0);
  EXPECT_EQ(await_output("get job shard -o jsonpath={.status.completedIndexes}"), "1");
  std::vector<std::string> next = await_running("shard", 2);  // index 2 starts
  ASSERT_EQ(next.size(), 2u);
  for (const std::string& p : next) ASSERT_EQ(report_phase(p, "Succeeded").exit_code, 0);
  ASSERT_EQ(kubectl("wait --for=condition=complete job/shard --timeout=20s").exit_code, 0);
  EXPECT_EQ(kubectl("get job shard -o jsonpath={.status.completedIndexes}/{.status.succeeded}").out,
            "0-2/3");
}

// A completion index that is no int (here past int64) marks no index, as upstream's
// unknownCompletionIndex, and the Job's sync goes on: the other pod's success is counted. (It
// threw from std::stoll, and every pass skipped the Job.)
TEST_F(JobsKubectlTest, AnIndexPastInt64DoesNotStopTheJob) {
  ASSERT_NO_FATAL_FAILURE(
      apply_job("huge", "  completionMode: Indexed\n  completions: 2\n  parallelism: 2\n"));
  std::vector<std::string> pods = await_running("huge", 2);
  ASSERT_EQ(pods.size(), 2u);
  const std::string one = pods[0].starts_with("huge-1-") ? pods[0] : pods[1];
  const std::string zero = one == pods[0] ? pods[1] : pods[0];
  ASSERT_EQ(kubectl("annotate pod " + zero +
                    " --overwrite batch.kubernetes.io/job-completion-index=99999999999999999999999")
                .exit_code,
            0);
  ASSERT_EQ(report_phase(one, "Succeeded").exit_code, 0);
  EXPECT_EQ(await_output("get job huge -o jsonpath={.status.completedIndexes}"), "1");
}

// podFailurePolicy: a pod evicted (DisruptionTarget) is not counted against backoffLimit 0 and
// is replaced; a pod failing with exit code 42 fails the Job at once.
TEST_F(JobsKubectlTest, PodFailurePolicyIgnoresEvictionsAndFailsOnExitCode) {
  ASSERT_NO_FATAL_FAILURE(apply_job(
      "careful",
      "  backoffLimit: 0\n  podFailurePolicy:\n    rules:\n"
      "    - {action: FailJob, onExitCodes: {containerName: w, operator: In, values: [42]}}\n"
      "    - {action: Ignore, onPodConditions: [{type: DisruptionTarget}]}\n"));
  std::vector<std::string> pods = await_running("careful", 1);
  ASSERT_EQ(pods.size(), 1u);
  write("eviction.json",
        R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + pods[0] + R"("}})");
  KubectlResult r = kubectl("create --raw /api/v1/namespaces/default/pods/" + pods[0] +
                            "/eviction -f eviction.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> replacement = await_running("careful", 1);
  ASSERT_EQ(replacement.size(), 1u);
  EXPECT_NE(replacement[0], pods[0]);
  EXPECT_EQ(kubectl("get job careful -o jsonpath={.status.failed}").out, "");

  r = kubectl(
      "patch pod " + replacement[0] +
      " --subresource status --type merge -p '{\"status\":{\"phase\":\"Failed\","
      "\"containerStatuses\":[{\"name\":\"w\",\"image\":\"busybox:1.36\",\"imageID\":\"\","
      "\"ready\":false,\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":42}}}]}}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = kubectl("wait --for=condition=failed job/careful --timeout=20s");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kubectl("get job careful -o jsonpath={.status.conditions[1].reason}/"
                    "{.status.conditions[1].message}")
                .out,
            "PodFailurePolicy/Container w for pod default/" + replacement[0] +
                " failed with exit code 42 matching FailJob rule at index 0");
}

}  // namespace
}  // namespace tailor::embedded::testing
