#include "node-agent/allocation/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tailor::node::allocation {
namespace json = boost::json;
namespace {

constexpr std::string_view kMagic = "tailor-node-agent-checkpoint";
constexpr std::string_view kChecksumPrefix = "fnv1a64:";

CheckpointError corrupt(const std::string& where, const std::string& what) {
  return CheckpointError(CheckpointErrorKind::Corrupt, "checkpoint " + where + ": " + what);
}

json::object encode_list(const kube::ResourceList& list) {
  json::object out;
  for (const auto& [name, quantity] : list) out[name] = quantity.to_string();
  return out;
}

json::array encode_containers(const std::vector<AllocatedContainer>& containers) {
  json::array out;
  for (const auto& c : containers) {
    out.push_back(json::object{{"name", c.name},
                               {"requests", encode_list(c.resources.requests)},
                               {"limits", encode_list(c.resources.limits)}});
  }
  return out;
}

json::object encode_pod(const AllocatedPod& pod) {
  return json::object{{"uid", pod.uid},
                      {"namespace", pod.namespace_},
                      {"name", pod.name},
                      {"generation", pod.generation},
                      {"resizeInProgress", pod.resize_in_progress},
                      {"inProgressGeneration", pod.in_progress_generation},
                      {"containers", encode_containers(pod.containers)},
                      {"initContainers", encode_containers(pod.init_containers)}};
}

// Field access that names the JSON path at fault.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  const json::value& field(const json::object& object, std::string_view key,
                           const std::string& path) const {
    const json::value* value = object.if_contains(key);
    if (value == nullptr) throw corrupt(where_, "missing " + path + "." + std::string(key));
    return *value;
  }
  const json::object& object(const json::value& value, const std::string& path) const {
    if (!value.is_object()) throw corrupt(where_, path + " is not an object");
    return value.get_object();
  }
  const json::array& array(const json::value& value, const std::string& path) const {
    if (!value.is_array()) throw corrupt(where_, path + " is not an array");
    return value.get_array();
  }
  std::string string(const json::object& o, std::string_view key, const std::string& path) const {
    const json::value& value = field(o, key, path);
    if (!value.is_string())
      throw corrupt(where_, path + "." + std::string(key) + " is not a string");
    return std::string(value.get_string());
  }
  std::int64_t integer(const json::object& o, std::string_view key, const std::string& path) const {
    const json::value& value = field(o, key, path);
    if (!value.is_int64())
      throw corrupt(where_, path + "." + std::string(key) + " is not an integer");
    return value.get_int64();
  }
  bool boolean(const json::object& o, std::string_view key, const std::string& path) const {
    const json::value& value = field(o, key, path);
    if (!value.is_bool())
      throw corrupt(where_, path + "." + std::string(key) + " is not a boolean");
    return value.get_bool();
  }

  kube::ResourceList resource_list(const json::value& value, const std::string& path) const {
    kube::ResourceList out;
    for (const auto& [name, quantity] : object(value, path)) {
      const std::string at = path + "." + std::string(name);
      if (!quantity.is_string()) throw corrupt(where_, at + " is not a quantity string");
      std::string error;
      auto parsed = kube::Quantity::try_parse(quantity.get_string(), &error);
      if (!parsed) throw corrupt(where_, at + ": " + error);
      if (parsed->sign() < 0) throw corrupt(where_, at + " is negative");
      out.insert_or_assign(name, *parsed);
    }
    return out;
  }

  std::vector<AllocatedContainer> containers(const json::object& pod, std::string_view key,
                                             const std::string& path) const {
    std::vector<AllocatedContainer> out;
    const std::string list_path = path + "." + std::string(key);
    for (const json::value& item : array(field(pod, key, path), list_path)) {
      const std::string at = list_path + "[" + std::to_string(out.size()) + "]";
      const json::object& c = object(item, at);
      AllocatedContainer container;
      container.name = string(c, "name", at);
      container.resources.requests = resource_list(field(c, "requests", at), at + ".requests");
      container.resources.limits = resource_list(field(c, "limits", at), at + ".limits");
      out.push_back(std::move(container));
    }
    return out;
  }

  AllocatedPod pod(const json::value& value, const std::string& path) const {
    const json::object& o = object(value, path);
    AllocatedPod pod;
    pod.uid = string(o, "uid", path);
    pod.namespace_ = string(o, "namespace", path);
    pod.name = string(o, "name", path);
    pod.generation = integer(o, "generation", path);
    pod.resize_in_progress = boolean(o, "resizeInProgress", path);
    pod.in_progress_generation = integer(o, "inProgressGeneration", path);
    pod.containers = containers(o, "containers", path);
    pod.init_containers = containers(o, "initContainers", path);
    return pod;
  }

 private:
  std::string where_;
};

std::string hex64(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

CheckpointError io_error(const std::string& what, const std::filesystem::path& path) {
  return CheckpointError(CheckpointErrorKind::Io,
                         what + " " + path.string() + ": " + std::strerror(errno));
}

// The file descriptor is closed on every path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw io_error("cannot write", path);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void fsync_dir(const std::filesystem::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) throw io_error("cannot open directory", dir);
  if (::fsync(fd.get()) != 0) throw io_error("cannot fsync directory", dir);
}

}  // namespace

std::string_view to_string(CheckpointErrorKind kind) {
  switch (kind) {
    case CheckpointErrorKind::Corrupt:
      return "corrupt";
    case CheckpointErrorKind::UnknownVersion:
      return "unknown_version";
    case CheckpointErrorKind::Io:
      return "io";
  }
  return "io";
}

std::uint64_t fnv1a64(std::string_view data) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string encode_checkpoint(const Checkpoint& checkpoint) {
  json::array pods;
  for (const auto& [uid, pod] : checkpoint.pods) pods.push_back(encode_pod(pod));
  const std::string payload = json::serialize(json::object{{"pods", std::move(pods)}});
  std::ostringstream out;
  out << kMagic << " v" << kCheckpointVersion << " " << kChecksumPrefix << hex64(fnv1a64(payload))
      << "\n"
      << payload;
  return out.str();
}

Checkpoint decode_checkpoint(std::string_view text, const std::string& where) {
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) throw corrupt(where, "no header line");
  std::istringstream header{std::string(text.substr(0, newline))};
  std::string magic, version, checksum, extra;
  header >> magic >> version >> checksum;
  if (magic != kMagic || header >> extra)
    throw corrupt(where, "not a node-agent checkpoint header");
  if (version != "v" + std::to_string(kCheckpointVersion)) {
    throw CheckpointError(CheckpointErrorKind::UnknownVersion,
                          "checkpoint " + where + ": unknown version \"" + version +
                              "\" (this agent reads v" + std::to_string(kCheckpointVersion) + ")");
  }
  const std::string_view payload = text.substr(newline + 1);
  const std::string expected = std::string(kChecksumPrefix) + hex64(fnv1a64(payload));
  if (checksum != expected) {
    throw corrupt(where, "checksum mismatch (header " + checksum + ", content " + expected + ")");
  }
  boost::system::error_code ec;
  const json::value root = json::parse(payload, ec);
  if (ec) throw corrupt(where, "invalid JSON: " + ec.message());
  const Reader reader(where);
  Checkpoint checkpoint;
  const json::array& pods =
      reader.array(reader.field(reader.object(root, "$"), "pods", "$"), "$.pods");
  for (const json::value& item : pods) {
    AllocatedPod pod = reader.pod(item, "$.pods[" + std::to_string(checkpoint.pods.size()) + "]");
    if (pod.uid.empty()) throw corrupt(where, "a pod without uid");
    const std::string uid = pod.uid;
    if (!checkpoint.pods.emplace(uid, std::move(pod)).second) {
      throw corrupt(where, "pod uid " + uid + " appears twice");
    }
  }
  return checkpoint;
}

CheckpointStore::CheckpointStore(std::filesystem::path dir, std::string file_name)
    : dir_(std::move(dir)), path_(dir_ / file_name) {}

std::optional<Checkpoint> CheckpointStore::load() const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path_)) return std::nullopt;
    throw io_error("cannot read", path_);
  }
  if (std::filesystem::is_directory(path_)) {  // opens, and reads as empty: not "corrupt"
    errno = EISDIR;
    throw io_error("cannot read", path_);
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw io_error("cannot read", path_);
  return decode_checkpoint(content.str(), path_.string());
}

void CheckpointStore::save(const Checkpoint& checkpoint) const {
  const std::string data = encode_checkpoint(checkpoint);
  const std::filesystem::path tmp = path_.string() + ".tmp";
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (fd.get() < 0) throw io_error("cannot create", tmp);
    write_all(fd.get(), data, tmp);
    if (::fsync(fd.get()) != 0) throw io_error("cannot fsync", tmp);
    if (::close(fd.release()) != 0) throw io_error("cannot close", tmp);
  }
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    const auto error = io_error("cannot rename " + tmp.string() + " to", path_);
    ::unlink(tmp.c_str());
    throw error;
  }
  fsync_dir(dir_);
}

}  // namespace tailor::node::allocation
