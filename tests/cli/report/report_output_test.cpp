#include "cli/report_output.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/json_text.h"

namespace tailor::cli {
namespace {

constexpr double kMi = 1024.0 * 1024.0;

ContainerRow row(std::string name) {
  ContainerRow r{.ns = "shop",
                 .workload_kind = "Deployment",
                 .workload_name = "web",
                 .policy_kind = "VerticalScalingPolicy",
                 .policy_name = "web",
                 .container = std::move(name),
                 .pods = 2};
  r.cpu = {.request = 0.1, .limit = 0.2, .target = 0.35, .lower_bound = 0.2, .upper_bound = 1.5};
  r.memory = {.request = 256 * kMi,
              .limit = 512 * kMi,
              .target = 200 * kMi,
              .lower_bound = 128 * kMi,
              .upper_bound = 1.5 * kGiB};
  r.history = SampleHistory{.days = 3.25, .samples = 12345};
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string without_sgr(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      i = s.find('m', i);
      continue;
    }
    out += s[i];
  }
  return out;
}

// Names and figures at their widest: every line still fits 100 columns.
std::vector<ContainerRow> extreme_rows() {
  ContainerRow wide = row(std::string(60, 'c'));
  wide.ns = std::string(63, 'n');
  wide.workload_name = std::string(253, 'w');
  wide.policy_name = std::string(253, 'p');
  wide.pods = 100000;
  wide.cpu = {
      .request = 0.001, .limit = 128, .target = 96.5, .lower_bound = 0.0005, .upper_bound = 1000};
  wide.memory = {.request = 1,
                 .limit = 4096 * kGiB,
                 .target = 2048 * kGiB,
                 .lower_bound = 1023,
                 .upper_bound = 8192 * kGiB};
  wide.history = SampleHistory{.days = 9999.9, .samples = 987654321};
  wide.oom_kills_last_day = 123456;
  wide.cpu_shortfall_last_day = 8.64e9;  // 100,000 pods a whole core short all day
  wide.note = "Cannot read targetRef. Reason: Deployment " + std::string(200, 'x') + " gone";
  return {row("app"), wide};
}

TEST(ReportTable, EveryLineFitsOneHundredColumns) {
  for (bool colour : {false, true}) {
    std::ostringstream out;
    print_report_table(out, extreme_rows(), Prices{}, {colour});
    const auto all = lines(out.str());
    ASSERT_GE(all.size(), 8u) << out.str();
    for (const auto& l : all) EXPECT_LE(without_sgr(l).size(), kTableWidth) << l;
  }
}

TEST(ReportTable, ShowsTheFiguresOfEachResource) {
  std::ostringstream out;
  print_report_table(out, {row("app")}, Prices{.cpu_core_hour = 0.02, .memory_gib_hour = 0.004},
                     {false});
  const auto all = lines(out.str());
  ASSERT_EQ(all.size(), 7u) << out.str();
  EXPECT_EQ(all[0].substr(0, 30), "  CONTAINER      RES REQUEST  ");
  EXPECT_EQ(all[0].substr(82), " LAST 1D   $/MONTH");
  EXPECT_EQ(all[1], "shop/Deployment/web  (VerticalScalingPolicy web, 2 pods)");
  // 0.25 core x 2 pods x 0.02 x 730 h = 7.30; -56Mi x 2 pods x 0.004 / GiB x 730 h = -0.32.
  EXPECT_EQ(all[2],
            "  app            cpu    100m    200m    350m    200m     1.5    +250m     3.2d 12k"
            "       -     +7.30");
  EXPECT_EQ(all[3],
            "                 mem   256Mi   512Mi   200Mi   128Mi   1.5Gi    -56Mi"
            "                0 OOM     -0.32");
  EXPECT_EQ(all[6],
            "(LAST 1D: cpu, core-seconds used beyond the request, - without --prometheus; mem, OOM "
            "kills)");
  EXPECT_NE(all[4].find("+6.98"), std::string::npos) << all[4];
  EXPECT_EQ(out.str().find('\033'), std::string::npos);
}

TEST(ReportTable, ColoursSavingsIncreasesAndOomKills) {
  ContainerRow r = row("app");
  r.oom_kills_last_day = 2;
  r.cpu_shortfall_last_day = 4321;
  std::ostringstream out;
  print_report_table(out, {r}, Prices{}, {true});
  EXPECT_NE(out.str().find("\033[33m   +250m\033[0m"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\033[32m   -56Mi\033[0m"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\033[31m  2 OOM\033[0m"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\033[31m  4.3ks\033[0m"), std::string::npos) << out.str();
  // None seen: plain.
  r.oom_kills_last_day = 0;
  r.cpu_shortfall_last_day = 0;
  std::ostringstream calm;
  print_report_table(calm, {r}, Prices{}, {true});
  EXPECT_EQ(calm.str().find("\033[31m"), std::string::npos) << calm.str();
  EXPECT_NE(calm.str().find("      0s"), std::string::npos) << calm.str();
}

TEST(ReportTable, APolicyWithNothingToShowHasOnlyItsNote) {
  ContainerRow r{.ns = "shop",
                 .workload_kind = "Deployment",
                 .workload_name = "gone",
                 .policy_kind = "VerticalScalingPolicy",
                 .policy_name = "orphan",
                 .note = "Cannot read targetRef. Reason: Deployment shop/gone does not exist"};
  std::ostringstream out;
  print_report_table(out, {r}, Prices{}, {false});
  const auto all = lines(out.str());
  ASSERT_EQ(all.size(), 6u) << out.str();
  EXPECT_EQ(all[1], "shop/Deployment/gone  (VerticalScalingPolicy orphan, 0 pods)");
  EXPECT_EQ(all[2], "  ! " + r.note);
}

TEST(ReportTable, SaysSoWhenNothingIsUnderAPolicy) {
  std::ostringstream out;
  print_report_table(out, {}, Prices{}, {false});
  EXPECT_EQ(out.str(), "No workload is under a VerticalScalingPolicy or VerticalPodAutoscaler.\n");
}

TEST(ReportFormat, Quantities) {
  EXPECT_EQ(format_cores(0.25), "250m");
  EXPECT_EQ(format_cores(1.5), "1.5");
  EXPECT_EQ(format_cores(0.15, true), "+150m");
  EXPECT_EQ(format_cores(-2.0, true), "-2");
  EXPECT_EQ(format_cores(std::nullopt), "-");
  EXPECT_EQ(format_cores(0.0, true), "0");
  EXPECT_EQ(format_bytes(64 * kMi), "64Mi");
  EXPECT_EQ(format_bytes(1.5 * kGiB), "1.5Gi");
  EXPECT_EQ(format_bytes(-64 * kMi, true), "-64Mi");
  EXPECT_EQ(format_bytes(2048.0), "2Ki");
  EXPECT_EQ(format_money(-0.374), "-0.37");
  EXPECT_EQ(format_money(std::nullopt), "-");
  EXPECT_EQ(format_history(std::nullopt), "unknown");
  EXPECT_EQ(format_history(SampleHistory{.days = 0.04, .samples = 42}), "0.0d 42");
  EXPECT_EQ(format_history(SampleHistory{.days = 14, .samples = 2500000}), "14.0d 2.5M");
  EXPECT_EQ(fit("abcdef", 4), "abc~");
  EXPECT_EQ(fit("abc", 4), "abc");
}

TEST(ReportColour, OnlyOnATerminalWithoutNoColor) {
  EXPECT_TRUE(want_colour(true, nullptr));
  EXPECT_TRUE(want_colour(true, ""));
  EXPECT_FALSE(want_colour(true, "1"));
  EXPECT_FALSE(want_colour(false, nullptr));
}

TEST(ReportJson, FieldsAndEscaping) {
  ContainerRow r = row("app");
  r.note = "say \"hi\"\\\n\ttab";
  r.cpu_shortfall_last_day = 3.14159;
  ContainerRow unknown = row("side");
  unknown.history.reset();
  unknown.cpu.target.reset();
  std::ostringstream out;
  write_report_json(out, {r, unknown}, Prices{.cpu_core_hour = 0.02, .memory_gib_hour = 0.004});
  const boost::json::value v = boost::json::parse(out.str());
  const auto& rows = v.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("note").as_string(), "say \"hi\"\\\n\ttab");
  EXPECT_EQ(rows[0].at("workload").at("kind").as_string(), "Deployment");
  EXPECT_DOUBLE_EQ(rows[0].at("cpu").at("target").to_number<double>(), 0.35);
  EXPECT_DOUBLE_EQ(rows[0].at("memory").at("request").to_number<double>(), 256 * kMi);
  EXPECT_EQ(rows[0].at("history").at("samples").to_number<std::int64_t>(), 12345);
  EXPECT_NEAR(rows[0].at("monthly_cost_change").at("cpu").to_number<double>(), 7.3, 1e-9);
  EXPECT_DOUBLE_EQ(rows[0].at("cpu_shortfall_last_day").to_number<double>(), 3.142);
  EXPECT_TRUE(rows[1].at("cpu_shortfall_last_day").is_null());
  EXPECT_TRUE(rows[1].at("history").is_null());
  EXPECT_TRUE(rows[1].at("cpu").at("target").is_null());
  EXPECT_TRUE(rows[1].at("cpu").at("change").is_null());
  EXPECT_DOUBLE_EQ(v.at("hours_per_month").to_number<double>(), 730);
}

TEST(ReportCsv, HeaderFieldsAndEscaping) {
  ContainerRow r = row("app");
  r.note = "gone, \"really\"\nyes";
  r.cpu_shortfall_last_day = 118.5;
  std::ostringstream out;
  write_report_csv(out, {r}, Prices{.cpu_core_hour = 0.02, .memory_gib_hour = 0.004});
  const std::string text = out.str();
  const std::string header = text.substr(0, text.find('\n'));
  EXPECT_EQ(header.rfind("namespace,workload_kind,workload,policy_kind,policy,container,pods,", 0),
            0u);
  const std::string record = text.substr(header.size() + 1);
  EXPECT_EQ(record.rfind("shop,Deployment,web,VerticalScalingPolicy,web,app,2,0.1,0.2,0.35,0.2,1.5,"
                         "0.25,268435456,536870912,209715200,134217728,1610612736,-58720256,3.25,"
                         "12345,0,118.5,0,7.3,-0.3194,6.9806,",
                         0),
            0u)
      << record;
  EXPECT_NE(record.find(",\"gone, \"\"really\"\"\nyes\"\n"), std::string::npos) << record;
  EXPECT_NE(header.find(",oom_kills_last_day,cpu_shortfall_last_day,restarts,"), std::string::npos)
      << header;
  // Unknown (no --prometheus): an empty field.
  r.cpu_shortfall_last_day.reset();
  std::ostringstream unknown;
  write_report_csv(unknown, {r}, Prices{});
  EXPECT_NE(unknown.str().find(",12345,0,,0,"), std::string::npos) << unknown.str();
}

TEST(ReportHtml, OneSelfContainedPageWithEveryRowEscaped) {
  ContainerRow r = row("app");
  r.note = "<script>alert('x')</script> & \"more\"";
  ContainerRow other = row("side");
  other.oom_kills_last_day = 3;
  other.cpu_shortfall_last_day = 250;
  std::ostringstream out;
  write_report_html(out, {r, other}, Prices{.cpu_core_hour = 0.02, .memory_gib_hour = 0.004});
  const std::string page = out.str();
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("</html>\n"), std::string::npos);
  // Nothing fetched, nothing run.
  for (const char* outside : {"http:", "https:", "src=", "<link", "<script"}) {
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  }
  EXPECT_NE(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"),
            std::string::npos);
  // Two lines (cpu, mem) per container, the header, and the note's.
  std::size_t rows = 0;
  for (std::size_t at = page.find("<tr>"); at != std::string::npos; at = page.find("<tr>", at + 1))
    ++rows;
  EXPECT_EQ(rows, 1u + 2 * 2 + 1);
  EXPECT_NE(page.find("<td class=\"n more\">+250m</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n save\">-56Mi</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n oom\">3</td><td class=\"n oom\">250s</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<th>OOM/1d</th><th>CPU short/1d</th>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n\">0</td><td class=\"n\">-</td>"), std::string::npos);
  EXPECT_NE(page.find("<b>+13.96 USD</b>"), std::string::npos);
}

TEST(ReportFormat, CoreSeconds) {
  EXPECT_EQ(format_core_seconds(std::nullopt), "-");
  EXPECT_EQ(format_core_seconds(0), "0s");
  EXPECT_EQ(format_core_seconds(118.4), "118s");
  EXPECT_EQ(format_core_seconds(4321), "4.3ks");
  EXPECT_EQ(format_core_seconds(99949), "99.9ks");
  EXPECT_EQ(format_core_seconds(864000), "864ks");
  EXPECT_EQ(format_core_seconds(8.64e9), "8640Ms");
}

TEST(JsonText, EscapesAndNumbers) {
  EXPECT_EQ(json_string("a\"b\\c\x01"), "\"a\\\"b\\\\c\\u0001\"");
  EXPECT_EQ(json_number(1.0 / 0.0), "null");
  EXPECT_EQ(json_exact(std::nullopt), "null");
  EXPECT_EQ(json_exact(268435456.0), "268435456");
  EXPECT_EQ(json_exact(0.1), "0.1");
  EXPECT_EQ(json_number(0.25), "0.25");
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
}

}  // namespace
}  // namespace tailor::cli
