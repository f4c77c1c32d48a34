// Structured logging for every Tailor process, in klog's text format or Kubernetes' JSON format
// (see log_entry.h), through spdlog. Verbosity works like klog's -v: V(n) logs when n <= -v.
//
//   log::info("Resized pod", {{"pod", log::kobj(ns, name)}, {"cpu", "250m"}});
//   log::v(2).info("Skipping pod", {{"reason", why}});
//   log::error(err, "Patch failed", {{"pod", log::kobj(ns, name)}});
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string_view>
#include <system_error>

#include "kube/observe/log_entry.h"

namespace tailor::kube::log {

enum class Format { Text, Json };

// "text" or "json"; throws std::invalid_argument otherwise.
Format parse_format(std::string_view name);
std::string_view format_name(Format f);

struct Options {
  Format format = Format::Text;
  int verbosity = 0;
  // Receives each formatted line (with its "\n"); unset: standard error.
  std::function<void(std::string_view line)> output;
  // Tests fix the clock and process id to check exact output.
  std::function<std::chrono::system_clock::time_point()> clock;
  std::optional<int> pid;
};

using Location = std::source_location;

class Logger;

// The result of v(n): logs only when n <= the logger's verbosity. Use it at once (it points at
// the logger); `if (auto v = log::v(4)) v.info(...)` skips building pairs when disabled.
class Verbose {
 public:
  bool enabled() const { return enabled_; }
  explicit operator bool() const { return enabled_; }
  void info(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) const;

 private:
  friend class Logger;
  Verbose(const Logger* logger, int level, bool enabled)
      : logger_(logger), level_(level), enabled_(enabled) {}
  const Logger* logger_;
  int level_;
  bool enabled_;
};

class Logger {
 public:
  explicit Logger(Options options = {});
  ~Logger();
  Logger(const Logger&);
  Logger& operator=(const Logger&);

  // Replaces the output, format and verbosity; loggers made by with_values() follow.
  void configure(Options options);
  void set_verbosity(int verbosity);
  int verbosity() const;
  Format format() const;

  // A logger sharing this one's output that adds pairs to every entry (logr's WithValues).
  Logger with_values(const KVs& kvs) const;

  Verbose v(int level) const;
  void info(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) const;
  void warning(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) const;
  // An error entry without an error value.
  void error(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) const;
  void error(const std::exception& err, std::string_view msg, const KVs& kvs = {},
             Location loc = Location::current()) const;
  void error(const std::error_code& err, std::string_view msg, const KVs& kvs = {},
             Location loc = Location::current()) const;
  void flush() const;

 private:
  friend class Verbose;
  struct Core;
  void write(Severity severity, int level, std::optional<std::string> err, std::string_view msg,
             const KVs& kvs, const Location& loc) const;
  std::shared_ptr<Core> core_;
  std::shared_ptr<const KVs> context_;
};

// The process-wide logger behind the free functions below.
Logger& global();
inline void configure(Options options) { global().configure(std::move(options)); }

inline Verbose v(int level) { return global().v(level); }
inline void info(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) {
  global().info(msg, kvs, loc);
}
inline void warning(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) {
  global().warning(msg, kvs, loc);
}
inline void error(std::string_view msg, const KVs& kvs = {}, Location loc = Location::current()) {
  global().error(msg, kvs, loc);
}
inline void error(const std::exception& err, std::string_view msg, const KVs& kvs = {},
                  Location loc = Location::current()) {
  global().error(err, msg, kvs, loc);
}
inline void error(const std::error_code& err, std::string_view msg, const KVs& kvs = {},
                  Location loc = Location::current()) {
  global().error(err, msg, kvs, loc);
}

}  // namespace tailor::kube::log
