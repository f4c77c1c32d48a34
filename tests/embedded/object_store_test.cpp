#include "embedded/storage/object_store.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

const ResourceInfo kNamespaces{
    .resource = "namespaces", .singular = "namespace", .kind = "Namespace", .namespaced = false};
const ResourceInfo kPods{.version = "v1",
                         .resource = "pods",
                         .singular = "pod",
                         .kind = "Pod",
                         .subresources = {"status"},
                         .tracks_generation = true};
const ResourceInfo kLeases{.group = "coordination.k8s.io",
                           .version = "v1",
                           .resource = "leases",
                           .singular = "lease",
                           .kind = "Lease"};

bj::object pod(const std::string& ns, const std::string& name, const std::string& image = "a") {
  return bj::parse(R"({"metadata":{"name":")" + name + R"(","namespace":")" + ns +
                   R"("},"spec":{"containers":[{"name":"c","image":")" + image + R"("}]}})")
      .as_object();
}

bj::object named(const std::string& name) {
  return bj::object{{"metadata", bj::object{{"name", name}}}};
}

std::vector<std::string> drain(Watch& w) {
  std::vector<std::string> out;
  for (const StoredEvent& e : w.next(std::chrono::steady_clock::now())) {
    out.push_back(std::string(event_type_name(e.type)) + " " + e.object->name() + " " +
                  std::to_string(e.object->resource_version()));
  }
  return out;
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  ObjectStoreTest() { store.create(kNamespaces, named("default")); }
  ObjectStore store{StoreOptions{.history_size = 4}};
};

std::string status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const StatusError& e) {
    return e.to_json();
  }
  return "no error";
}

TEST_F(ObjectStoreTest, CreateFillsMetadata) {
  ObjectPtr p = store.create(kPods, pod("default", "web"));
  EXPECT_EQ(meta_string(*p, "resourceVersion"), "2");
  EXPECT_EQ(meta_string(*p, "uid").size(), 36u);
  EXPECT_EQ(meta_string(*p, "uid")[14], '4');
  EXPECT_FALSE(meta_string(*p, "creationTimestamp").empty());
  EXPECT_EQ(p->at("metadata").at("generation").as_int64(), 1);
  EXPECT_EQ(p->at("kind").as_string(), "Pod");
  EXPECT_EQ(p->at("apiVersion").as_string(), "v1");
  EXPECT_EQ(store.resource_version(), 2u);
}

TEST_F(ObjectStoreTest, GenerateName) {
  bj::object o = pod("default", "");
  metadata(o).erase("name");
  metadata(o)["generateName"] = "web-";
  ObjectPtr p = store.create(kPods, o);
  EXPECT_EQ(meta_string(*p, "name").size(), 9u);
  EXPECT_TRUE(meta_string(*p, "name").starts_with("web-"));
}

TEST_F(ObjectStoreTest, ErrorsAsKubeApiserver) {
  store.create(kPods, pod("default", "web"));
  EXPECT_EQ(
      status_of([&] { store.create(kPods, pod("default", "web")); }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"web\" already exists","reason":"AlreadyExists","details":{"name":"web","kind":"pods"},"code":409})");
  EXPECT_EQ(
      status_of([&] { store.get(kPods, "default", "nope"); }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"pods"},"code":404})");
  EXPECT_EQ(
      status_of([&] { store.create(kPods, pod("missing", "web")); }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"missing\" not found","reason":"NotFound","details":{"name":"missing","kind":"namespaces"},"code":404})");
  EXPECT_EQ(
      status_of([&] { store.get(kLeases, "default", "x"); }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"x\" not found","reason":"NotFound","details":{"name":"x","group":"coordination.k8s.io","kind":"leases"},"code":404})");
  EXPECT_EQ(
      status_of([&] {
        store.create(kPods, bj::object{{"metadata", bj::object{{"namespace", "default"}}}});
      }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"\" is invalid: metadata.name: Required value: name or generateName is required","reason":"Invalid","details":{"kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value: name or generateName is required","field":"metadata.name"}]},"code":422})");
}

TEST_F(ObjectStoreTest, StaleUpdateConflicts) {
  ObjectPtr v1 = store.create(kPods, pod("default", "web"));
  bj::object change = *v1;
  change["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "b";
  ObjectPtr v2 = store.update(kPods, change);
  EXPECT_EQ(v2->at("metadata").at("generation").as_int64(), 2);
  EXPECT_EQ(
      status_of([&] { store.update(kPods, change); }),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","kind":"pods"},"code":409})");
}

TEST_F(ObjectStoreTest, UpdateKeepsIdentityAndStatus) {
  bj::object o = pod("default", "web");
  o["status"] = bj::object{{"phase", "Pending"}};
  ObjectPtr v1 = store.create(kPods, o);
  bj::object change = *v1;
  metadata(change)["uid"] = "other";
  metadata(change)["labels"] = bj::object{{"a", "b"}};
  change["status"] = bj::object{{"phase", "Running"}};
  ObjectPtr v2 = store.update(kPods, change);
  EXPECT_EQ(meta_string(*v2, "uid"), meta_string(*v1, "uid"));
  EXPECT_EQ(v2->at("status").at("phase").as_string(), "Pending");
  EXPECT_EQ(v2->at("metadata").at("generation").as_int64(), 1);  // spec unchanged

  metadata(change)["resourceVersion"] = meta_string(*v2, "resourceVersion");
  ObjectPtr v3 = store.update(kPods, change, UpdateScope::Status);
  EXPECT_EQ(v3->at("status").at("phase").as_string(), "Running");
  EXPECT_EQ(v3->at("metadata").at("labels"), v2->at("metadata").at("labels"));
}

TEST_F(ObjectStoreTest, NoOpUpdateKeepsResourceVersion) {
  ObjectPtr v1 = store.create(kPods, pod("default", "web"));
  ObjectPtr same = store.update(kPods, *v1);
  EXPECT_EQ(meta_string(*same, "resourceVersion"), meta_string(*v1, "resourceVersion"));
  EXPECT_EQ(store.resource_version(), 2u);
}

TEST_F(ObjectStoreTest, ModifyAppliesUnderLock) {
  store.create(kPods, pod("default", "web"));
  ObjectPtr p = store.modify(kPods, "default", "web", [](const bj::object& current) {
    bj::object next = current;
    metadata(next)["labels"] = bj::object{{"x", "y"}};
    return next;
  });
  EXPECT_EQ(p->at("metadata").at("labels").at("x").as_string(), "y");
}

TEST_F(ObjectStoreTest, DeletePreconditions) {
  store.create(kPods, pod("default", "web"));
  EXPECT_EQ(status_of([&] {
              store.remove(kPods, "default", "web", {.uid = "u"});
            }).find("Precondition failed: UID in precondition: u, UID in object meta: ") !=
                std::string::npos,
            true);
  ObjectPtr gone = store.remove(kPods, "default", "web").object;
  EXPECT_EQ(meta_string(*gone, "resourceVersion"), "3");
  EXPECT_THROW(store.get(kPods, "default", "web"), StatusError);
}

TEST_F(ObjectStoreTest, GracefulDeletionMarksThenDeletes) {
  store.create(kPods, pod("default", "web"));
  Removal marked = store.remove(kPods, "default", "web", {}, 30);
  EXPECT_FALSE(marked.deleted);
  EXPECT_FALSE(meta_string(*marked.object, "deletionTimestamp").empty());
  EXPECT_EQ(marked.object->at("metadata").at("deletionGracePeriodSeconds").as_int64(), 30);
  bj::object change = *marked.object;
  metadata(change).erase("deletionTimestamp");  // cannot be cleared by an update
  EXPECT_FALSE(meta_string(*store.update(kPods, change), "deletionTimestamp").empty());
  EXPECT_TRUE(store.remove(kPods, "default", "web", {}, 0).deleted);
  EXPECT_THROW(store.get(kPods, "default", "web"), StatusError);
}

TEST_F(ObjectStoreTest, FinalizersHoldDeletionUntilRemoved) {
  bj::object o = pod("default", "web");
  metadata(o)["finalizers"] = bj::array{"example.com/hold"};
  store.create(kPods, o);
  auto w = store.watch(kPods, "", store.resource_version());
  Removal marked = store.remove(kPods, "default", "web");
  EXPECT_FALSE(marked.deleted);
  bj::object release = *marked.object;
  metadata(release)["finalizers"] = bj::array{};
  store.update(kPods, release);
  EXPECT_THROW(store.get(kPods, "default", "web"), StatusError);
  EXPECT_EQ(drain(*w), (std::vector<std::string>{"MODIFIED web 3", "DELETED web 4"}));
}

TEST_F(ObjectStoreTest, NamespaceDeletionCascades) {
  store.create(kNamespaces, named("other"));
  store.create(kPods, pod("other", "a"));
  store.create(kPods, pod("default", "b"));
  store.remove(kNamespaces, "", "other");
  EXPECT_EQ(store.list(kPods, "", nullptr).items.size(), 1u);
}

TEST_F(ObjectStoreTest, ListPagesInKeyOrder) {
  store.create(kNamespaces, named("a"));
  for (const char* n : {"p3", "p1", "p2"}) store.create(kPods, pod("default", n));
  store.create(kPods, pod("a", "z"));
  ListPage first = store.list(kPods, "", nullptr, 2);
  ASSERT_EQ(first.items.size(), 2u);
  EXPECT_EQ(first.items[0]->name(), "z");
  EXPECT_EQ(first.last_key, "default/p1");
  EXPECT_EQ(first.remaining, 2u);
  ListPage second = store.list(kPods, "", nullptr, 2, first.last_key);
  ASSERT_EQ(second.items.size(), 2u);
  EXPECT_EQ(second.items[1]->name(), "p3");
  EXPECT_EQ(second.remaining, 0u);
  EXPECT_EQ(store.list(kPods, "default", nullptr).items.size(), 3u);
  auto only_p2 = [](const StoredObject& o) { return o.name() == "p2"; };
  EXPECT_EQ(store.list(kPods, "default", only_p2).items.size(), 1u);
}

TEST_F(ObjectStoreTest, WatchFromNowAndFromResourceVersion) {
  store.create(kPods, pod("default", "a"));  // rv 2
  auto initial = store.watch(kPods, "default", std::nullopt);
  auto resumed = store.watch(kPods, "", 1);
  store.create(kNamespaces, named("b"));  // rv 3, another type
  store.create(kPods, pod("b", "x"));     // rv 4, another namespace
  store.remove(kPods, "default", "a");    // rv 5
  EXPECT_EQ(drain(*initial), (std::vector<std::string>{"ADDED a 2", "DELETED a 5"}));
  EXPECT_EQ(drain(*resumed), (std::vector<std::string>{"ADDED a 2", "ADDED x 4", "DELETED a 5"}));
  EXPECT_EQ(initial->progress(), 5u);
}

// One serialised revision serves every reader: lists, gets and watchers share it.
TEST_F(ObjectStoreTest, ReadersShareTheStoredRevision) {
  auto w = store.watch(kPods, "", store.resource_version());
  ObjectPtr created = store.create(kPods, pod("default", "a"));
  std::vector<StoredEvent> events = w->next(std::chrono::steady_clock::now());
  ASSERT_EQ(events.size(), 1u);
  StoredPtr stored = store.get_stored(kPods, "default", "a");
  EXPECT_EQ(events[0].object, stored);
  EXPECT_EQ(store.list(kPods, "", nullptr).items.at(0), stored);
  EXPECT_EQ(stored->json(), bj::serialize(*created));
  EXPECT_EQ(*store.get(kPods, "default", "a"), *created);
}

TEST_F(ObjectStoreTest, WatchOlderThanHistoryIsExpired) {
  for (const char* n : {"a", "b", "c", "d", "e"})
    store.create(kPods, pod("default", n));  // rv 2..6
  EXPECT_EQ(store.oldest_resumable(), 2u);
  EXPECT_NO_THROW(store.watch(kPods, "", 2));
  try {
    store.watch(kPods, "", 1);
    FAIL() << "expected 410";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 410);
    EXPECT_EQ(e.reason(), "Expired");
    EXPECT_EQ(e.message(), "too old resource version: 1 (2)");
  }
}

TEST_F(ObjectStoreTest, WatchWaitsUntilDeadlineOrStop) {
  auto w = store.watch(kPods, "", store.resource_version());
  EXPECT_TRUE(w->next(std::chrono::steady_clock::now() + std::chrono::milliseconds(5)).empty());
  std::thread writer([&] { store.create(kPods, pod("default", "late")); });
  std::vector<StoredEvent> got =
      w->next(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  writer.join();
  ASSERT_EQ(got.size(), 1u);
  store.stop_watches();
  EXPECT_TRUE(w->stopped());
}

}  // namespace
}  // namespace tailor::embedded
