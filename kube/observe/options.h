// Command-line flags plus a YAML config file (--config FILE) for every Tailor process.
// Precedence: flags over the file over defaults. Each process declares its options once, in a
// Schema that binds each option (flag name, YAML key, help) to a variable whose value before
// parsing is the default:
//
//   Schema schema("tailor-controller", "Vertical autoscaler controller.");
//   CommonOptions common;  add_common_options(schema, common);
//   schema.add({.flag = "resync-period", .yaml_key = "informers.resyncPeriod",
//               .help = "How often informers resync."}, &resync_period);
//   if (schema.parse(argc, argv) == ParseResult::Help) { std::cout << schema.usage(); return 0; }
//
// Flags use Boost.program_options (`--name value`, `--name=value`, `-v 2`, `-v=2`; booleans as
// `--flag` or `--flag=false`); YAML keys are dotted paths into nested maps.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kube/observe/duration.h"

namespace tailor::kube::config {

// Bad flags, an unreadable or malformed config file, unknown keys, bad values. The message says
// which flag or which file, line and key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Option {
  std::string flag{};      // long name without dashes, e.g. "metrics-bind-address"
  char short_flag = 0;     // e.g. 'v'; 0: none
  std::string yaml_key{};  // e.g. "logging.verbosity"; empty: flag only
  std::string help{};
};

enum class ParseResult { Run, Help, Version };

class Schema {
 public:
  Schema(std::string program, std::string description);
  ~Schema();
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  void add(Option option, std::string* target);
  void add(Option option, bool* target);
  void add(Option option, int* target, int min = std::numeric_limits<int>::min());
  void add(Option option, double* target);
  void add(Option option, Duration* target);  // negative durations are rejected
  // Comma-separated on the command line (repeatable); a sequence in YAML.
  void add(Option option, std::vector<std::string>* target);

  // Any other type: parse turns text into a value (throwing std::invalid_argument with the
  // reason), show prints a value for usage() ("" hides the default). Validation goes in parse.
  // type names the value in usage(), e.g. "host:port".
  template <class T>
  void add(Option option, T* target, std::function<T(std::string_view)> parse,
           std::function<std::string(const T&)> show, std::string type = "value") {
    add_custom(
        std::move(option), std::move(type),
        [target, parse](std::string_view s) { *target = parse(s); }, show(*target));
  }

  // Accepts --version: parse then returns ParseResult::Version and version_text() says
  // "<program> <version>". Without this --version is an unknown flag.
  void version(std::string version);
  std::string version_text() const;

  // Arguments that are not flags (e.g. trace files); without this they are an error.
  void positional(std::string name, std::vector<std::string>* target);

  // Parses argv (argv[0] is the program) and the file named by --config. Throws ConfigError.
  ParseResult parse(int argc, const char* const argv[]);
  ParseResult parse(const std::vector<std::string>& args);  // without argv[0]

  // The config file that was read ("" when none).
  const std::string& config_file() const;
  std::string usage() const;

 private:
  void add_custom(Option option, std::string type, std::function<void(std::string_view)> set,
                  std::string default_text);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The text of a file a flag names (a certificate, a key, a CA); ConfigError "cannot read --flag
// PATH" when it is missing, unreadable or empty.
std::string read_flag_file(const std::string& path, std::string_view flag);

}  // namespace tailor::kube::config
