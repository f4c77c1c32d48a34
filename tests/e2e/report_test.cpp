// `tailor report` (issue 18) against the real environment: two Deployments under policies (a
// VerticalScalingPolicy and a VPA object, both mode Off so nothing moves their requests) and one
// without, read through the environment's kubeconfig; table, json and csv checked against what
// kubectl reads back. Then what the user gets wrong: a policy whose target is gone, an
// unreachable server, rejected credentials and a ServiceAccount without the rights to list.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kube/model/time.h"
#include "tests/controller/usage/prometheus/prometheus_peer.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/page_in_browser.h"
#include "tests/e2e/report_reader.h"
#include "tests/e2e/workload_manifests.h"
#include "tests/e2e/workload_series_history.h"

namespace tailor::e2e {
namespace {

namespace bj = boost::json;
using std::chrono::seconds;

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Busy for a few thousand loop turns, then idle for 0.2 s: usage for the recommender to see.
std::string deployment(const std::string& name) {
  return deployment_manifest(
      {.name = name,
       .containers = {{.command = shell("while true; do i=0; while [ $i -lt 2000 ]; do "
                                        "i=$((i+1)); done; sleep 0.2; done"),
                       .requests = {{"cpu", "50m"}, {"memory", "64Mi"}},
                       .limits = {{"cpu", "100m"}, {"memory", "128Mi"}}}}});
}

const PolicySpec kVpaSpec{.name = "vpa-app", .deployment = "vpa"};
const std::string kPolicy = policy_manifest({.name = "tailored", .deployment = "tailored"});
const std::string kVpa = vpa_manifest(kVpaSpec);
const std::string kGonePolicy = policy_manifest({.name = "orphan", .deployment = "deleted"});

// stdout of a shell command run on a pseudo-terminal (script(1)), so that isatty(1) is true.
std::string on_a_terminal(const std::string& command) {
  const std::string line = "script -qec " + shell_quoted(command) + " /dev/null";
  std::string out;
  if (FILE* p = ::popen(line.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The recommendation's target as kubectl reads it ("cpu memory"), "" until there is one.
std::string target_of(const TestNamespace& ns, const std::string& resource) {
  CommandResult r =
      ns.kubectl("get " + resource +
                 " -o 'jsonpath={.status.recommendation.containerRecommendations[0].target.cpu} "
                 "{.status.recommendation.containerRecommendations[0].target.memory}'");
  return r.exit_code == 0 && r.out.find_first_not_of(' ') != std::string::npos ? r.out : "";
}

// A CSV line's fields (no quoted commas in these rows).
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

const bj::object* row_of(const bj::array& rows, const std::string& policy) {
  for (const bj::value& r : rows) {
    if (r.at("policy").at("name").as_string() == policy) return &r.as_object();
  }
  return nullptr;
}

double number(const bj::value& v) { return v.to_number<double>(); }

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> with_format(std::vector<std::string> args, const std::string& format) {
  args.insert(args.end(), {"-o", format});
  return args;
}

// What the report reads from the cluster, as kubectl reads it: each policy's
// status.recommendation (by policy name) and each checkpoint's spec and status.
struct ClusterFigures {
  std::map<std::string, bj::value> recommendation;
  bj::array checkpoints;
  bool operator==(const ClusterFigures&) const = default;
};

ClusterFigures cluster_figures(const TestNamespace& ns) {
  ClusterFigures out;
  for (const auto& [name, resource] : {std::pair{"tailored", "verticalscalingpolicy tailored"},
                                       std::pair{"vpa-app", "vpa vpa-app"}}) {
    CommandResult r = ns.kubectl("get " + std::string(resource) + " -o json");
    const bj::value object = r.exit_code == 0 ? bj::parse(r.out) : bj::value();
    const bj::value* status =
        object.is_object() ? object.as_object().if_contains("status") : nullptr;
    const bj::value* rec =
        status && status->is_object() ? status->as_object().if_contains("recommendation") : nullptr;
    out.recommendation[name] = rec ? *rec : bj::value();
  }
  CommandResult r = ns.kubectl("get verticalscalingcheckpoints -o json");
  if (r.exit_code == 0) {
    const bj::value list = bj::parse(r.out);
    for (const bj::value& item : list.at("items").as_array()) {
      out.checkpoints.push_back(
          bj::object{{"spec", item.at("spec")}, {"status", item.at("status")}});
    }
  }
  return out;
}

// The recommendation's entry for container "app", nullptr without one.
const bj::object* app_recommendation(const bj::value& recommendation) {
  if (!recommendation.is_object()) return nullptr;
  for (const bj::value& c : recommendation.at("containerRecommendations").as_array()) {
    if (c.at("containerName").as_string() == "app") return &c.as_object();
  }
  return nullptr;
}

// The checkpoint of a report row's policy ({"kind","name"}) and container, nullptr without one.
const bj::object* checkpoint_of(const bj::array& checkpoints, const bj::value& policy,
                                const std::string& container) {
  for (const bj::value& c : checkpoints) {
    const bj::object& spec = c.at("spec").as_object();
    const bj::value* kind = spec.if_contains("policyKind");
    const std::string k = kind ? std::string(kind->as_string()) : "VerticalScalingPolicy";
    if (k == policy.at("kind").as_string() &&
        spec.at("policyName").as_string() == policy.at("name").as_string() &&
        spec.at("containerName").as_string() == container) {
      return &c.as_object();
    }
  }
  return nullptr;
}

double seconds_of(const bj::value& rfc3339) {
  const auto t = kube::try_parse_rfc3339(std::string(rfc3339.as_string()));
  EXPECT_TRUE(t) << rfc3339;
  return t ? std::chrono::duration<double>(t->time_since_epoch()).count() : 0;
}

// The csv's columns in order, each with where its json row holds the same figure.
const std::vector<std::pair<std::string, std::vector<const char*>>> kCsvColumns = {
    {"namespace", {"namespace"}},
    {"workload_kind", {"workload", "kind"}},
    {"workload", {"workload", "name"}},
    {"policy_kind", {"policy", "kind"}},
    {"policy", {"policy", "name"}},
    {"container", {"container"}},
    {"pods", {"pods"}},
    {"cpu_request", {"cpu", "request"}},
    {"cpu_limit", {"cpu", "limit"}},
    {"cpu_target", {"cpu", "target"}},
    {"cpu_lower_bound", {"cpu", "lower_bound"}},
    {"cpu_upper_bound", {"cpu", "upper_bound"}},
    {"cpu_change", {"cpu", "change"}},
    {"memory_request", {"memory", "request"}},
    {"memory_limit", {"memory", "limit"}},
    {"memory_target", {"memory", "target"}},
    {"memory_lower_bound", {"memory", "lower_bound"}},
    {"memory_upper_bound", {"memory", "upper_bound"}},
    {"memory_change", {"memory", "change"}},
    {"history_days", {"history", "days"}},
    {"history_samples", {"history", "samples"}},
    {"oom_kills_last_day", {"oom_kills_last_day"}},
    {"cpu_shortfall_last_day", {"cpu_shortfall_last_day"}},
    {"restarts", {"restarts"}},
    {"monthly_cost_change_cpu", {"monthly_cost_change", "cpu"}},
    {"monthly_cost_change_memory", {"monthly_cost_change", "memory"}},
    {"monthly_cost_change", {"monthly_cost_change", "total"}},
    {"note", {"note"}}};

// A shown figure (html cell, table word) against the json's: "-" for null, else within the
// rounding its printed digits allow (and the json's own: a ten-thousandth of a dollar).
void expect_shown(const std::string& cell, const bj::value& json, const std::string& what) {
  SCOPED_TRACE(what + ": '" + cell + "' for " + bj::serialize(json));
  if (json.is_null()) {
    EXPECT_EQ(cell, "-");
    return;
  }
  const std::optional<Shown> shown = shown_number(cell);
  ASSERT_TRUE(shown);
  EXPECT_NEAR(shown->value, number(json), shown->tolerance + 1e-4);
}

// REQUEST LIMIT TARGET LOWER UPPER CHANGE, against the json's resource object.
void expect_resource_cells(const std::vector<std::string>& cells, const bj::value& resource) {
  const char* fields[] = {"request", "limit", "target", "lower_bound", "upper_bound", "change"};
  ASSERT_EQ(cells.size(), std::size(fields));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    expect_shown(cells[i], resource.at(fields[i]), fields[i]);
  }
  // The change shows its sign.
  if (number(resource.at("change")) > 0) {
    EXPECT_EQ(cells[5][0], '+') << cells[5];
  }
}

// "3.2d 12k" (days, samples) against the json's history, "unknown" for null.
void expect_history(const std::string& cell, const bj::value& history) {
  if (history.is_null()) {
    EXPECT_EQ(cell, "unknown");
    return;
  }
  const std::vector<std::string> words = words_of(cell);
  ASSERT_EQ(words.size(), 2u) << cell;
  expect_shown(words[0], history.at("days"), "history days");
  expect_shown(words[1], history.at("samples"), "history samples");
}

// A kubeconfig for the environment's server as the bearer of `token`.
std::string kubeconfig_with_token(E2eCluster& cluster, const std::string& token) {
  CommandResult server =
      cluster.kubectl("config view --raw --minify -o 'jsonpath={.clusters[0].cluster.server}'");
  CommandResult ca = cluster.kubectl(
      "config view --raw --minify "
      "-o 'jsonpath={.clusters[0].cluster.certificate-authority-data}'");
  EXPECT_EQ(server.exit_code, 0) << server.err;
  const std::string path = (cluster.dir() / "scratch" / "report-token.kubeconfig").string();
  std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                      << "    server: " << server.out << "\n"
                      << "    certificate-authority-data: " << ca.out << "\n"
                      << "users:\n- name: u\n  user: {token: \"" << token << "\"}\n"
                      << "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                      << "current-context: x\n";
  return path;
}

TEST(Report, RowsOfBothPolicyKindsAndNoneWithoutAPolicy) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-report");
  ASSERT_TRUE(install_vpa_crd(ns));
  ASSERT_TRUE(ns.apply(deployment("tailored") + "---\n" + deployment("vpa") + "---\n" +
                       deployment("plain") + "---\n" + kPolicy + "---\n" + kVpa));
  // Both recommendations published, and the VerticalScalingPolicy's checkpoint written (the
  // controller writes them once a minute): the history the report shows.
  ASSERT_TRUE(wait_until("both recommendations and a checkpoint", seconds(100),
                         [&](std::string& seen) {
                           const std::string a = target_of(ns, "verticalscalingpolicy tailored");
                           const std::string b = target_of(ns, "vpa vpa-app");
                           CommandResult c = ns.kubectl(
                               "get verticalscalingcheckpoints -o "
                               "'jsonpath={.items[*].status.totalSamplesCount}'");
                           seen = "policy '" + a + "', vpa '" + b + "', checkpoint samples '" +
                                  c.out + "'";
                           return !a.empty() && !b.empty() && !c.out.empty();
                         }))
      << cluster.controller_log_tail();

  // The json beside what kubectl reads, both of one cluster state: kubectl's reads before and
  // after the report's equal (a pass that moved a recommendation, or a checkpoint written in
  // between, makes them differ: then all again).
  const std::vector<std::string> args = {"report", "--kubeconfig",   cluster.kubeconfig(),
                                         "-n",     ns.name(),        "--cpu-price",
                                         "0.05",   "--memory-price", "0.01"};
  ClusterFigures before, after;
  CommandResult json;
  for (int attempt = 0; attempt < 5 && (attempt == 0 || !(before == after)); ++attempt) {
    before = cluster_figures(ns);
    json = cluster.tailor(with_format(args, "json"));
    after = cluster_figures(ns);
  }
  ASSERT_TRUE(before == after) << "the recommendations or checkpoints moved during every run";
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.err, "");
  const bj::value report = bj::parse(json.out);
  const bj::array& rows = report.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u) << json.out;  // "plain" has no policy: no row
  const bj::object* tailored = row_of(rows, "tailored");
  const bj::object* vpa = row_of(rows, "vpa-app");
  ASSERT_TRUE(tailored && vpa) << json.out;
  EXPECT_EQ(tailored->at("policy").at("kind").as_string(), "VerticalScalingPolicy");
  EXPECT_EQ(vpa->at("policy").at("kind").as_string(), "VerticalPodAutoscaler");
  for (const auto& [row, workload] : {std::pair{tailored, "tailored"}, std::pair{vpa, "vpa"}}) {
    SCOPED_TRACE(workload);
    const std::string policy(row->at("policy").at("name").as_string());
    EXPECT_EQ(row->at("namespace").as_string(), ns.name());
    EXPECT_EQ(row->at("workload").at("kind").as_string(), "Deployment");
    EXPECT_EQ(row->at("workload").at("name").as_string(), workload);
    EXPECT_EQ(row->at("container").as_string(), "app");
    EXPECT_EQ(number(row->at("pods")), 1);
    EXPECT_DOUBLE_EQ(number(row->at("cpu").at("request")), 0.05);
    EXPECT_DOUBLE_EQ(number(row->at("cpu").at("limit")), 0.1);
    EXPECT_DOUBLE_EQ(number(row->at("memory").at("request")), 64.0 * (1 << 20));
    EXPECT_DOUBLE_EQ(number(row->at("memory").at("limit")), 128.0 * (1 << 20));
    // Target and bounds: the status's, as kubectl read it in the same state.
    const bj::object* status = app_recommendation(before.recommendation[policy]);
    ASSERT_TRUE(status) << bj::serialize(before.recommendation[policy]);
    for (const auto& [field, json_field] :
         {std::pair{"target", "target"}, std::pair{"lowerBound", "lower_bound"},
          std::pair{"upperBound", "upper_bound"}}) {
      const std::string cpu(status->at(field).at("cpu").as_string());
      const std::string memory(status->at(field).at("memory").as_string());
      EXPECT_EQ(std::llround(number(row->at("cpu").at(json_field)) * 1000), milli_cpu(cpu))
          << field << " " << cpu;
      EXPECT_EQ(std::llround(number(row->at("memory").at(json_field))), bytes(memory))
          << field << " " << memory;
    }
    const double cpu = number(row->at("cpu").at("target"));
    const double memory = number(row->at("memory").at("target"));
    EXPECT_NEAR(number(row->at("cpu").at("change")), cpu - 0.05, 1e-9);
    EXPECT_EQ(number(row->at("memory").at("change")), memory - 64.0 * (1 << 20));
    // (target - request) x 1 pod x price x 730 h per resource, in hundredths of a cent.
    const double cpu_cost = (cpu - 0.05) * 0.05 * 730;
    const double memory_cost = (memory - 64.0 * (1 << 20)) / (1 << 30) * 0.01 * 730;
    const bj::value& cost = row->at("monthly_cost_change");
    EXPECT_NEAR(number(cost.at("cpu")), cpu_cost, 0.5e-4);
    EXPECT_NEAR(number(cost.at("memory")), memory_cost, 0.5e-4);
    EXPECT_NEAR(number(cost.at("total")), cpu_cost + memory_cost, 0.5e-4);
    EXPECT_EQ(number(row->at("oom_kills_last_day")), 0);
    EXPECT_TRUE(row->at("cpu_shortfall_last_day").is_null());  // no --prometheus: unknown
    // The history: the checkpoint's sample span and count, or none without one.
    const bj::object* checkpoint = checkpoint_of(before.checkpoints, row->at("policy"), "app");
    if (workload == std::string("tailored")) {
      ASSERT_TRUE(checkpoint) << json.out;
    }
    if (!checkpoint) {
      EXPECT_TRUE(row->at("history").is_null());
      continue;
    }
    const bj::value& history = row->at("history");
    ASSERT_TRUE(history.is_object()) << json.out;
    EXPECT_GT(number(history.at("samples")), 0);
    EXPECT_EQ(number(history.at("samples")),
              number(checkpoint->at("status").at("totalSamplesCount")));
    EXPECT_DOUBLE_EQ(number(history.at("days")),
                     (seconds_of(checkpoint->at("status").at("lastSampleStart")) -
                      seconds_of(checkpoint->at("status").at("firstSampleStart"))) /
                         86400.0);
  }

  // Each other format against the json of the same state: a json run right before it and one
  // right after, equal.
  auto beside_its_json = [&](const std::string& format) {
    std::pair<CommandResult, bj::value> out;
    for (int attempt = 0; attempt < 5; ++attempt) {
      const CommandResult first = cluster.tailor(with_format(args, "json"));
      out.first = cluster.tailor(with_format(args, format));
      const CommandResult last = cluster.tailor(with_format(args, "json"));
      if (first.exit_code == 0 && first.out == last.out) {
        out.second = bj::parse(first.out);
        return out;
      }
    }
    ADD_FAILURE() << "the json moved around every " << format << " run";
    return out;
  };

  // CSV: the header and the same two rows, in the report's order (by workload name), every
  // field the json's.
  const auto [csv, csv_json] = beside_its_json("csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  ASSERT_TRUE(csv_json.is_object());
  const auto records = csv_records(csv.out);
  ASSERT_EQ(records.size(), 3u) << csv.out;
  std::vector<std::string> header;
  for (const auto& [column, path] : kCsvColumns) header.push_back(column);
  ASSERT_EQ(records[0], header);  // every column of the csv is one checked below
  for (std::size_t i = 1; i < records.size(); ++i) {
    const bj::value& row = csv_json.at("rows").as_array()[i - 1];
    ASSERT_EQ(records[i].size(), header.size()) << csv.out;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const bj::value* v = &row;
      for (const char* member : kCsvColumns[c].second) v = &v->at(member);
      SCOPED_TRACE("csv line " + std::to_string(i) + " " + header[c]);
      if (v->is_string()) {
        EXPECT_EQ(records[i][c], v->as_string());
      } else if (v->is_null()) {
        EXPECT_EQ(records[i][c], "");
      } else {
        ASSERT_FALSE(records[i][c].empty());
        EXPECT_DOUBLE_EQ(std::stod(records[i][c]), number(*v));
      }
    }
  }
  EXPECT_EQ(records[1][2], "tailored");
  EXPECT_EQ(records[2][2], "vpa");

  // HTML: the same figures, cell by cell: a cpu and a mem line per container.
  const auto [html, html_json] = beside_its_json("html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  ASSERT_TRUE(html_json.is_object());
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.out.find("plain"), std::string::npos);
  const auto cells = html_table_rows(html.out);
  ASSERT_EQ(cells.size(), 1u + 2 * 2) << html.out;  // the header, then cpu and mem of each
  for (std::size_t i = 0; i < 2; ++i) {
    const bj::value& row = html_json.at("rows").as_array()[i];
    const std::vector<std::string>& cpu = cells[1 + 2 * i];
    const std::vector<std::string>& mem = cells[2 + 2 * i];
    SCOPED_TRACE("html row " + std::to_string(i));
    ASSERT_EQ(cpu.size(), 15u);
    ASSERT_EQ(mem.size(), 15u);
    EXPECT_EQ(cpu[0], row.at("namespace").as_string());
    EXPECT_EQ(cpu[1], std::string(row.at("workload").at("kind").as_string()) + "/" +
                          std::string(row.at("workload").at("name").as_string()));
    EXPECT_EQ(cpu[2], std::string(row.at("policy").at("kind").as_string()) + "/" +
                          std::string(row.at("policy").at("name").as_string()));
    EXPECT_EQ(cpu[3], row.at("container").as_string());
    EXPECT_EQ(cpu[4], "cpu");
    EXPECT_EQ(mem[4], "mem");
    for (std::size_t c : {0, 1, 2, 3, 11, 12, 13}) EXPECT_EQ(mem[c], "") << c;
    expect_resource_cells({cpu.begin() + 5, cpu.begin() + 11}, row.at("cpu"));
    expect_resource_cells({mem.begin() + 5, mem.begin() + 11}, row.at("memory"));
    expect_history(cpu[11], row.at("history"));
    expect_shown(cpu[12], row.at("oom_kills_last_day"), "OOM/1d");
    expect_shown(cpu[13], row.at("cpu_shortfall_last_day"), "CPU short/1d");
    expect_shown(cpu[14], row.at("monthly_cost_change").at("cpu"), "cpu $/month");
    expect_shown(mem[14], row.at("monthly_cost_change").at("memory"), "mem $/month");
  }

  // The table, piped: no colour, 100 columns at most, a group per workload; its cpu and mem
  // lines of "tailored" hold the json's figures.
  const auto [table, table_json] = beside_its_json("table");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  ASSERT_TRUE(table_json.is_object());
  EXPECT_EQ(table.out.find('\033'), std::string::npos);
  const std::vector<std::string> table_lines = lines_of(table.out);
  for (const auto& l : table_lines) EXPECT_LE(l.size(), 100u) << l;
  EXPECT_NE(table.out.find(ns.name() + "/Deployment/vpa  (VerticalPodAutoscaler vpa-app, 1 pod)"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("plain"), std::string::npos) << table.out;
  const auto title =
      std::find(table_lines.begin(), table_lines.end(),
                ns.name() + "/Deployment/tailored  (VerticalScalingPolicy tailored, 1 pod)");
  ASSERT_TRUE(title != table_lines.end() && table_lines.end() - title > 2) << table.out;
  const bj::value& row = *row_of(table_json.at("rows").as_array(), "tailored");
  // app cpu REQUEST LIMIT TARGET LOWER UPPER CHANGE DAYS SAMPLES LAST-1D $/MONTH
  const std::vector<std::string> cpu = words_of(title[1]);
  ASSERT_EQ(cpu.size(), 12u) << title[1];
  EXPECT_EQ(cpu[0], "app");
  EXPECT_EQ(cpu[1], "cpu");
  expect_resource_cells({cpu.begin() + 2, cpu.begin() + 8}, row.at("cpu"));
  expect_history(cpu[8] + " " + cpu[9], row.at("history"));
  expect_shown(cpu[10], row.at("cpu_shortfall_last_day"), "LAST 1D");
  expect_shown(cpu[11], row.at("monthly_cost_change").at("cpu"), "$/MONTH");
  // mem REQUEST LIMIT TARGET LOWER UPPER CHANGE N OOM $/MONTH
  const std::vector<std::string> mem = words_of(title[2]);
  ASSERT_EQ(mem.size(), 10u) << title[2];
  EXPECT_EQ(mem[0], "mem");
  expect_resource_cells({mem.begin() + 1, mem.begin() + 7}, row.at("memory"));
  expect_shown(mem[7], row.at("oom_kills_last_day"), "LAST 1D");
  EXPECT_EQ(mem[8], "OOM");
  expect_shown(mem[9], row.at("monthly_cost_change").at("memory"), "$/MONTH");

  // On a terminal: colour (the header bold), unless NO_COLOR says otherwise.
  const std::string command = (cluster.bin_dir() / "tailor").string() + " report --kubeconfig " +
                              cluster.kubeconfig() + " -n " + ns.name();
  EXPECT_NE(on_a_terminal(command).find("\033[1m"), std::string::npos);
  const std::string plain = on_a_terminal("NO_COLOR=1 " + command);
  EXPECT_NE(plain.find("/Deployment/tailored"), std::string::npos) << plain;
  EXPECT_EQ(plain.find('\033'), std::string::npos) << plain;
}

TEST(Report, APolicyWhoseTargetIsGoneIsReportedAndFailsTheRun) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-report-gone");
  // The other policy's Deployment is there: its row comes out as usual beside the orphan's.
  ASSERT_TRUE(ns.apply(deployment("tailored") + "---\n" + kPolicy + "---\n" + kGonePolicy));
  CommandResult r = cluster.tailor(
      {"report", "--kubeconfig", cluster.kubeconfig(), "-n", ns.name(), "-o", "json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("VerticalScalingPolicy " + ns.name() +
                       "/orphan: Cannot read targetRef. Reason: Deployment " + ns.name() +
                       "/deleted does not exist"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(ns.name() + "/tailored"), std::string::npos) << r.err;
  const bj::value report = bj::parse(r.out);
  const bj::array& rows = report.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u) << r.out;
  const bj::object* tailored = row_of(rows, "tailored");
  ASSERT_TRUE(tailored) << r.out;
  EXPECT_EQ(tailored->at("note").as_string(), "");
  const bj::object* orphan = row_of(rows, "orphan");
  ASSERT_TRUE(orphan) << r.out;
  EXPECT_EQ(number(orphan->at("pods")), 0);
  EXPECT_NE(std::string(orphan->at("note").as_string()).find("does not exist"), std::string::npos);
}

TEST(Report, AMalformedObjectIsNamedAndNothingPrinted) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-report-malformed");
  ASSERT_TRUE(install_vpa_crd(ns));
  // VPA's CRD here keeps any field, as a CRD without a schema would: a quantity that is not one
  // is stored, and the report cannot read the object.
  PolicySpec malformed = kVpaSpec;
  malformed.containers = {{.name = "app", .min_allowed = {{"cpu", "lots"}}}};
  ASSERT_TRUE(ns.apply(vpa_manifest(malformed)));
  CommandResult r =
      cluster.tailor({"report", "--kubeconfig", cluster.kubeconfig(), "-n", ns.name()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("tailor report: VerticalPodAutoscaler " + ns.name() +
                       "/vpa-app is malformed: spec.resourcePolicy.containerPolicies[0].minAllowed"
                       ".cpu"),
            std::string::npos)
      << r.err;
}

TEST(Report, ClearErrorsAndNothingPrintedWhenTheClusterCannotBeRead) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-report-rbac");
  // Rejected credentials: 401.
  CommandResult bad = cluster.tailor(
      {"report", "--kubeconfig", kubeconfig_with_token(cluster, "not-a-token"), "-n", ns.name()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("rejected the credentials (401 Unauthorized)"), std::string::npos)
      << bad.err;

  // A ServiceAccount bound to nothing: 403, naming the verb and resource.
  ASSERT_EQ(ns.kubectl("create serviceaccount viewer").exit_code, 0);
  CommandResult token = ns.kubectl("create token viewer");
  ASSERT_EQ(token.exit_code, 0) << token.err;
  while (!token.out.empty() && token.out.back() == '\n') token.out.pop_back();
  CommandResult forbidden = cluster.tailor(
      {"report", "--kubeconfig", kubeconfig_with_token(cluster, token.out), "-n", ns.name()});
  EXPECT_EQ(forbidden.exit_code, 1);
  EXPECT_EQ(forbidden.out, "");
  EXPECT_NE(forbidden.err.find("forbidden: the report needs verb \"list\" on resource "
                               "\"replicasets\" in API group \"apps\" in namespace " +
                               ns.name()),
            std::string::npos)
      << forbidden.err;
  EXPECT_NE(forbidden.err.find("system:serviceaccount:" + ns.name() + ":viewer"), std::string::npos)
      << forbidden.err;

  // Nothing listening: the server's address in the message.
  const std::string closed = (cluster.dir() / "scratch" / "report-closed.kubeconfig").string();
  std::ofstream(closed) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: "
                           "{server: \"https://127.0.0.1:1\"}\nusers:\n- name: u\n  user: {token: "
                           "x}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                           "current-context: x\n";
  CommandResult unreachable = cluster.tailor({"report", "--kubeconfig", closed});
  EXPECT_EQ(unreachable.exit_code, 1);
  EXPECT_EQ(unreachable.out, "");
  EXPECT_NE(unreachable.err.find("cannot reach the API server at https://127.0.0.1:1"),
            std::string::npos)
      << unreachable.err;
}

// cAdvisor's two series for one container, a sample a minute (at :30) for `hours` up to until_s:
// 0.2 cores throughout, the working set 80Mi plus a MiB an hour.
std::string cadvisor_history(const std::string& ns, const std::string& pod, std::int64_t until_s,
                             int hours) {
  std::ostringstream out;
  out.precision(17);
  const std::string labels = "{job=\"kubernetes-cadvisor\",namespace=\"" + ns + "\",pod=\"" + pod +
                             "\",container=\"app\"}";
  const std::int64_t first = until_s - hours * 3600;
  out << "# TYPE container_cpu_usage_seconds counter\n";
  for (int m = 0; m < hours * 60; ++m) {
    out << "container_cpu_usage_seconds_total" << labels << " " << 1000 + 0.2 * 60 * m << " "
        << first + m * 60 + 30 << "\n";
  }
  out << "# TYPE container_memory_working_set_bytes gauge\n";
  for (int m = 0; m < hours * 60; ++m) {
    out << "container_memory_working_set_bytes" << labels << " " << (80 + m / 60) * (1 << 20) << " "
        << first + m * 60 + 30 << "\n";
  }
  out << "# EOF\n";
  return out.str();
}

TEST(Report, AllReplaysTheWorkloadsWithoutAPolicyFromPrometheus) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-report-all");
  ASSERT_TRUE(ns.apply(deployment("plain") + "---\n" + deployment("tailored") + "---\n" + kPolicy));
  std::string pod;
  ASSERT_TRUE(wait_until("the plain Deployment's pod", seconds(60), [&](std::string& seen) {
    const std::vector<PodView> pods = ns.pods("app=plain");
    seen = std::to_string(pods.size()) + " pods";
    if (pods.size() != 1) return false;
    pod = pods[0].name;
    return true;
  }));
  const std::int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  // And the controller's shortfall counter of the policy's workload: 3600 core-seconds short 6 h
  // before the history ends, 500 before that.
  std::string history = cadvisor_history(ns.name(), pod, now_s / 3600 * 3600, 30);
  history.insert(history.rfind("# EOF"),
                 shortfall_openmetrics({.ns = ns.name(),
                                        .target_kind = "Deployment",
                                        .target_name = "tailored",
                                        .container = "app",
                                        .until_s = now_s / 3600 * 3600,
                                        .before = 500,
                                        .step_at_s = now_s / 3600 * 3600 - 6 * 3600,
                                        .step = 3600}));
  controller::usage::testing::PrometheusPeer prometheus(history);
  const std::string saved = (cluster.dir() / "scratch" / "report-history").string();
  CommandResult r = cluster.tailor({"report", "--kubeconfig", cluster.kubeconfig(), "-n", ns.name(),
                                    "-o", "json", "--all", "--prometheus", prometheus.url(),
                                    "--history", "2d", "--save-history", saved});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("] 2/2 pages\n"), std::string::npos) << r.err;  // 2 days, a day a page
  const bj::value report = bj::parse(r.out);
  // The policy row's shortfall: the counter's increase over the day (Prometheus extrapolates
  // the last sample's half-interval, 30 s of a ~23 h span: 3600 x at most 1.002).
  ASSERT_EQ(report.at("rows").as_array().size(), 1u) << r.out;
  const bj::value& tailored = report.at("rows").as_array()[0];
  EXPECT_EQ(tailored.at("workload").at("name").as_string(), "tailored");
  EXPECT_NEAR(number(tailored.at("cpu_shortfall_last_day")), 3600, 8) << r.out;
  const bj::array& replayed = report.at("replayed").as_array();
  ASSERT_EQ(replayed.size(), 1u) << r.out;  // "tailored" is under its policy
  const bj::object& plain = replayed[0].as_object();
  EXPECT_EQ(plain.at("workload").at("kind").as_string(), "Deployment");
  EXPECT_EQ(plain.at("workload").at("name").as_string(), "plain");
  EXPECT_EQ(number(plain.at("series")), 1);
  const bj::array& rows = plain.at("rows").as_array();
  ASSERT_EQ(rows.size(), 3u) << r.out;
  // As run: 50m requested for 0.2 cores used, so short of CPU.
  EXPECT_EQ(rows[0].at("strategy").as_string(), "as-run");
  EXPECT_GT(number(rows[0].at("cpu_shortfall")), 0.5);

  // `tailor replay` of the history the report saved: the same rows for vpa and default.
  const std::string file = saved + "/" + ns.name() + "_Deployment_plain.csv";
  const std::string json = (cluster.dir() / "scratch" / "report-replay.json").string();
  CommandResult replay = cluster.tailor({"replay", file, "--json", json});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  std::ifstream in(json);
  std::stringstream text;
  text << in.rdbuf();
  const bj::value expected = bj::parse(text.str());
  for (const char* strategy : {"vpa", "default"}) {
    SCOPED_TRACE(strategy);
    const bj::value* mine = nullptr;
    const bj::value* theirs = nullptr;
    for (const bj::value& row : rows) {
      if (row.at("strategy").as_string() == strategy) mine = &row;
    }
    for (const bj::value& row : expected.at("rows").as_array()) {
      if (row.at("strategy").as_string() == strategy) theirs = &row;
    }
    ASSERT_TRUE(mine && theirs) << r.out << text.str();
    for (const char* field :
         {"cpu_slack", "mem_slack", "cpu_shortfall", "ooms_per_day", "resizes_per_day"}) {
      const double a = number(mine->at(field)), b = number(theirs->at(field));
      EXPECT_NEAR(a, b, 1e-5 * std::max(1.0, std::fabs(b))) << field;  // replay's %.6g
    }
  }

  // The page: the replayed workload's table and its plot.
  CommandResult html =
      cluster.tailor({"report", "--kubeconfig", cluster.kubeconfig(), "-n", ns.name(), "-o", "html",
                      "--all", "--prometheus", prometheus.url(), "--history", "2d"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<h3>" + ns.name() + "/Deployment/plain</h3>"), std::string::npos);
  EXPECT_NE(html.out.find("<tr><td>vpa</td>"), std::string::npos);
  EXPECT_NE(html.out.find("<td class=\"n\">0</td><td class=\"n oom\">3.6ks</td>"),
            std::string::npos);
  EXPECT_NE(html.out.find("<div class=\"plot\"><svg"), std::string::npos);
  // ... and as Chromium draws it: both tables and the plot on the screen.
  expect_report_page_drawn(html.out, cluster.dir() / "scratch" / "report-page", 2,
                           {"vpa", "default"});

  // The shortfall in the table (the cpu line's LAST 1D; OOM kills on the mem line) and the csv.
  const std::vector<std::string> shortfall_args = {
      "report",  "--kubeconfig", cluster.kubeconfig(), "-n",
      ns.name(), "--prometheus", prometheus.url()};
  CommandResult table = cluster.tailor(shortfall_args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(" 3.6ks "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" 0 OOM "), std::string::npos) << table.out;
  std::vector<std::string> csv_args = shortfall_args;
  csv_args.insert(csv_args.end(), {"-o", "csv"});
  CommandResult csv = cluster.tailor(csv_args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::vector<std::string> csv_lines = lines_of(csv.out);
  ASSERT_EQ(csv_lines.size(), 2u) << csv.out;
  const std::size_t column =
      fields_of(csv_lines[0]).size() -
      fields_of(csv_lines[0].substr(csv_lines[0].find(",cpu_shortfall_last_day,") + 1)).size();
  EXPECT_NEAR(std::stod(fields_of(csv_lines[1]).at(column)), 3600, 8) << csv.out;

  // Prometheus gone: a clear message, nothing on stdout.
  CommandResult down = cluster.tailor({"report", "--kubeconfig", cluster.kubeconfig(), "-n",
                                       ns.name(), "--all", "--prometheus", "http://127.0.0.1:1"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_EQ(down.out, "");
  EXPECT_NE(down.err.find("reading history from Prometheus at http://127.0.0.1:1"),
            std::string::npos)
      << down.err;
  CommandResult no_shortfall = cluster.tailor({"report", "--kubeconfig", cluster.kubeconfig(), "-n",
                                               ns.name(), "--prometheus", "http://127.0.0.1:1"});
  EXPECT_EQ(no_shortfall.exit_code, 1);
  EXPECT_EQ(no_shortfall.out, "");
  EXPECT_NE(no_shortfall.err.find("reading CPU shortfall from Prometheus at http://127.0.0.1:1"),
            std::string::npos)
      << no_shortfall.err;
}

}  // namespace
}  // namespace tailor::e2e
