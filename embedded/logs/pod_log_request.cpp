#include "embedded/logs/pod_log_request.h"

#include <boost/json.hpp>
#include <charconv>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {
namespace bj = boost::json;

std::string string_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const bj::object* object_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

const bj::array* array_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

// A query parameter as a bool, as the API's query conversion reads one; 400 otherwise.
bool flag(const kube::http::ServerRequest& request, std::string_view name) {
  const auto value = request.query_param(name);
  if (!value || value->empty() || *value == "false") return false;
  if (*value == "true") return true;
  throw bad_request("invalid value for " + std::string(name) + ": \"" + *value +
                    "\": expected true or false");
}

std::optional<std::int64_t> number(const kube::http::ServerRequest& request,
                                   std::string_view name) {
  const auto value = request.query_param(name);
  if (!value || value->empty()) return std::nullopt;
  std::int64_t out = 0;
  const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), out);
  if (error != std::errc() || end != value->data() + value->size()) {
    throw bad_request("invalid value for " + std::string(name) + ": strconv.ParseInt: parsing \"" +
                      *value + "\": invalid syntax");
  }
  return out;
}

void at_least(std::vector<FieldCause>& causes, const char* field,
              const std::optional<std::int64_t>& value, std::int64_t minimum) {
  if (!value || *value >= minimum) return;
  causes.push_back(
      {"FieldValueInvalid",
       "Invalid value: " + std::to_string(*value) +
           (minimum == 0 ? ": must be greater than or equal to 0" : ": must be greater than 0"),
       field});
}

std::vector<std::string> names_of(const bj::object& spec, std::string_view list) {
  std::vector<std::string> out;
  if (const bj::array* containers = array_at(spec, list)) {
    for (const bj::value& c : *containers) {
      if (c.is_object()) out.push_back(string_at(c.get_object(), "name"));
    }
  }
  return out;
}

// "[a b]", as Go prints a []string.
std::string go_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

// The API's validateContainer: the only container when none is named.
std::string container_of(const bj::object& pod, const PodLogOptions& options) {
  const bj::object* spec = object_at(pod, "spec");
  const std::string name = string_at(*object_at(pod, "metadata"), "name");
  std::vector<std::string> all =
      spec ? names_of(*spec, "initContainers") : std::vector<std::string>{};
  const std::vector<std::string> regular = spec ? names_of(*spec, "containers") : all;
  all.insert(all.end(), regular.begin(), regular.end());
  if (options.container.empty()) {
    if (regular.size() == 1) return regular.front();
    if (regular.empty()) throw bad_request("a container name must be specified for pod " + name);
    throw bad_request("a container name must be specified for pod " + name +
                      ", choose one of: " + go_list(all));
  }
  if (std::find(all.begin(), all.end(), options.container) == all.end()) {
    throw bad_request("container " + options.container + " is not valid for pod " + name);
  }
  return options.container;
}

const bj::object* status_of(const bj::object& pod, const std::string& container) {
  const bj::object* status = object_at(pod, "status");
  if (!status) return nullptr;
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    if (const bj::array* statuses = array_at(*status, list)) {
      for (const bj::value& s : *statuses) {
        if (s.is_object() && string_at(s.get_object(), "name") == container) return &s.get_object();
      }
    }
  }
  return nullptr;
}

const bj::object* state_of(const bj::object& status, std::string_view which,
                           std::string_view kind) {
  const bj::object* state = object_at(status, which);
  return state ? object_at(*state, kind) : nullptr;
}

// The kubelet's validateContainerLogStatus, over the attempts of this node agent's runtime:
// the current attempt is the restart count; the last terminated one is the attempt before a
// running (or terminated) current one, and the current one itself while it waits to restart.
LogFile attempt_of(const bj::object& status, const std::string& container, const std::string& pod,
                   bool previous) {
  const std::int64_t restarts =
      status.contains("restartCount") && status.at("restartCount").is_int64()
          ? status.at("restartCount").get_int64()
          : 0;
  const auto attempt = static_cast<std::uint32_t>(restarts);
  const bool running = state_of(status, "state", "running") != nullptr;
  const bool terminated = state_of(status, "state", "terminated") != nullptr;
  const bool last_terminated = state_of(status, "lastState", "terminated") != nullptr;
  const std::string where = "\"" + container + "\" in pod \"" + pod + "\"";
  if (previous) {
    if (!last_terminated || ((running || terminated) && attempt == 0)) {
      throw bad_request("previous terminated container " + where + " not found");
    }
    return {container, (running || terminated) ? attempt - 1 : attempt, false};
  }
  if (running || terminated || last_terminated) return {container, attempt, running};
  const bj::object* waiting = state_of(status, "state", "waiting");
  if (!waiting) throw bad_request("container " + where + " is waiting to start - no logs yet");
  const std::string reason = string_at(*waiting, "reason");
  if (reason == "ErrImagePull") {
    throw bad_request("container " + where + " is waiting to start: image can't be pulled");
  }
  if (reason == "ImagePullBackOff") {
    throw bad_request("container " + where +
                      " is waiting to start: trying and failing to pull image");
  }
  throw bad_request("container " + where + " is waiting to start: " + reason);
}

// containerd's timestamps are RFC3339Nano (trailing zeros dropped); the kubelet prints nine
// fraction digits.
std::string kubelet_timestamp(std::string_view ts) {
  if (ts.empty() || ts.back() != 'Z') return std::string(ts);
  const std::size_t dot = ts.find('.');
  std::string whole(ts.substr(0, dot == std::string_view::npos ? ts.size() - 1 : dot));
  std::string fraction(dot == std::string_view::npos ? ""
                                                     : ts.substr(dot + 1, ts.size() - dot - 2));
  fraction.resize(9, '0');
  return whole + "." + fraction + "Z";
}

}  // namespace

PodLogOptions parse_pod_log_options(const kube::http::ServerRequest& request,
                                    const std::string& pod_name, kube::TimePoint now) {
  PodLogOptions out;
  out.container = request.query_param("container").value_or("");
  out.follow = flag(request, "follow");
  out.previous = flag(request, "previous");
  out.timestamps = flag(request, "timestamps");
  out.tail_lines = number(request, "tailLines");
  out.limit_bytes = number(request, "limitBytes");
  const std::optional<std::int64_t> since_seconds = number(request, "sinceSeconds");
  const std::string since_time = request.query_param("sinceTime").value_or("");
  std::vector<FieldCause> causes;
  at_least(causes, "tailLines", out.tail_lines, 0);
  at_least(causes, "limitBytes", out.limit_bytes, 1);
  at_least(causes, "sinceSeconds", since_seconds, 1);
  if (since_seconds && !since_time.empty()) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                      ""});
  }
  if (!causes.empty()) throw invalid("", "PodLogOptions", pod_name, std::move(causes));
  if (since_seconds) out.since = now - std::chrono::seconds(*since_seconds);
  if (!since_time.empty()) {
    out.since = kube::try_parse_rfc3339(since_time);
    if (!out.since) throw bad_request("invalid value for sinceTime: \"" + since_time + "\"");
  }
  return out;
}

std::optional<LogFile> choose_log_file(const bj::object& pod, const PodLogOptions& options) {
  const std::string container = container_of(pod, options);
  const bj::object* spec = object_at(pod, "spec");
  if (!spec || string_at(*spec, "nodeName").empty()) return std::nullopt;
  const std::string name = string_at(*object_at(pod, "metadata"), "name");
  const bj::object* status = status_of(pod, container);
  if (!status) {
    throw bad_request("container \"" + container + "\" in pod \"" + name + "\" is not available");
  }
  return attempt_of(*status, container, name, options.previous);
}

std::string log_file_path(const std::string& dir, const bj::object& pod, const LogFile& log) {
  const bj::object& meta = *object_at(pod, "metadata");
  return dir + "/" + string_at(meta, "namespace") + "_" + string_at(meta, "name") + "_" +
         string_at(meta, "uid") + "/" + log.container + "/" + std::to_string(log.attempt) + ".log";
}

std::optional<CriLogLine> parse_cri_log_line(std::string_view line) {
  CriLogLine out;
  std::string_view rest = line;
  const auto field = [&rest]() -> std::optional<std::string_view> {
    const std::size_t space = rest.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    std::string_view f = rest.substr(0, space);
    rest.remove_prefix(space + 1);
    return f;
  };
  const auto ts = field(), stream = field();
  if (!ts || !stream || (*stream != "stdout" && *stream != "stderr")) return std::nullopt;
  // The tag is the third field; a message may be empty ("<ts> stdout F" with nothing after it).
  const std::size_t space = rest.find(' ');
  const std::string_view tag = rest.substr(0, space);
  if (tag != "F" && tag != "P") return std::nullopt;
  out.timestamp = *ts;
  out.stream = *stream;
  out.partial = tag == "P";
  out.message = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return out;
}

void LogWriter::add(std::string_view text, std::string& out) {
  if (full()) return;
  const auto line = parse_cri_log_line(text);
  if (!line) return;
  if (options_.since) {
    const auto at = kube::try_parse_rfc3339(line->timestamp);
    if (at && *at < *options_.since) return;
  }
  std::string piece;
  if (options_.timestamps) piece = kubelet_timestamp(line->timestamp) + " ";
  piece.append(line->message);
  if (!line->partial) piece += '\n';
  if (options_.limit_bytes) {
    const std::int64_t room = *options_.limit_bytes - written_;
    if (static_cast<std::int64_t>(piece.size()) > room)
      piece.resize(static_cast<std::size_t>(room));
  }
  written_ += static_cast<std::int64_t>(piece.size());
  out += piece;
}

std::vector<std::string_view> complete_lines(std::string_view text,
                                             std::optional<std::int64_t> tail) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string_view::npos;
       start = end + 1) {
    out.push_back(text.substr(start, end - start));
  }
  if (tail && static_cast<std::int64_t>(out.size()) > *tail) {
    out.erase(out.begin(), out.end() - *tail);
  }
  return out;
}

}  // namespace tailor::embedded
