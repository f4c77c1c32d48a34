#include "kube/observe/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>

namespace tailor::kube::log {
namespace {

// Hands each formatted line to a callback (tests capture output this way).
class FunctionSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit FunctionSink(std::function<void(std::string_view)> fn) : fn_(std::move(fn)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    fn_(std::string_view(buf.data(), buf.size()));
  }
  void flush_() override {}

 private:
  std::function<void(std::string_view)> fn_;
};

std::shared_ptr<spdlog::logger> make_spdlog(const Options& options) {
  spdlog::sink_ptr sink;
  if (options.output) {
    sink = std::make_shared<FunctionSink>(options.output);
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  auto logger = std::make_shared<spdlog::logger>("tailor", sink);
  // Lines arrive fully formatted, newline included.
  logger->set_formatter(
      std::make_unique<spdlog::pattern_formatter>("%v", spdlog::pattern_time_type::local, ""));
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::err);
  return logger;
}

spdlog::level::level_enum spdlog_level(Severity s) {
  switch (s) {
    case Severity::Warning:
      return spdlog::level::warn;
    case Severity::Error:
      return spdlog::level::err;
    default:
      return spdlog::level::info;
  }
}

}  // namespace

Format parse_format(std::string_view name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  throw std::invalid_argument("unknown log format \"" + std::string(name) +
                              "\" (supported: text, json)");
}

std::string_view format_name(Format f) { return f == Format::Json ? "json" : "text"; }

struct Logger::Core {
  mutable std::shared_mutex mu;  // guards everything but verbosity
  Options options;
  std::shared_ptr<spdlog::logger> sink;
  std::atomic<int> verbosity{0};

  void reset(Options o) {
    auto logger = make_spdlog(o);
    std::unique_lock lock(mu);
    verbosity.store(o.verbosity);
    options = std::move(o);
    sink = std::move(logger);
  }
};

Logger::Logger(Options options) : core_(std::make_shared<Core>()) {
  core_->reset(std::move(options));
}
Logger::~Logger() = default;
Logger::Logger(const Logger&) = default;
Logger& Logger::operator=(const Logger&) = default;

void Logger::configure(Options options) { core_->reset(std::move(options)); }
void Logger::set_verbosity(int verbosity) { core_->verbosity.store(verbosity); }
int Logger::verbosity() const { return core_->verbosity.load(); }

Format Logger::format() const {
  std::shared_lock lock(core_->mu);
  return core_->options.format;
}

Logger Logger::with_values(const KVs& kvs) const {
  Logger copy = *this;
  auto merged = std::make_shared<KVs>(context_ ? *context_ : KVs{});
  merged->append(kvs);
  copy.context_ = std::move(merged);
  return copy;
}

Verbose Logger::v(int level) const { return Verbose(this, level, level <= verbosity()); }

void Verbose::info(std::string_view msg, const KVs& kvs, Location loc) const {
  if (enabled_) logger_->write(Severity::Info, level_, std::nullopt, msg, kvs, loc);
}

void Logger::info(std::string_view msg, const KVs& kvs, Location loc) const {
  write(Severity::Info, 0, std::nullopt, msg, kvs, loc);
}
void Logger::warning(std::string_view msg, const KVs& kvs, Location loc) const {
  write(Severity::Warning, 0, std::nullopt, msg, kvs, loc);
}
void Logger::error(std::string_view msg, const KVs& kvs, Location loc) const {
  write(Severity::Error, 0, std::nullopt, msg, kvs, loc);
}
void Logger::error(const std::exception& err, std::string_view msg, const KVs& kvs,
                   Location loc) const {
  write(Severity::Error, 0, std::string(err.what()), msg, kvs, loc);
}
void Logger::error(const std::error_code& err, std::string_view msg, const KVs& kvs,
                   Location loc) const {
  write(Severity::Error, 0, err.message(), msg, kvs, loc);
}

void Logger::flush() const {
  std::shared_lock lock(core_->mu);
  core_->sink->flush();
}

void Logger::write(Severity severity, int level, std::optional<std::string> err,
                   std::string_view msg, const KVs& kvs, const Location& loc) const {
  std::shared_lock lock(core_->mu);
  const Options& o = core_->options;
  static const int kPid = static_cast<int>(::getpid());
  Entry e;
  e.severity = severity;
  e.time = o.clock ? o.clock() : std::chrono::system_clock::now();
  e.pid = o.pid.value_or(kPid);
  e.file = loc.file_name();
  e.line = loc.line();
  e.msg = msg;
  e.verbosity = level;
  e.err = std::move(err);
  e.context = context_.get();
  e.kvs = &kvs;
  std::string line = o.format == Format::Json ? format_json(e) : format_text(e);
  core_->sink->log(spdlog_level(severity), spdlog::string_view_t(line.data(), line.size()));
}

Logger& global() {
  static Logger* logger = new Logger();  // never destroyed: threads may log during exit
  return *logger;
}

}  // namespace tailor::kube::log
