#include "embedded/storage/object_store.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <shared_mutex>

#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/watch_state.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

std::string resource_key(const ResourceInfo& r) { return r.group + "/" + r.resource; }

bool is_namespaces(const ResourceInfo& r) { return r.group.empty() && r.resource == "namespaces"; }

void set_or_erase(bj::object& o, std::string_view key, const bj::value* value) {
  if (value) {
    o[key] = *value;
  } else {
    o.erase(key);
  }
}

}  // namespace

std::string_view event_type_name(EventType type) {
  switch (type) {
    case EventType::Added:
      return "ADDED";
    case EventType::Modified:
      return "MODIFIED";
    case EventType::Deleted:
      return "DELETED";
  }
  return "ERROR";
}

std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

ObjectPtr create_if_absent(ObjectStore& store, const ResourceInfo& resource, bj::object object) {
  try {
    return store.create(resource, std::move(object));
  } catch (const StatusError& e) {
    if (e.reason() != "AlreadyExists") throw;
    return nullptr;
  }
}

using Collection = std::map<std::string, StoredPtr>;

namespace {

ObjectPtr tree(bj::object object) { return std::make_shared<const bj::object>(std::move(object)); }

// Whether generation moves: any change outside metadata, status and the type fields (spec, or
// a webhook configuration's webhooks), as kube-apiserver's strategies compare objects.
bool desired_state_changed(const bj::object& before, const bj::object& after) {
  auto outside_spec = [](std::string_view k) {
    return k == "metadata" || k == "status" || k == "apiVersion" || k == "kind";
  };
  for (const auto& [key, value] : before) {
    if (outside_spec(key)) continue;
    const bj::value* other = after.if_contains(key);
    if (!other || *other != value) return true;
  }
  // Every key of `before` is in `after` with the same value: only added keys are left.
  for (const auto& [key, value] : after) {
    if (!outside_spec(key) && !before.contains(key)) return true;
  }
  return false;
}

}  // namespace

struct ObjectStore::Impl {
  StoreOptions options;
  mutable std::shared_mutex mu;
  std::uint64_t rv = 0;
  std::map<std::string, Collection> collections;
  std::map<std::string, const ResourceInfo*> infos;  // for cascading namespace deletion
  // Persisted objects whose type the resolver did not know, by resource key (see adopt()).
  std::map<std::string, std::vector<PersistedObject>> pending;
  std::deque<StoredEvent> history;
  std::uint64_t history_floor = 0;
  std::vector<std::shared_ptr<Watch::State>> watchers;
  // rv as readers waiting for a resourceVersion see it: its own mutex, so a waiter never holds
  // mu (writers take fresh_mu inside mu; waiters take only fresh_mu).
  mutable std::mutex fresh_mu;
  mutable std::condition_variable fresh;
  std::uint64_t published = 0;

  void publish() {
    {
      std::lock_guard lock(fresh_mu);
      published = rv;
    }
    fresh.notify_all();
  }

  std::string now() const {
    return kube::format_rfc3339(options.clock ? options.clock()
                                              : kube::TimePoint(std::chrono::system_clock::now()));
  }

  Collection& collection(const ResourceInfo& r) {
    std::string key = resource_key(r);
    infos.emplace(key, &r);
    Collection& c = collections[key];
    if (auto it = pending.find(key); it != pending.end()) {
      for (const PersistedObject& row : it->second) c[row.key] = loaded(r, row);
      pending.erase(it);
    }
    return c;
  }

  // The change is committed to persistence first (a failed commit changes nothing but the
  // resourceVersion counter), then made in memory and offered to watchers.
  void apply(const ResourceInfo& r, EventType type, const StoredPtr& stored, const StoredPtr& old) {
    std::string key = object_key(stored->ns(), stored->name());
    persist(r, type, key, *stored);
    Collection& c = collection(r);
    if (type == EventType::Deleted) {
      c.erase(key);
    } else {
      c[key] = stored;
    }
    record({type, &r, stored, old, rv});
  }

  void persist(const ResourceInfo& r, EventType type, const std::string& key,
               const StoredObject& stored) {
    if (!options.persistence) return;
    try {
      if (type == EventType::Deleted) {
        options.persistence->remove(resource_key(r), key, rv);
      } else {
        options.persistence->put(resource_key(r), key, rv, stored.json());
      }
    } catch (const std::exception& e) {
      throw internal_error(e.what());
    }
  }

  // Everything persisted: objects of known types into their collections, the others kept aside
  // until their type is adopted; the history starts empty at the persisted resourceVersion.
  void load() {
    PersistedState state = options.persistence->load_all();
    rv = state.resource_version;
    for (PersistedObject& row : state.objects) {
      std::size_t slash = row.resource.rfind('/');
      const ResourceInfo* r =
          options.resolve && slash != std::string::npos
              ? options.resolve(row.resource.substr(0, slash), row.resource.substr(slash + 1))
              : nullptr;
      if (!r) {
        parsed(row);  // checked now: a corrupt row stops the start, not a later adopt()
        pending[row.resource].push_back(std::move(row));
        continue;
      }
      infos.emplace(row.resource, r);
      StoredPtr stored = loaded(*r, row);
      rv = std::max(rv, stored->resource_version());
      collections[row.resource][row.key] = std::move(stored);
    }
    history_floor = rv;
    publish();
  }

  static bj::object parsed(const PersistedObject& row) {
    bj::value v;
    try {
      v = parse_json_text(row.json);  // as deep as the API accepted it
    } catch (const std::exception& e) {
      throw std::runtime_error("stored " + row.resource + " " + row.key +
                               " is not valid JSON: " + e.what());
    }
    if (!v.is_object()) {
      throw std::runtime_error("stored " + row.resource + " " + row.key + " is not an object");
    }
    return std::move(v.as_object());
  }

  static StoredPtr loaded(const ResourceInfo& r, const PersistedObject& row) {
    return std::make_shared<const StoredObject>(r, parsed(row));
  }

  const Collection* find_collection(const ResourceInfo& r) const {
    auto it = collections.find(resource_key(r));
    return it == collections.end() ? nullptr : &it->second;
  }

  StoredPtr find(const ResourceInfo& r, const std::string& ns, const std::string& name) const {
    const Collection* c = find_collection(r);
    if (!c) return nullptr;
    auto it = c->find(object_key(r.namespaced ? ns : "", name));
    return it == c->end() ? nullptr : it->second;
  }

  StoredPtr find_existing(const ResourceInfo& r, const std::string& ns,
                          const std::string& name) const {
    StoredPtr o = find(r, ns, name);
    if (!o) throw not_found(r.group_resource(), name);
    return o;
  }

  // Gives object the next resourceVersion and serialises it: the revision every reader shares.
  StoredPtr stamp(const ResourceInfo& r, bj::object& object) {
    metadata(object)["resourceVersion"] = std::to_string(++rv);
    return std::make_shared<const StoredObject>(r, object);
  }

  void record(StoredEvent event) {
    std::string key = resource_key(*event.resource);
    const std::string& ns = event.object->ns();
    std::erase_if(watchers, [](const auto& w) {
      std::lock_guard lock(w->mu);
      return w->stopped;
    });
    for (const auto& w : watchers) {
      bool match = w->resource_key == key && (w->ns.empty() || w->ns == ns);
      w->push(match ? &event : nullptr, event.resource_version);
    }
    history.push_back(std::move(event));
    publish();
    if (history.size() > options.history_size) {
      history_floor = history.front().resource_version;
      history.pop_front();
    }
  }

  // current is old parsed: the base of the new revision and what it is compared with.
  ObjectPtr commit_update(const ResourceInfo& r, const StoredPtr& old, bj::object current,
                          bj::object next, UpdateScope scope) {
    bj::object result;
    if (scope == UpdateScope::Status) {
      result = current;
      set_or_erase(result, "status", next.if_contains("status"));
    } else {
      result = std::move(next);
      bj::object& meta = metadata(result);
      const bj::object& old_meta = current.at("metadata").as_object();
      for (std::string_view key : {"uid", "creationTimestamp", "generation", "deletionTimestamp",
                                   "deletionGracePeriodSeconds", "namespace", "name"}) {
        set_or_erase(meta, key, old_meta.if_contains(key));
      }
      if (r.has_subresource("status")) {
        set_or_erase(result, "status", current.if_contains("status"));
      }
      if (r.tracks_generation && scope != UpdateScope::Binding &&
          desired_state_changed(current, result)) {
        meta["generation"] = old_meta.at("generation").to_number<std::int64_t>() + 1;
      }
      result["apiVersion"] = r.api_version();
      result["kind"] = r.kind;
    }
    metadata(result)["resourceVersion"] = meta_string(current, "resourceVersion");
    if (result == current) return tree(std::move(current));  // no change: no new RV, no event
    if (finalized(result)) return erase(r, old, std::move(current));
    return replace(r, old, std::move(result));
  }

  // Marked for deletion at grace 0 with no finalizers left: the update completes the deletion.
  static bool finalized(const bj::object& o) {
    const bj::value* grace = find_path(o, "metadata.deletionGracePeriodSeconds");
    return !meta_string(o, "deletionTimestamp").empty() && !has_finalizers(o) && grace &&
           grace->is_number() && grace->to_number<std::int64_t>() == 0;
  }

  static bool has_finalizers(const bj::object& o) {
    const bj::value* f = find_path(o, "metadata.finalizers");
    return f && f->is_array() && !f->as_array().empty();
  }

  static bool has_finalizer(const bj::object& o, std::string_view name) {
    const bj::value* f = find_path(o, "metadata.finalizers");
    if (!f || !f->is_array()) return false;
    const bj::array& a = f->as_array();
    return std::any_of(a.begin(), a.end(),
                       [&](const bj::value& v) { return v.is_string() && v.as_string() == name; });
  }

  ObjectPtr replace(const ResourceInfo& r, const StoredPtr& old, bj::object result) {
    apply(r, EventType::Modified, stamp(r, result), old);
    return tree(std::move(result));
  }

  // last: old parsed; it goes out as the DELETED event's object at the deletion's RV.
  ObjectPtr erase(const ResourceInfo& r, const StoredPtr& old, bj::object last) {
    apply(r, EventType::Deleted, stamp(r, last), old);
    return tree(std::move(last));
  }

  void erase_namespace_contents(const std::string& ns) {
    for (auto& [key, objects] : collections) {
      const ResourceInfo& r = *infos.at(key);
      if (!r.namespaced) continue;
      std::vector<StoredPtr> doomed;
      for (auto it = objects.lower_bound(ns + "/");
           it != objects.end() && it->first.starts_with(ns + "/"); ++it) {
        doomed.push_back(it->second);
      }
      for (const StoredPtr& o : doomed) erase(r, o, o->object());
    }
  }
};

ObjectStore::ObjectStore(StoreOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.persistence) impl_->load();
}

void ObjectStore::adopt(const ResourceInfo& r) {
  std::unique_lock lock(impl_->mu);
  impl_->collection(r);
}

ObjectStore::~ObjectStore() { stop_watches(); }

ObjectPtr ObjectStore::create(const ResourceInfo& r, bj::object object) {
  std::unique_lock lock(impl_->mu);
  bj::object& meta = metadata(object);
  std::string ns = r.namespaced ? meta_string(object, "namespace") : "";
  if (r.namespaced && ns.empty()) {
    throw bad_request("the namespace of the object must be set for " + r.resource);
  }
  if (!r.namespaced) meta.erase("namespace");
  static const ResourceInfo kNamespaces{.resource = "namespaces", .namespaced = false};
  if (r.namespaced && !impl_->find(kNamespaces, "", ns)) {
    throw not_found({"", "namespaces"}, ns);
  }
  std::string name = meta_string(object, "name");
  if (name.empty()) {
    std::string prefix = meta_string(object, "generateName");
    if (prefix.empty()) {
      throw invalid(r.group, r.kind, "",
                    {{"FieldValueRequired", "Required value: name or generateName is required",
                      "metadata.name"}});
    }
    do {
      name = prefix + random_name_suffix();
    } while (impl_->find(r, ns, name));
    meta["name"] = name;
  }
  if (impl_->find(r, ns, name)) throw already_exists(r.group_resource(), name);
  if (meta_string(object, "uid").empty()) meta["uid"] = new_uid();  // else admission chose it
  meta["creationTimestamp"] = impl_->now();
  meta.erase("deletionTimestamp");
  if (r.tracks_generation) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  object["apiVersion"] = r.api_version();
  object["kind"] = r.kind;
  impl_->apply(r, EventType::Added, impl_->stamp(r, object), nullptr);
  return tree(std::move(object));
}

ObjectPtr ObjectStore::get(const ResourceInfo& r, const std::string& ns,
                           const std::string& name) const {
  return tree(get_stored(r, ns, name)->object());
}

StoredPtr ObjectStore::get_stored(const ResourceInfo& r, const std::string& ns,
                                  const std::string& name) const {
  std::shared_lock lock(impl_->mu);
  return impl_->find_existing(r, ns, name);
}

namespace {

void check_version(const ResourceInfo& r, const StoredObject& old, const bj::object& wanted) {
  std::string rv = meta_string(wanted, "resourceVersion");
  if (!rv.empty() && rv != std::to_string(old.resource_version())) {
    throw conflict(r.group_resource(), old.name(), kObjectModified);
  }
}

}  // namespace

ObjectPtr ObjectStore::update(const ResourceInfo& r, bj::object object, UpdateScope scope) {
  std::unique_lock lock(impl_->mu);
  StoredPtr old =
      impl_->find_existing(r, meta_string(object, "namespace"), meta_string(object, "name"));
  check_version(r, *old, object);
  return impl_->commit_update(r, old, old->object(), std::move(object), scope);
}

ObjectPtr ObjectStore::modify(const ResourceInfo& r, const std::string& ns, const std::string& name,
                              const Mutation& mutate, UpdateScope scope) {
  std::unique_lock lock(impl_->mu);
  StoredPtr old = impl_->find_existing(r, ns, name);
  bj::object current = old->object();
  bj::object next = mutate(current);
  check_version(r, *old, next);
  return impl_->commit_update(r, old, std::move(current), std::move(next), scope);
}

Removal ObjectStore::remove(const ResourceInfo& r, const std::string& ns, const std::string& name,
                            const Preconditions& pre, std::int64_t grace_seconds,
                            const std::string& finalizer) {
  std::unique_lock lock(impl_->mu);
  StoredPtr old = impl_->find_existing(r, ns, name);
  bj::object current = old->object();
  std::string uid = meta_string(current, "uid");
  if (!pre.uid.empty() && pre.uid != uid) {
    throw conflict(
        r.group_resource(), name,
        "Precondition failed: UID in precondition: " + pre.uid + ", UID in object meta: " + uid);
  }
  std::string rv = meta_string(current, "resourceVersion");
  if (!pre.resource_version.empty() && pre.resource_version != rv) {
    throw conflict(r.group_resource(), name,
                   "Precondition failed: ResourceVersion in precondition: " + pre.resource_version +
                       ", ResourceVersion in object meta: " + rv);
  }
  bool add = !finalizer.empty() && !Impl::has_finalizer(current, finalizer);
  if (grace_seconds > 0 || add || Impl::has_finalizers(current)) {
    kube::TimePoint now = impl_->options.clock ? impl_->options.clock()
                                               : kube::TimePoint(std::chrono::system_clock::now());
    std::string deadline = kube::format_rfc3339(now + std::chrono::seconds(grace_seconds));
    std::string marked = meta_string(current, "deletionTimestamp");
    bool earlier_mark = !marked.empty() && marked <= deadline;
    if (earlier_mark && !add) return {tree(std::move(current)), false};
    bj::object next = current;
    if (add) {
      bj::value& finalizers = metadata(next)["finalizers"];
      if (!finalizers.is_array()) finalizers = bj::array{};
      finalizers.as_array().emplace_back(finalizer);
    }
    if (!earlier_mark) {
      metadata(next)["deletionTimestamp"] = deadline;
      metadata(next)["deletionGracePeriodSeconds"] = grace_seconds;
    }
    return {impl_->replace(r, old, std::move(next)), false};
  }
  if (is_namespaces(r)) impl_->erase_namespace_contents(name);
  return {impl_->erase(r, old, std::move(current)), true};
}

ListPage ObjectStore::list(const ResourceInfo& r, const std::string& ns, const ObjectFilter& filter,
                           std::size_t limit, const std::string& start_after) const {
  std::shared_lock lock(impl_->mu);
  ListPage page;
  page.resource_version = impl_->rv;
  const Collection* c = impl_->find_collection(r);
  if (!c) return page;
  std::string prefix = r.namespaced && !ns.empty() ? ns + "/" : "";
  auto it = start_after.empty() ? c->lower_bound(prefix) : c->upper_bound(start_after);
  for (; it != c->end() && it->first.starts_with(prefix); ++it) {
    if (filter && !filter(*it->second)) continue;
    if (limit && page.items.size() == limit) {
      ++page.remaining;
      continue;
    }
    page.items.push_back(it->second);
  }
  if (page.remaining) {
    const StoredObject& last = *page.items.back();
    page.last_key = object_key(last.ns(), last.name());
  }
  return page;
}

std::vector<ObjectPtr> ObjectStore::list_objects(const ResourceInfo& r,
                                                 const std::string& ns) const {
  std::vector<ObjectPtr> out;
  for (const StoredPtr& o : list(r, ns, nullptr).items) out.push_back(tree(o->object()));
  return out;
}

std::shared_ptr<Watch> ObjectStore::watch(const ResourceInfo& r, const std::string& ns,
                                          std::optional<std::uint64_t> after) {
  std::unique_lock lock(impl_->mu);
  if (after && *after < impl_->history_floor) {
    throw expired("too old resource version: " + std::to_string(*after) + " (" +
                  std::to_string(impl_->history_floor) + ")");
  }
  auto state = std::make_shared<Watch::State>();
  state->resource_key = resource_key(r);
  state->ns = r.namespaced ? ns : "";
  state->progress = impl_->rv;
  state->drained = after ? *after : 0;
  if (after) {
    for (const StoredEvent& e : impl_->history) {
      if (e.resource_version <= *after || resource_key(*e.resource) != state->resource_key)
        continue;
      if (!state->ns.empty() && e.object->ns() != state->ns) continue;
      state->queue.push_back(e);
    }
  } else if (const Collection* c = impl_->find_collection(r)) {
    std::string prefix = state->ns.empty() ? "" : state->ns + "/";
    for (auto it = c->lower_bound(prefix); it != c->end() && it->first.starts_with(prefix); ++it) {
      state->queue.push_back({EventType::Added, &r, it->second, nullptr, impl_->rv});
    }
  }
  if (state->queue.empty()) state->drained = impl_->rv;
  impl_->watchers.push_back(state);
  return std::make_shared<Watch>(state);
}

std::uint64_t ObjectStore::resource_version() const {
  std::shared_lock lock(impl_->mu);
  return impl_->rv;
}

std::uint64_t ObjectStore::wait_for_version(std::uint64_t wanted,
                                            std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->fresh_mu);
  impl_->fresh.wait_for(lock, timeout, [&] { return impl_->published >= wanted; });
  return impl_->published;
}

std::uint64_t ObjectStore::oldest_resumable() const {
  std::shared_lock lock(impl_->mu);
  return impl_->history_floor;
}

std::size_t ObjectStore::watch_count() const {
  std::shared_lock lock(impl_->mu);
  return static_cast<std::size_t>(
      std::count_if(impl_->watchers.begin(), impl_->watchers.end(), [](const auto& w) {
        std::lock_guard wl(w->mu);
        return !w->stopped;
      }));
}

void ObjectStore::stop_watches() {
  std::unique_lock lock(impl_->mu);
  for (const auto& w : impl_->watchers) {
    {
      std::lock_guard wl(w->mu);
      w->stopped = true;
    }
    w->cv.notify_all();
  }
  impl_->watchers.clear();
}

}  // namespace tailor::embedded
