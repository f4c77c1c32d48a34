// pods/{name}/log: the log files the node agents' containers write, read by the API server
// itself. tailor-cluster and the agents of `tailor cluster up` share one machine and one log
// directory (--pod-log-dir on both), so the API server reads the kubelet-layout path the agent
// gave the runtime instead of proxying to the agent (docs/architecture.md says why). A follow
// streams what the file gains until the attempt stops running or the client goes.
#include <boost/json.hpp>
#include <fstream>
#include <thread>

#include "embedded/api/rest.h"
#include "embedded/logs/pod_log_request.h"
#include "embedded/server/features.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {
namespace bj = boost::json;
using namespace std::chrono_literals;

constexpr auto kPollInterval = 250ms;  // how soon a follow sees a new line
constexpr auto kStatusInterval = 1s;   // how soon a follow sees its attempt end

// The log file's bytes from `offset` on; "" when it has no more (or is gone).
std::string read_from(const std::string& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(offset));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Whether the attempt being followed still runs, as the pod's status says now.
bool still_running(const RestContext& c, const PodLogOptions& options, const LogFile& followed) {
  try {
    const ObjectPtr pod = c.store.get(*c.target.resource, c.target.ns, c.target.name);
    PodLogOptions now = options;
    now.container = followed.container;
    now.previous = false;
    const auto current = choose_log_file(*pod, now);
    return current && current->running && current->attempt == followed.attempt;
  } catch (const std::exception&) {
    return false;  // the pod is gone, or its container has no log now
  }
}

class LogStream {
 public:
  LogStream(const PodLogOptions& options, std::string path)
      : options_(options), path_(std::move(path)), writer_(options) {}

  // The log as it is now (tailLines applied), and the offset of what is left for a follow.
  std::string initial() {
    const std::string text = read_from(path_, 0);
    std::string out;
    const auto lines = complete_lines(text, options_.tail_lines);
    for (std::string_view line : lines) writer_.add(line, out);
    offset_ = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    return out;
  }
  // What complete lines the file gained since.
  std::string more() {
    const std::string text = read_from(path_, offset_);
    std::string out;
    for (std::string_view line : complete_lines(text)) {
      writer_.add(line, out);
      offset_ += line.size() + 1;
    }
    return out;
  }
  bool full() const { return writer_.full(); }

 private:
  const PodLogOptions& options_;
  std::string path_;
  LogWriter writer_;
  std::uint64_t offset_ = 0;
};

void follow(const RestContext& c, kube::http::Exchange& exchange, const PodLogOptions& options,
            const LogFile& log, LogStream& stream) {
  auto next_status = std::chrono::steady_clock::now() + kStatusInterval;
  for (bool running = true; running && !stream.full();) {
    if (exchange.wait_closed(kPollInterval)) return;
    if (std::chrono::steady_clock::now() >= next_status) {
      running = still_running(c, options, log);
      next_status = std::chrono::steady_clock::now() + kStatusInterval;
    }
    // Read after the status check: what the attempt wrote before it ended is still sent.
    if (const std::string text = stream.more(); !text.empty() && !exchange.write(text)) return;
  }
}

void serve_log(const RestContext& c, kube::http::Exchange& exchange, const std::string& dir) {
  if (c.request.method != "GET") {
    throw method_not_supported(c.target.resource->group_resource(), c.request.method);
  }
  const ObjectPtr pod = c.store.get(*c.target.resource, c.target.ns, c.target.name);
  const PodLogOptions options = parse_pod_log_options(c.request, c.target.name, c.now());
  const std::optional<LogFile> log = choose_log_file(*pod, options);
  const kube::http::Headers headers{{"Content-Type", "text/plain"}};
  if (!log) return exchange.respond({200, headers, ""});  // not on a node yet: nothing to read
  if (dir.empty()) {
    throw StatusError(404, "NotFound",
                      "pod logs are not served: tailor-cluster runs without --pod-log-dir");
  }
  LogStream stream(options, log_file_path(dir, *pod, *log));
  std::string text = stream.initial();
  if (!options.follow || !log->running || stream.full()) {
    return exchange.respond({200, headers, std::move(text)});
  }
  exchange.start_stream(200, headers);
  if (!text.empty() && !exchange.write(text)) return;
  follow(c, exchange, options, *log, stream);
  exchange.finish();
}

}  // namespace

void add_pod_logs(ApiExtensions& extensions, std::string log_dir) {
  ResourceInfo pods{.version = "v1", .resource = "pods"};
  extensions.streaming[subresource_key(pods, "log")] =
      [dir = std::move(log_dir)](const RestContext& c, kube::http::Exchange& exchange) {
        serve_log(c, exchange, dir);
      };
}

}  // namespace tailor::embedded
