// `tailor replay` and `tailor corpus` through their command lines: usage errors exit 2 with a
// message naming what is wrong; VPA variants, --frontier and --curve-svg on a generated trace.
#include "cli/replay_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/corpus_command.h"
#include "recommender/corpus.h"
#include "recommender/recorded_windows.h"
#include "recommender/trace_writer.h"

namespace tailor::cli {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome replay(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_replay(args, out, err);
  return {code, out.str(), err.str()};
}

Outcome corpus(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_corpus(args, out, err);
  return {code, out.str(), err.str()};
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tailor-replay-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A generated step series (two weeks): enough for every row to be scored.
std::string write_trace(const TempDir& dir) {
  const fs::path path = dir.path() / "trace.csv";
  std::ofstream out(path);
  recommender::write_generic_trace(out, recommender::generate_series("steps", 1, "a"));
  return path.string();
}

TEST(ReplayCommand, BadStrategyIsAUsageErrorNamingTheProblem) {
  const struct {
    const char* spec;
    const char* says;
  } cases[] = {
      {"vpa:cpu-percentil=0.8", "unknown knob 'cpu-percentil'"},
      {"vpa:cpu-percentile=1.5", "cpu-percentile=1.5 is out of range"},
      {"vpa:memory-margin=-1", "out of range"},
      {"vpa:cpu-percentile", "'cpu-percentile' is not KNOB=VALUE"},
      {"vpa:cpu-margin=0.1;memory-margin=0.2", "not a number"},
      {"vpa:", "no knob"},
      {"tailored", "unknown strategy 'tailored'"},
  };
  for (const auto& c : cases) {
    // No trace is read: the strategy is checked first (the path does not exist).
    const Outcome r = replay({"/nonexistent/trace.csv", "--strategy", c.spec});
    EXPECT_EQ(r.code, 2) << c.spec;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.spec << ": " << r.err;
    EXPECT_NE(r.err.find("Usage: tailor replay"), std::string::npos);
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(ReplayCommand, VpaVariantRowIsNamedAsWrittenWithWeightedColumns) {
  TempDir dir;
  const std::string trace = write_trace(dir);
  const std::string json = (dir.path() / "out.json").string();
  const Outcome r = replay({trace, "--strategy", "vpa", "--strategy",
                            "vpa:cpu-percentile=0.8,memory-margin=0.3", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu_slack_weighted"), std::string::npos);
  EXPECT_NE(r.out.find("mem_slack_weighted"), std::string::npos);
  EXPECT_NE(r.out.find("\nvpa:cpu-percentile=0.8,memory-margin=0.3 "), std::string::npos);
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\"strategy\":\"vpa:cpu-percentile=0.8,memory-margin=0.3\""),
            std::string::npos);
  EXPECT_NE(text.find("\"cpu_slack_weighted\":"), std::string::npos);
  EXPECT_NE(text.find("\"mem_slack_weighted\":"), std::string::npos);
  EXPECT_EQ(r.out.find("Against VPA's curves"), std::string::npos);  // only with --frontier
}

TEST(ReplayCommand, FrontierAddsVpasCurveAndComparesTheOtherRows) {
  TempDir dir;
  const std::string trace = write_trace(dir);
  const std::string svg = (dir.path() / "curves.svg").string();
  const Outcome r = replay({trace, "--strategy", "default", "--frontier", "--curve-svg", svg});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& spec : {"vpa", "vpa:cpu-percentile=0.99", "vpa:memory-margin=0"}) {
    EXPECT_NE(r.out.find(std::string("\n") + spec + " "), std::string::npos) << spec;
  }
  EXPECT_NE(r.out.find("Against VPA's curves"), std::string::npos);
  EXPECT_NE(r.out.find("  default cpu: slack "), std::string::npos);
  EXPECT_NE(r.out.find("  default memory: slack "), std::string::npos);
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.rfind("<svg", 0), 0u);
  EXPECT_NE(text.find("class='vpa-curve'"), std::string::npos);
  EXPECT_NE(text.find("<title>default</title>"), std::string::npos);
}

// What tailor-controller received, 15 s windows of a generated series, replays as any trace.
TEST(ReplayCommand, ReplaysARecordingOfUsageWindows) {
  TempDir dir;
  const recommender::ContainerSeries series = recommender::generate_series("steps", 1, "a");
  std::vector<recommender::RecordedWindow> recorded;
  for (const recommender::TraceWindow& w : series.windows) {
    for (std::int64_t at = w.start * 1000; at < (w.start + series.window) * 1000; at += 15'000) {
      recorded.push_back({"default/web-1/app", {at, at + 15'000, w.avg_cpu, w.max_cpu, w.max_mem}});
    }
  }
  const fs::path path = dir.path() / "recording.csv";
  std::ofstream(path) << [&] {
    std::ostringstream out;
    recommender::write_recorded_windows(out, recorded);
    return out.str();
  }();
  const std::string json = (dir.path() / "out.json").string();
  const Outcome r = replay({path.string(), "--strategy", "default", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\ndefault "), std::string::npos) << r.out;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\"strategy\":\"default\""), std::string::npos);
  EXPECT_NE(text.find("\"containers\":1"), std::string::npos) << text.substr(0, 400);
}

TEST(CorpusCommand, WritesBothHalvesReproducibly) {
  TempDir a, b;
  ASSERT_EQ(corpus({"--out", a.path().string(), "--per-family", "2", "--seed", "5"}).code, 0);
  const Outcome r = corpus({"--out", b.path().string(), "--per-family", "2", "--seed", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("held-out half"), std::string::npos);
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(a.path())) {
    if (!e.is_regular_file()) continue;
    ++files;
    const fs::path rel = fs::relative(e.path(), a.path());
    std::ifstream x(e.path()), y(b.path() / rel);
    const std::string tx((std::istreambuf_iterator<char>(x)), {});
    const std::string ty((std::istreambuf_iterator<char>(y)), {});
    EXPECT_EQ(tx, ty) << rel;
  }
  EXPECT_EQ(files, 2 * static_cast<int>(recommender::corpus_families().size()));
  EXPECT_TRUE(fs::exists(a.path() / "tuning" / "leak" / "leak-0.csv"));
  EXPECT_TRUE(fs::exists(a.path() / "held-out" / "leak" / "leak-1.csv"));
}

TEST(CorpusCommand, UsageErrorsExit2) {
  EXPECT_EQ(corpus({}).code, 2);
  EXPECT_EQ(corpus({"--out", "/tmp/x", "--per-family", "1"}).code, 2);
  EXPECT_EQ(corpus({"--out", "/tmp/x", "--seed", "abc"}).code, 2);
}

}  // namespace
}  // namespace tailor::cli
