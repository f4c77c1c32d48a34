#include "node-agent/runtime/pod_volumes.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "kube/http/base64.h"
#include "node-agent/runtime/container_env.h"

namespace tailor::node::runtime {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::seconds kRefresh{60};  // new ConfigMap and Secret data

std::string kind_name(ProjectionSource::Kind kind) {
  return kind == ProjectionSource::Kind::Secret ? "secret" : "configmap";
}

// The files of one ConfigMap or Secret source.
void add_data_files(const ProjectionSource& source, const RuntimePod& pod, PodApi& api,
                    std::map<std::string, std::string>& files) {
  const bool secret = source.kind == ProjectionSource::Kind::Secret;
  const auto data =
      api.get_data(secret ? "secrets" : "configmaps", pod.pod.metadata.namespace_, source.name);
  if (!data) {
    if (source.optional) return;
    throw std::runtime_error(kind_name(source.kind) + " \"" + source.name + "\" not found");
  }
  auto content = [&](const std::string& value) {
    return secret ? kube::base64_decode(value) : value;
  };
  if (source.items.empty()) {
    for (const auto& [key, value] : *data) files[key] = content(value);
    return;
  }
  for (const KeyToPath& item : source.items) {
    const auto it = data->find(item.key);
    if (it == data->end()) {
      if (source.optional) continue;
      throw std::runtime_error(kind_name(source.kind) + " references non-existent " +
                               (secret ? "secret" : "config") + " key: " + item.key);
    }
    files[item.path] = content(it->second);
  }
}

void add_files(const ProjectionSource& source, const RuntimePod& pod,
               const PodRuntimeOptions& options, PodApi& api, const TokenSource& token,
               std::map<std::string, std::string>& files) {
  switch (source.kind) {
    case ProjectionSource::Kind::ServiceAccountToken:
      files[source.token_path] = token(source);
      return;
    case ProjectionSource::Kind::DownwardAPI:
      for (const KeyToPath& item : source.items)
        // Volumes are made before the sandbox: the IP last reported (the API allows only
        // metadata fields here anyway).
        files[item.path] = pod_field(pod, options, item.key, pod.pod.status.pod_ip);
      return;
    default:
      add_data_files(source, pod, api, files);
  }
}

void write_file(const fs::path& path, const std::string& content, std::uint32_t mode) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  if (::chmod(path.c_str(), mode) != 0) throw std::runtime_error("chmod " + path.string());
}

// A path inside the volume: relative, no "..".
void check_path(const std::string& path) {
  const fs::path p(path);
  const bool escapes = std::any_of(p.begin(), p.end(), [](const fs::path& e) { return e == ".."; });
  if (path.empty() || p.is_absolute() || escapes || path.starts_with("..")) {
    throw std::runtime_error("invalid path in the volume: \"" + path + "\"");
  }
}

// The hostPath's path on this machine: below the node's root when it has one of its own.
fs::path host_path_on_node(const VolumeSpec& volume, const PodRuntimeOptions& options) {
  if (options.host_path_root.empty()) return volume.host_path;
  return fs::path(options.host_path_root) / fs::path(volume.host_path).relative_path();
}

// Returns the path the bind mount takes.
std::string check_host_path(const VolumeSpec& volume, const PodRuntimeOptions& options) {
  const fs::path path = host_path_on_node(volume, options);
  const std::string& type = volume.host_path_type;
  if (type == "DirectoryOrCreate") {
    fs::create_directories(path);
    return path.string();
  }
  auto fail = [&](const std::string& what) {
    throw std::runtime_error("hostPath type check failed: " + path.string() + " is not " + what);
  };
  if (type == "Directory" && !fs::is_directory(path)) fail("a directory");
  if (type == "File" && !fs::is_regular_file(path)) fail("a file");
  if (type == "Socket" && !fs::is_socket(path)) fail("a socket");
  if (type == "FileOrCreate" && !fs::exists(path)) std::ofstream(path).flush();
  return path.string();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Whether the version `..data` links to holds exactly these files (the kubelet's atomic writer
// writes nothing when no file changed and none is to go).
bool holds(const fs::path& root, const std::map<std::string, std::string>& files) {
  if (!fs::is_symlink(root / "..data")) return false;
  const fs::path version = root / fs::read_symlink(root / "..data");
  std::error_code ec;
  std::size_t found = 0;
  for (auto it = fs::recursive_directory_iterator(version, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const auto file = files.find(it->path().lexically_relative(version).string());
    if (file == files.end() || read_file(it->path()) != file->second) return false;
    ++found;
  }
  return !ec && found == files.size();
}

}  // namespace

std::map<std::string, std::string> volume_files(const VolumeSpec& volume, const RuntimePod& pod,
                                                const PodRuntimeOptions& options, PodApi& api,
                                                const TokenSource& token) {
  std::map<std::string, std::string> files;
  for (const ProjectionSource& source : volume.sources) {
    add_files(source, pod, options, api, token, files);
  }
  for (const auto& [path, content] : files) check_path(path);
  return files;
}

void write_volume_files(const std::string& dir, const std::map<std::string, std::string>& files,
                        std::uint32_t mode) {
  const fs::path root(dir);
  if (holds(root, files)) return;
  fs::create_directories(root);
  ::chmod(root.c_str(), 0755);
  const auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  const std::string version = "..v" + std::to_string(stamp);
  for (const auto& [path, content] : files) write_file(root / version / path, content, mode);
  ::chmod((root / version).c_str(), 0755);
  const fs::path previous =
      fs::is_symlink(root / "..data") ? fs::read_symlink(root / "..data") : fs::path();
  fs::remove(root / "..data_tmp");
  fs::create_directory_symlink(version, root / "..data_tmp");
  fs::rename(root / "..data_tmp", root / "..data");  // the swap readers see whole
  std::set<std::string> top;
  for (const auto& [path, content] : files) top.insert(fs::path(path).begin()->string());
  for (const std::string& name : top) {
    if (!fs::is_symlink(root / name)) fs::create_symlink(fs::path("..data") / name, root / name);
  }
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("..") && !top.count(name)) fs::remove_all(entry.path());
  }
  if (!previous.empty() && previous != version) fs::remove_all(root / previous);
}

PodVolumes::PodVolumes(PodApi& api, const PodRuntimeOptions& options)
    : api_(api), options_(options) {}

std::string PodVolumes::token(const RuntimePod& pod, const VolumeSpec& volume,
                              const ProjectionSource& source, PodVolumeState& state) {
  CachedToken& cached = state.tokens[volume.name + "/" + source.token_path];
  const auto now = options_.now();
  if (cached.token.empty() || now >= cached.renew_at) {
    cached.token = api_.request_token(pod.pod, pod.run.service_account_name, source.token_audience,
                                      source.token_expiration_seconds);
    cached.renew_at = now + std::chrono::seconds(source.token_expiration_seconds * 8 / 10);
  }
  return cached.token;
}

std::string PodVolumes::make(const RuntimePod& pod, const VolumeSpec& volume,
                             PodVolumeState& state) {
  const fs::path dir =
      fs::path(options_.volume_root) / pod.pod.metadata.uid / "volumes" / volume.name;
  switch (volume.kind) {
    case VolumeSpec::Kind::HostPath:
      return check_host_path(volume, options_);
    case VolumeSpec::Kind::EmptyDir:
      fs::create_directories(dir);
      ::chmod(dir.c_str(), 0777);
      return dir.string();
    case VolumeSpec::Kind::Files:
      write_volume_files(dir.string(),
                         volume_files(volume, pod, options_, api_,
                                      [&](const ProjectionSource& source) {
                                        return token(pod, volume, source, state);
                                      }),
                         volume.default_mode);
      return dir.string();
    default:
      throw std::runtime_error("volume source \"" + volume.unsupported +
                               "\" is not supported by this node");
  }
}

std::optional<std::string> PodVolumes::ensure(const RuntimePod& pod, PodVolumeState& state) {
  const auto now = options_.now();
  const bool due = now >= state.refresh_at;
  for (const VolumeSpec& volume : pod.run.volumes) {
    // hostPath and emptyDir are set up once, as the kubelet's reconciler mounts them once;
    // volumes of files are looked at again when due (and written only when their data changed).
    const bool again = due && volume.kind == VolumeSpec::Kind::Files;
    if (state.paths.count(volume.name) && !again) continue;
    try {
      state.paths[volume.name] = make(pod, volume, state);
    } catch (const std::exception& e) {
      state.paths.erase(volume.name);
      return "MountVolume.SetUp failed for volume \"" + volume.name + "\" : " + e.what();
    }
  }
  if (due) state.refresh_at = now + kRefresh;
  return std::nullopt;
}

void PodVolumes::remove(const std::string& uid) {
  std::error_code ignored;
  fs::remove_all(fs::path(options_.volume_root) / uid, ignored);
}

}  // namespace tailor::node::runtime
