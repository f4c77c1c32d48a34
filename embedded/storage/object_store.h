// ObjectStore: the API server's storage, served from memory. JSON documents per resource type (each
// revision kept once as shared, immutable JSON text: StoredObject), one global monotonically
// increasing resourceVersion (like etcd's revision), uid / creationTimestamp / generation
// bookkeeping, optimistic concurrency, and watches resumable within a bounded history window (older
// resourceVersions get 410 Expired, as from kube-apiserver's watch cache). With a Persistence every
// change is committed there before the write returns, and a new store starts from what it holds:
// the same objects, the resourceVersion sequence continued, and an empty history (so a watch or
// continue token from before the restart gets 410 and re-lists). Pure logic: no HTTP; selectors are
// applied by the caller.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/storage/persistence.h"
#include "embedded/storage/resource_info.h"
#include "embedded/storage/stored_object.h"
#include "kube/model/time.h"

namespace tailor::embedded {

// A JSON tree owned by the caller: what get() parses and what writes return.
using ObjectPtr = std::shared_ptr<const boost::json::object>;

enum class EventType { Added, Modified, Deleted };
std::string_view event_type_name(EventType type);  // "ADDED", "MODIFIED", "DELETED"

struct StoredEvent {
  EventType type;
  const ResourceInfo* resource;
  StoredPtr object;    // after the change; for Deleted the last state at the deletion's RV
  StoredPtr previous;  // before the change (Modified, Deleted); null for Added
  std::uint64_t resource_version;
};

// The resource type persisted objects belong to, by group and plural; null when not known yet
// (a custom resource before its CRD is served: see ObjectStore::adopt).
using ResourceResolver =
    std::function<const ResourceInfo*(const std::string& group, const std::string& resource)>;

struct StoreOptions {
  std::size_t history_size = 10000;            // changes kept for resuming watches
  std::function<kube::TimePoint()> clock{};    // creationTimestamp; unset: system clock
  std::shared_ptr<Persistence> persistence{};  // null: memory only (lost on exit)
  ResourceResolver resolve{};                  // for persisted objects; needs persistence
};

// A subscription to changes of one resource type (optionally one namespace).
class Watch {
 public:
  struct State;
  explicit Watch(std::shared_ptr<State> state);
  ~Watch();  // unsubscribes
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  // The queued events; waits until deadline for at least one. Empty on timeout or stop.
  std::vector<StoredEvent> next(std::chrono::steady_clock::time_point deadline);
  // Every change up to this resourceVersion has been returned by next(): a safe bookmark.
  std::uint64_t progress() const;
  void stop();
  bool stopped() const;

 private:
  std::shared_ptr<State> state_;
};

// Binding: as Main without the generation bump (kube-apiserver's pods/binding writes spec.nodeName
// straight to storage, past the pod strategy that bumps generation).
enum class UpdateScope { Main, Status, Binding };

struct Preconditions {
  std::string uid{};
  std::string resource_version{};
};

struct ListPage {
  std::vector<StoredPtr> items;
  std::uint64_t resource_version = 0;
  std::string last_key;  // "namespace/name" of the last item when more remain; else ""
  std::size_t remaining = 0;
};

struct Removal {
  ObjectPtr object;  // the deleted object, or the one now marked for deletion
  bool deleted = false;
};

using ObjectFilter = std::function<bool(const StoredObject&)>;
using Mutation = std::function<boost::json::object(const boost::json::object&)>;

class ObjectStore {
 public:
  // Loads what options.persistence holds; throws std::runtime_error when that cannot be read or
  // an object in it is not valid JSON (a store never starts empty over a database it cannot read).
  explicit ObjectStore(StoreOptions options = {});
  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // metadata.name (or generateName) and, when namespaced, metadata.namespace must be set; the
  // namespace must exist.
  ObjectPtr create(const ResourceInfo& resource, boost::json::object object);
  // A parsed copy of the stored object.
  ObjectPtr get(const ResourceInfo& resource, const std::string& ns, const std::string& name) const;
  // The stored revision itself (its JSON text as stored, no parse).
  StoredPtr get_stored(const ResourceInfo& resource, const std::string& ns,
                       const std::string& name) const;
  // PUT semantics: a non-empty metadata.resourceVersion must match (else 409 Conflict). Main
  // keeps the stored status when the type has a status subresource; Status changes only status.
  ObjectPtr update(const ResourceInfo& resource, boost::json::object object,
                   UpdateScope scope = UpdateScope::Main);
  // Read-modify-write under the store's lock (patches): mutate gets the current object and
  // returns the wanted one; then as update() without the resourceVersion check unless the
  // result carries a different one.
  ObjectPtr modify(const ResourceInfo& resource, const std::string& ns, const std::string& name,
                   const Mutation& mutate, UpdateScope scope = UpdateScope::Main);
  // Deletes now when grace_seconds is 0 and the object has no finalizers (deleting a namespace
  // deletes everything in it). Otherwise only marks it: deletionTimestamp (now + grace, never
  // later than an earlier mark) and deletionGracePeriodSeconds; the object goes when an update
  // removes its last finalizer at grace 0, or on a later delete with grace 0 (the kubelet's).
  // A non-empty `finalizer` is added as the object is marked (DeleteOptions' propagationPolicy:
  // "orphan" or "foregroundDeletion", which the garbage collector then works off).
  Removal remove(const ResourceInfo& resource, const std::string& ns, const std::string& name,
                 const Preconditions& preconditions = {}, std::int64_t grace_seconds = 0,
                 const std::string& finalizer = "");
  // Objects sorted by namespace/name, after start_after ("namespace/name"), at most limit
  // matching ones (0: all). The items are the stored revisions, shared, not copies.
  ListPage list(const ResourceInfo& resource, const std::string& ns, const ObjectFilter& filter,
                std::size_t limit = 0, const std::string& start_after = "") const;
  // Every object of the type (in ns when given), parsed: for control loops and admission.
  std::vector<ObjectPtr> list_objects(const ResourceInfo& resource, const std::string& ns) const;
  // Changes after resource_version `after`; nullopt: first an ADDED event per current object.
  // Throws 410 Expired when `after` is older than the history window.
  std::shared_ptr<Watch> watch(const ResourceInfo& resource, const std::string& ns,
                               std::optional<std::uint64_t> after);
  // Persisted objects of r's type that the resolver did not know at load time (custom resources)
  // join the store: after this, r's objects are served. Idempotent.
  void adopt(const ResourceInfo& r);
  std::uint64_t resource_version() const;
  // Waits up to `timeout` for the store to reach resourceVersion `wanted` (a read asking for at
  // least that one, as the watch cache does); returns the store's resourceVersion then.
  std::uint64_t wait_for_version(std::uint64_t wanted, std::chrono::milliseconds timeout) const;
  // The oldest resourceVersion a watch can resume from.
  std::uint64_t oldest_resumable() const;
  std::size_t watch_count() const;  // open watches
  void stop_watches();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// create() unless an object of that name exists (what a server makes at start, when it restarts
// on its persisted objects); null then.
ObjectPtr create_if_absent(ObjectStore& store, const ResourceInfo& resource,
                           boost::json::object object);

// The stored key of an object: "namespace/name" ("/name" when cluster-scoped).
std::string object_key(const std::string& ns, const std::string& name);

}  // namespace tailor::embedded
