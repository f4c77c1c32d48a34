// pods/{name}/log as kube-apiserver and the kubelet answer it, the decisions only (pure): the
// request's PodLogOptions checked as the API checks them, which container attempt's log file a
// request means (the kubelet's choice between the running container and the last terminated one,
// with its words when there is none), and the CRI log format ("<RFC3339Nano> stdout|stderr F|P
// <message>", what containerd writes) turned into what `kubectl logs` prints.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/http/server.h"
#include "kube/model/time.h"

namespace tailor::embedded {

struct PodLogOptions {
  std::string container{};
  bool follow = false;
  bool previous = false;
  bool timestamps = false;
  std::optional<std::int64_t> tail_lines{};
  std::optional<std::int64_t> limit_bytes{};
  std::optional<kube::TimePoint> since{};  // from sinceTime, or now - sinceSeconds
};

// The query's options; 400 for values that do not parse, 422 PodLogOptions Invalid for values
// the API refuses (negative tailLines, limitBytes or sinceSeconds below 1, both since forms).
PodLogOptions parse_pod_log_options(const kube::http::ServerRequest& request,
                                    const std::string& pod_name, kube::TimePoint now);

// One container attempt's log: <dir>/<namespace>_<pod>_<uid>/<container>/<attempt>.log, the
// kubelet's layout (attempt = the restart count the container started with).
struct LogFile {
  std::string container{};
  std::uint32_t attempt = 0;
  bool running = false;  // the attempt runs now: a follow waits for more
};

// nullopt when the pod is not bound to a node yet (kube-apiserver then answers an empty log);
// StatusError 400 with the API's or the kubelet's message when there is no log to give.
std::optional<LogFile> choose_log_file(const boost::json::object& pod,
                                       const PodLogOptions& options);

// The file of `log` below `dir`.
std::string log_file_path(const std::string& dir, const boost::json::object& pod,
                          const LogFile& log);

// One line of a CRI log file (without its newline); nullopt when it is not in the format.
struct CriLogLine {
  std::string_view timestamp;
  std::string_view stream;  // "stdout" or "stderr"
  bool partial = false;     // "P": the message continues on the next line
  std::string_view message;
};
std::optional<CriLogLine> parse_cri_log_line(std::string_view line);

// Turns whole CRI log lines into the log's text, honouring since, timestamps and limitBytes.
class LogWriter {
 public:
  explicit LogWriter(const PodLogOptions& options) : options_(options) {}
  // Appends the text of `line` to `out`; malformed lines are skipped as the kubelet does.
  void add(std::string_view line, std::string& out);
  // limitBytes reached: nothing more is written.
  bool full() const { return options_.limit_bytes && written_ >= *options_.limit_bytes; }

 private:
  const PodLogOptions& options_;
  std::int64_t written_ = 0;
};

// The complete lines of `text` (a trailing piece without a newline is left out), the last
// `tail` of them when given.
std::vector<std::string_view> complete_lines(std::string_view text,
                                             std::optional<std::int64_t> tail = std::nullopt);

}  // namespace tailor::embedded
