#include "embedded/crd/custom_resources.h"

#include <set>

#include "embedded/api/resources.h"
#include "embedded/crd/printer.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/time.h"

namespace tailor::embedded::crd {
namespace {

const ResourceInfo& crds() {
  static const ResourceInfo* r =
      find_resource("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  return *r;
}

std::string resource_key(const std::string& group, const std::string& plural) {
  return group + "/" + plural;
}

bj::object condition(const char* type, bool ok, const std::string& reason,
                     const std::string& message) {
  return {
      {"type", type}, {"status", ok ? "True" : "False"}, {"reason", reason}, {"message", message}};
}

// Keeps lastTransitionTime of conditions whose status did not change.
void stamp_transitions(bj::array& conditions, const bj::value* old_conditions) {
  std::string now = kube::format_rfc3339(kube::TimePoint(std::chrono::system_clock::now()));
  for (bj::value& c : conditions) {
    bj::object& co = c.as_object();
    co["lastTransitionTime"] = now;
    if (!old_conditions || !old_conditions->is_array()) continue;
    for (const bj::value& old : old_conditions->as_array()) {
      if (old.is_object() && string_at(old, "type") == string_at(co, "type") &&
          string_at(old, "status") == string_at(co, "status")) {
        if (const bj::value* t = old.as_object().if_contains("lastTransitionTime"))
          co["lastTransitionTime"] = *t;
      }
    }
  }
}

bj::array strings(const std::vector<std::string>& v) {
  bj::array a;
  for (const std::string& s : v) a.push_back(bj::string(s));
  return a;
}

bj::object accepted_names(const Definition& d) {
  bj::object names{
      {"plural", d.plural}, {"singular", d.singular}, {"kind", d.kind}, {"listKind", d.list_kind}};
  if (!d.short_names.empty()) names["shortNames"] = strings(d.short_names);
  if (!d.categories.empty()) names["categories"] = strings(d.categories);
  return names;
}

bj::array stored_versions(const bj::object& crd, const Definition& d) {
  bj::array out;
  if (const bj::value* old = find_path(crd, "status.storedVersions"); old && old->is_array())
    out = old->as_array();
  for (const Version& v : d.versions) {
    if (v.storage && std::find(out.begin(), out.end(), bj::value(v.name)) == out.end())
      out.push_back(bj::string(v.name));
  }
  return out;
}

}  // namespace

CustomResources::CustomResources(ObjectStore& store) : store_(store) {}

CustomResources::~CustomResources() {
  forget_custom_resources(this);
  if (watch_) watch_->stop();
  if (thread_.joinable()) thread_.join();
}

void CustomResources::start(const std::weak_ptr<CustomResources>& self) {
  watch_ = store_.watch(crds(), "", std::nullopt);
  set_custom_resource_refresher(this, [self] {
    if (std::shared_ptr<CustomResources> s = self.lock()) s->sync();
  });
  thread_ = std::thread([this] { run(); });
}

void CustomResources::run() {
  while (!watch_->stopped()) {
    std::vector<StoredEvent> events =
        watch_->next(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    if (events.empty()) continue;
    try {
      sync();
    } catch (const std::exception&) {
      // A CRD write racing with this one: the next event reconciles again.
    }
  }
}

void CustomResources::sync() {
  std::lock_guard lock(sync_mu_);
  std::set<std::string> present;
  for (const ObjectPtr& crd : store_.list_objects(crds(), "")) {
    std::string name = meta_string(*crd, "name");
    present.insert(name);
    auto it = served_.find(name);
    if (it == served_.end() || it->second.resource_version != meta_string(*crd, "resourceVersion"))
      reconcile(*crd);
  }
  std::vector<std::string> gone;
  for (const auto& [name, served] : served_) {
    if (!present.contains(name)) gone.push_back(name);
  }
  for (const std::string& name : gone) forget(name);
}

void CustomResources::reconcile(const bj::object& crd) {
  std::string name = meta_string(crd, "name");
  auto d = std::make_shared<const Definition>(parse_definition(crd));
  Served& served = served_[name];
  if (served.accepted &&
      (served.definition->group != d->group || served.definition->plural != d->plural)) {
    forget(name);  // cannot happen through the API (both are immutable); be safe
  }
  Served& s = served_[name];
  s.resource_version = meta_string(crd, "resourceVersion");
  std::string conflict = name_conflict(*d);
  s.definition = d;
  s.accepted = conflict.empty();
  std::vector<ResourceInfo> infos;
  if (s.accepted) infos = d->resource_infos();
  std::vector<const ResourceInfo*> pointers = serve_custom_resources(this, name, infos);
  // Objects persisted before a restart are served from here on (one info stands for all versions).
  if (!pointers.empty()) store_.adopt(*pointers.front());
  for (const ResourceInfo* info : pointers) {
    set_printer(*info, d->version(info->version)->columns);
    s.any_info = info;
  }
  {
    std::unique_lock lock(defs_mu_);
    if (s.accepted) by_resource_[resource_key(d->group, d->plural)] = d;
  }
  write_status(crd, *d, conflict);
}

std::string CustomResources::name_conflict(const Definition& d) const {
  for (const auto& [name, other] : served_) {
    if (name == d.name || !other.accepted || other.definition->group != d.group) continue;
    const Definition& o = *other.definition;
    std::set<std::string> taken{o.plural, o.singular};
    taken.insert(o.short_names.begin(), o.short_names.end());
    std::vector<std::string> mine{d.plural, d.singular};
    mine.insert(mine.end(), d.short_names.begin(), d.short_names.end());
    for (const std::string& n : mine) {
      if (taken.contains(n)) return "\"" + n + "\" is already in use";
    }
    if (o.kind == d.kind || o.list_kind == d.list_kind) {
      return "\"" + (o.kind == d.kind ? d.kind : d.list_kind) + "\" is already in use";
    }
  }
  return "";
}

void CustomResources::write_status(const bj::object& crd, const Definition& d,
                                   const std::string& conflict) {
  bool accepted = conflict.empty();
  bj::array conditions{
      condition("NamesAccepted", accepted, accepted ? "NoConflicts" : "NameConflict",
                accepted ? "no conflicts found" : conflict),
      condition("Established", accepted, accepted ? "InitialNamesAccepted" : "NotAccepted",
                accepted ? "the initial names have been accepted" : "not all names are accepted")};
  stamp_transitions(conditions, find_path(crd, "status.conditions"));
  bj::object status{{"conditions", std::move(conditions)},
                    {"acceptedNames", accepted ? accepted_names(d) : bj::object{}},
                    {"storedVersions", stored_versions(crd, d)}};
  const bj::value* old = crd.if_contains("status");
  if (old && *old == status) return;
  bj::object next = crd;
  next["status"] = std::move(status);
  ObjectPtr written = store_.update(crds(), std::move(next), UpdateScope::Status);
  served_[d.name].resource_version = meta_string(*written, "resourceVersion");
}

void CustomResources::forget(const std::string& name) {
  auto it = served_.find(name);
  if (it == served_.end()) return;
  Served s = it->second;
  served_.erase(it);
  serve_custom_resources(this, name, {});
  if (!s.accepted) return;
  {
    std::unique_lock lock(defs_mu_);
    by_resource_.erase(resource_key(s.definition->group, s.definition->plural));
  }
  if (s.any_info) remove_objects(*s.any_info);
}

// As the CRD finalizer: every object goes (its finalizers are not waited for).
void CustomResources::remove_objects(const ResourceInfo& resource) {
  for (const StoredPtr& o : store_.list(resource, "", {}).items) {
    const std::string& ns = o->ns();
    const std::string& name = o->name();
    try {
      if (store_.remove(resource, ns, name).deleted) continue;
      store_.modify(resource, ns, name, [](const bj::object& current) {
        bj::object next = current;
        metadata(next).erase("finalizers");
        return next;
      });
    } catch (const StatusError& e) {
      if (e.code() != 404) throw;
    }
  }
}

std::shared_ptr<const Definition> CustomResources::definition(const ResourceInfo& resource) const {
  std::shared_lock lock(defs_mu_);
  auto it = by_resource_.find(resource_key(resource.group, resource.resource));
  return it == by_resource_.end() ? nullptr : it->second;
}

}  // namespace tailor::embedded::crd
