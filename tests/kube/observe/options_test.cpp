#include "kube/observe/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tailor::kube::config {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// A config file in a fresh temporary directory, removed afterwards.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char tmpl[] = "/tmp/tailor-config-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/config.yaml";
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

// A process's options, as a process would declare them.
struct Settings {
  std::string name = "default-name";
  bool leader_elect = true;
  int workers = 4;
  double ratio = 0.5;
  Duration lease = 15s;
  Duration renew = 10s;
  std::vector<std::string> resources{"cpu", "memory"};
};

class OptionsTest : public ::testing::Test {
 protected:
  OptionsTest() : schema("tailor-test", "A test process.") {
    schema.add({.flag = "name", .yaml_key = "name", .help = "A name."}, &s.name);
    schema.add({.flag = "leader-elect", .yaml_key = "leaderElection.leaderElect", .help = "Elect."},
               &s.leader_elect);
    schema.add({.flag = "workers", .short_flag = 'w', .yaml_key = "workers", .help = "Workers."},
               &s.workers);
    schema.add({.flag = "ratio", .yaml_key = "tuning.ratio", .help = "Ratio."}, &s.ratio);
    schema.add({.flag = "leader-elect-lease-duration",
                .yaml_key = "leaderElection.leaseDuration",
                .help = "Lease."},
               &s.lease);
    schema.add({.flag = "leader-elect-renew-deadline",
                .yaml_key = "leaderElection.renewDeadline",
                .help = "Renew."},
               &s.renew);
    schema.add({.flag = "resources", .yaml_key = "resources", .help = "Resources."}, &s.resources);
  }

  // Parses and returns the error message ("" when parsing succeeded).
  std::string error_of(const std::vector<std::string>& args) {
    try {
      schema.parse(args);
      return "";
    } catch (const ConfigError& e) {
      return e.what();
    }
  }

  Settings s;
  Schema schema;
};

TEST_F(OptionsTest, DefaultsStayWithoutFlagsOrFile) {
  EXPECT_EQ(schema.parse(std::vector<std::string>{}), ParseResult::Run);
  EXPECT_EQ(s.name, "default-name");
  EXPECT_EQ(s.lease, 15s);
  EXPECT_EQ(schema.config_file(), "");
}

TEST_F(OptionsTest, FlagsInEveryForm) {
  schema.parse({"--name", "a", "--workers=8", "--leader-elect=false", "--ratio", "0.25",
                "--leader-elect-lease-duration=1m30s", "--resources", "cpu",
                "--resources=memory,gpu"});
  EXPECT_EQ(s.name, "a");
  EXPECT_EQ(s.workers, 8);
  EXPECT_FALSE(s.leader_elect);
  EXPECT_EQ(s.ratio, 0.25);
  EXPECT_EQ(s.lease, 90s);
  EXPECT_EQ(s.resources, (std::vector<std::string>{"cpu", "memory", "gpu"}));
}

TEST_F(OptionsTest, ShortFlagsAndLastOccurrenceWins) {
  schema.parse({"-w", "2", "-w=3", "--name=x", "--name=y"});
  EXPECT_EQ(s.workers, 3);
  EXPECT_EQ(s.name, "y");
  schema.parse({"-w5"});
  EXPECT_EQ(s.workers, 5);
}

TEST_F(OptionsTest, BareBooleanFlagMeansTrue) {
  s.leader_elect = false;
  schema.parse({"--leader-elect"});
  EXPECT_TRUE(s.leader_elect);
}

TEST_F(OptionsTest, FileOverDefaultsAndFlagsOverFile) {
  TempFile f(
      "name: from-file\n"
      "workers: 6\n"
      "leaderElection:\n"
      "  leaderElect: false\n"
      "  leaseDuration: 30s\n"
      "  renewDeadline: \"500ms\"\n"
      "tuning: {ratio: 0.75}\n"
      "resources: [memory]\n");
  schema.parse({"--config", f.path(), "--workers", "9"});
  EXPECT_EQ(schema.config_file(), f.path());
  EXPECT_EQ(s.name, "from-file");
  EXPECT_EQ(s.workers, 9);  // the flag wins
  EXPECT_FALSE(s.leader_elect);
  EXPECT_EQ(s.lease, 30s);
  EXPECT_EQ(s.renew, 500ms);
  EXPECT_EQ(s.ratio, 0.75);
  EXPECT_EQ(s.resources, std::vector<std::string>{"memory"});
}

TEST_F(OptionsTest, EmptyFileAndEmptySectionSetNothing) {
  TempFile empty("");
  schema.parse({"--config=" + empty.path()});
  TempFile section("leaderElection:\n");
  schema.parse({"--config=" + section.path()});
  EXPECT_EQ(s.lease, 15s);
}

TEST_F(OptionsTest, HelpStopsBeforeTheFile) {
  EXPECT_EQ(schema.parse({"--help", "--config", "/nonexistent"}), ParseResult::Help);
  EXPECT_EQ(schema.parse({"-h"}), ParseResult::Help);
}

TEST_F(OptionsTest, VersionOnlyWhenTheProcessHasOne) {
  EXPECT_EQ(error_of({"--version"}), "unknown flag: --version");
  EXPECT_THAT(schema.usage(), ::testing::Not(HasSubstr("--version")));
  schema.version("1.2.3");
  EXPECT_EQ(schema.parse({"--version", "--config", "/nonexistent"}), ParseResult::Version);
  EXPECT_EQ(schema.version_text(), "tailor-test 1.2.3");
  EXPECT_THAT(schema.usage(), HasSubstr("\n      --version "));
  EXPECT_THAT(schema.usage(), HasSubstr(" Print the version and exit.\n"));
  EXPECT_EQ(schema.parse({"--help", "--version"}), ParseResult::Help);
}

struct FileError {
  const char* yaml;
  const char* message;  // after "config <path>: "
};
void PrintTo(const FileError& e, std::ostream* os) { *os << ::testing::PrintToString(e.yaml); }

class FileErrorTest : public OptionsTest, public ::testing::WithParamInterface<FileError> {};

TEST_P(FileErrorTest, NamesFileLineAndKey) {
  TempFile f(GetParam().yaml);
  EXPECT_EQ(error_of({"--config", f.path()}), "config " + f.path() + ": " + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Yaml, FileErrorTest,
    ::testing::Values(
        FileError{"name: a\nnmae: b\n",
                  "line 2, column 1: unknown key \"nmae\" (did you mean \"name\"?)"},
        FileError{"leaderElection:\n  leaseDuraton: 15s\n",
                  "line 2, column 3: unknown key \"leaderElection.leaseDuraton\" (did you mean "
                  "\"leaderElection.leaseDuration\"?)"},
        FileError{"leaderElektion:\n  leaseDuration: 15s\n",
                  "line 1, column 1: unknown key \"leaderElektion\" (did you mean "
                  "\"leaderElection\"?)"},
        FileError{"kubeconfig: /x\n", "line 1, column 1: unknown key \"kubeconfig\""},
        FileError{"leaderElection:\n  leaseDuration: -5s\n",
                  "line 2, column 18: invalid value \"-5s\" for \"leaderElection.leaseDuration\": "
                  "must not be negative"},
        FileError{"leaderElection:\n  leaseDuration: 15\n",
                  "line 2, column 18: invalid value \"15\" for \"leaderElection.leaseDuration\": "
                  "invalid duration \"15\": missing unit"},
        FileError{"workers: many\n",
                  "line 1, column 10: invalid value \"many\" for \"workers\": not an integer"},
        FileError{"workers: 99999999999\n",
                  "line 1, column 10: invalid value \"99999999999\" for \"workers\": out of range"},
        FileError{
            "leaderElection:\n  leaderElect: yes please\n",
            "line 2, column 16: invalid value \"yes please\" for \"leaderElection.leaderElect\": "
            "not a boolean (true or false)"},
        FileError{"name: [a, b]\n", "line 1, column 7: \"name\" must be a single value"},
        FileError{"name:\n", "line 1, column 1: \"name\" has no value"},
        FileError{"leaderElection: 5\n", "line 1, column 17: \"leaderElection\" must be a map"},
        FileError{"resources: {cpu: 1}\n", "line 1, column 12: \"resources\" must be a list"},
        FileError{"name: a\nname: b\n", "line 2, column 1: duplicate key \"name\""},
        FileError{"- name\n", "line 1, column 1: the top level must be a map of settings"},
        FileError{"resources: [cpu, memory\n",
                  "line 2, column 1: malformed YAML: end of sequence flow not found"},
        FileError{"name: a: b\n", "line 1, column 8: malformed YAML: illegal map value"},
        FileError{"name: a\n  workers: 2\n",
                  "line 2, column 10: malformed YAML: illegal map value"}));

TEST_F(OptionsTest, MissingFileIsAnError) {
  EXPECT_EQ(error_of({"--config", "/nonexistent/tailor.yaml"}),
            "config /nonexistent/tailor.yaml: cannot read the file");
}

TEST_F(OptionsTest, FlagErrorsNameTheFlag) {
  EXPECT_EQ(error_of({"--nope"}), "unknown flag: --nope");
  EXPECT_EQ(error_of({"--worker=3"}), "unknown flag: --worker (did you mean \"--workers\"?)");
  EXPECT_EQ(error_of({"--workers", "x"}), "invalid value \"x\" for flag --workers: not an integer");
  EXPECT_EQ(error_of({"--leader-elect-lease-duration=-1s"}),
            "invalid value \"-1s\" for flag --leader-elect-lease-duration: must not be negative");
  EXPECT_EQ(error_of({"--leader-elect=maybe"}),
            "invalid value \"maybe\" for flag --leader-elect: not a boolean (true or false)");
  EXPECT_EQ(error_of({"stray"}), "tailor-test takes no arguments besides flags");
  EXPECT_THAT(error_of({"--workers"}), HasSubstr("workers"));
  EXPECT_EQ(error_of({"--lease=1s"}), "unknown flag: --lease");  // no prefix guessing
}

TEST_F(OptionsTest, PositionalArguments) {
  std::vector<std::string> traces;
  schema.positional("TRACE", &traces);
  schema.parse({"a.csv", "--workers=1", "b.csv"});
  EXPECT_EQ(traces, (std::vector<std::string>{"a.csv", "b.csv"}));
}

TEST_F(OptionsTest, UsageListsFlagsDefaultsAndKeys) {
  std::string u = schema.usage();
  EXPECT_THAT(u, HasSubstr("Usage: tailor-test [flags]\n\nA test process.\n\nFlags:\n"));
  EXPECT_THAT(u, HasSubstr("  -w, --workers int"));
  EXPECT_THAT(u, HasSubstr("Workers. (default 4) [config: workers]\n"));
  EXPECT_THAT(u, HasSubstr("      --leader-elect-lease-duration duration"));
  EXPECT_THAT(u, HasSubstr("Lease. (default 15s) [config: leaderElection.leaseDuration]"));
  EXPECT_THAT(u, HasSubstr("(default \"default-name\")"));
  EXPECT_THAT(u, HasSubstr("(default [cpu,memory])"));
}

TEST(SchemaTest, DuplicateDeclarationsAreProgrammingErrors) {
  Schema schema("p", "d");
  int a = 0, b = 0;
  schema.add({.flag = "a", .yaml_key = "x", .help = "h"}, &a);
  EXPECT_THROW(schema.add({.flag = "a", .yaml_key = "y", .help = "h"}, &b), std::logic_error);
  EXPECT_THROW(schema.add({.flag = "b", .yaml_key = "x", .help = "h"}, &b), std::logic_error);
}

TEST(ReadFlagFile, ReadsTheFileOrNamesTheFlag) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tailor-flag-file-" + std::to_string(::getpid()) + ".pem");
  std::ofstream(path) << "-----BEGIN CERTIFICATE-----\n";
  EXPECT_EQ(read_flag_file(path.string(), "tls-cert-file"), "-----BEGIN CERTIFICATE-----\n");
  std::ofstream(path).close();  // empty: no certificate to use either
  try {
    read_flag_file(path.string(), "tls-cert-file");
    ADD_FAILURE() << "an empty file was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read --tls-cert-file " + path.string());
  }
  std::filesystem::remove(path);
  EXPECT_THROW(read_flag_file("/nonexistent/ca.crt", "ca-file"), ConfigError);
}

}  // namespace
}  // namespace tailor::kube::config
