#include "embedded/services/cluster_ips.h"

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

constexpr auto kPendingFor = std::chrono::seconds(60);  // kube-apiserver's request timeout

const ResourceInfo& services() {
  static const ResourceInfo& r = *find_resource("", "v1", "services");
  return r;
}

// Go's %#v of a []string, as field.Invalid prints the value.
std::string go_strings(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += "\"" + values[i] + "\"";
  }
  return out + "}";
}

bj::array json_strings(const std::vector<std::string>& values) {
  bj::array a;
  for (const std::string& v : values) a.emplace_back(v);
  return a;
}

[[noreturn]] void refuse(const AdmissionRequest& request, const std::string& field,
                         const std::string& value, const std::string& why) {
  throw invalid("", "Service", request.name,
                {{"FieldValueInvalid", "Invalid value: " + value + ": " + why, field}});
}

// The addresses a stored Service holds.
std::vector<std::uint32_t> held_by(const bj::object& service) {
  std::vector<std::uint32_t> ips;
  const ServiceIps s = service_ips(service);
  if (!s.needs_cluster_ip()) return ips;
  for (const std::string& text : s.cluster_ips) {
    if (auto ip = parse_ipv4(text)) ips.push_back(*ip);
  }
  if (ips.empty()) {
    if (auto ip = parse_ipv4(s.cluster_ip)) ips.push_back(*ip);
  }
  return ips;
}

// As kube-apiserver's normalizeClusterIPs and patchAllocatedValues: what the client meant when
// it sent only one of clusterIP and clusterIPs, or (on update) neither.
void normalize(bj::object& spec, const ServiceIps* old) {
  ServiceIps now = service_ips(bj::object{{"spec", spec}});
  if (!old) {
    if (!now.cluster_ip.empty() && now.cluster_ips.empty()) {
      spec["clusterIPs"] = bj::array{bj::string(now.cluster_ip)};
    }
    return;
  }
  if (old->needs_cluster_ip() && now.needs_cluster_ip()) {
    if (now.cluster_ip.empty()) spec["clusterIP"] = now.cluster_ip = old->cluster_ip;
    if (now.cluster_ips.empty() && !old->cluster_ips.empty()) {
      spec["clusterIPs"] = json_strings(now.cluster_ips = old->cluster_ips);
    }
  }
  if (!old->cluster_ips.empty() && now.cluster_ips.empty() && old->cluster_ip == now.cluster_ip) {
    spec["clusterIPs"] = json_strings(now.cluster_ips = old->cluster_ips);
  }
  if (old->cluster_ip != now.cluster_ip && old->cluster_ips == now.cluster_ips) {
    if (now.cluster_ip.empty()) {
      spec.erase("clusterIPs");
    } else {
      spec["clusterIPs"] = bj::array{bj::string(now.cluster_ip)};
    }
  }
}

}  // namespace

bool ServiceIps::needs_cluster_ip() const {
  return type != "ExternalName" && cluster_ip != "None" &&
         (cluster_ips.empty() || cluster_ips[0] != "None");
}

ServiceIps service_ips(const bj::object& service) {
  ServiceIps s;
  s.type = string_at(service, "spec.type");
  if (s.type.empty()) s.type = "ClusterIP";
  s.cluster_ip = string_at(service, "spec.clusterIP");
  if (const bj::value* ips = find_path(service, "spec.clusterIPs"); ips && ips->is_array()) {
    for (const bj::value& ip : ips->as_array()) {
      if (ip.is_string()) s.cluster_ips.emplace_back(ip.as_string());
    }
  }
  return s;
}

ClusterIpAllocator::ClusterIpAllocator(ObjectStore& store, ServiceCidr range,
                                       std::function<std::uint64_t()> random, Clock clock)
    : store_(store),
      range_(std::move(range)),
      random_(std::move(random)),
      clock_(std::move(clock)),
      watch_(store.watch(services(), "", std::nullopt)) {}

ClusterIpAllocator::~ClusterIpAllocator() { watch_->stop(); }

void ClusterIpAllocator::catch_up() {
  if (watch_->stopped()) {  // the store ended every watch (ObjectStore::stop_watches): start over
    stored_.clear();
    stored_count_.clear();
    watch_ = store_.watch(services(), "", std::nullopt);
  }
  for (;;) {
    std::vector<StoredEvent> events = watch_->next(std::chrono::steady_clock::now());
    if (events.empty()) break;
    for (const StoredEvent& e : events) {
      const std::string key = e.object->ns() + "/" + e.object->name();
      if (auto it = stored_.find(key); it != stored_.end()) {
        for (std::uint32_t ip : it->second) {
          if (--stored_count_[ip] == 0) stored_count_.erase(ip);
        }
        stored_.erase(it);
      }
      if (e.type == EventType::Deleted) continue;
      std::vector<std::uint32_t> ips = held_by(e.object->object());
      for (std::uint32_t ip : ips) {
        ++stored_count_[ip];
        pending_.erase(ip);
      }
      if (!ips.empty()) stored_[key] = std::move(ips);
    }
  }
  const auto now = clock_();
  std::erase_if(pending_, [&](const auto& p) { return p.second <= now; });
}

bool ClusterIpAllocator::held_locked(std::uint32_t ip) const {
  return stored_count_.count(ip) || pending_.count(ip);
}

bool ClusterIpAllocator::held(std::uint32_t ip) {
  std::lock_guard lock(mutex_);
  catch_up();
  return held_locked(ip);
}

void ClusterIpAllocator::admit(AdmissionRequest& request) {
  if (&request.resource != &services() || !request.subresource.empty()) return;
  bj::value& sv = request.object["spec"];
  if (!sv.is_object()) sv = bj::object{};
  bj::object& spec = sv.as_object();
  std::optional<ServiceIps> old;
  if (request.old_object) old = service_ips(*request.old_object);
  normalize(spec, old ? &*old : nullptr);
  const ServiceIps now = service_ips(bj::object{{"spec", spec}});
  if (!now.needs_cluster_ip()) return;
  if (old && old->needs_cluster_ip() && !old->cluster_ips.empty()) {
    if (now.cluster_ips.empty()) {
      refuse(request, "spec.clusterIPs[0]", "[]string(nil)", "primary clusterIP can not be unset");
    }
    if (now.cluster_ips[0] != old->cluster_ips[0]) {
      refuse(request, "spec.clusterIPs[0]", go_strings(now.cluster_ips), "may not change once set");
    }
    return;  // kept
  }
  if (now.cluster_ip.empty() && !now.cluster_ips.empty()) {
    refuse(request, "spec.clusterIPs", go_strings(now.cluster_ips),
           "must be empty when `clusterIP` is not specified");
  }
  if (!now.cluster_ips.empty() && now.cluster_ips[0] != now.cluster_ip) {
    refuse(request, "spec.clusterIPs", go_strings(now.cluster_ips),
           "first value must match `clusterIP`");
  }
  allocate(request, spec);
}

void ClusterIpAllocator::allocate(AdmissionRequest& request, bj::object& spec) {
  const ServiceIps now = service_ips(bj::object{{"spec", spec}});
  std::lock_guard lock(mutex_);
  catch_up();
  std::uint32_t ip = 0;
  if (now.cluster_ip.empty()) {
    auto free = range_.next_free([&](std::uint32_t a) { return held_locked(a); }, random_());
    if (!free) throw internal_error("failed to allocate a serviceIP: range is full");
    ip = *free;
  } else {
    const std::string& text = now.cluster_ip;
    if (text.find(':') != std::string::npos) {
      refuse(request, "spec.clusterIPs[0]", go_strings(now.cluster_ips),
             "IPv6 is not configured on this cluster");
    }
    auto parsed = parse_ipv4(text);
    if (!parsed) {
      refuse(request, "spec.clusterIPs[0]", "\"" + text + "\"",
             "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
    // kube-apiserver's range allocator's words (ipallocator.ErrNotInRange), which name the
    // range; see embedded/README.md for 1.34's multi-range allocator.
    if (!range_.allocatable(*parsed)) {
      refuse(request, "spec.clusterIPs", go_strings(now.cluster_ips),
             "failed to allocate IP " + text + ": the provided IP (" + text +
                 ") is not in the valid range. The range of valid IPs is " + range_.text());
    }
    if (held_locked(*parsed)) {
      refuse(request, "spec.clusterIPs", go_strings(now.cluster_ips),
             "failed to allocate IP " + text + ": provided IP is already allocated");
    }
    ip = *parsed;
  }
  const std::string text = format_ipv4(ip);
  spec["clusterIP"] = text;
  spec["clusterIPs"] = bj::array{bj::string(text)};
  spec["ipFamilies"] = bj::array{"IPv4"};
  if (!spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";
  if (!request.dry_run) pending_[ip] = clock_() + kPendingFor;
}

}  // namespace tailor::embedded
