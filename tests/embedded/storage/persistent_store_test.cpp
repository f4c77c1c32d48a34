// ObjectStore over SQLite persistence: what one store wrote, a new store on the same file has
// (objects, resourceVersions, deletions), the resourceVersion sequence continues, watches from
// before the "restart" get 410, and an unreadable database is an error, never an empty store.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "embedded/storage/object_meta.h"
#include "embedded/storage/object_store.h"
#include "embedded/storage/sqlite_persistence.h"

namespace tailor::embedded {
namespace {

namespace fs = std::filesystem;

const ResourceInfo kNamespaces{
    .version = "v1", .resource = "namespaces", .kind = "Namespace", .namespaced = false};
const ResourceInfo kConfigMaps{.version = "v1", .resource = "configmaps", .kind = "ConfigMap"};
const ResourceInfo kWidgets{
    .group = "example.com", .version = "v1", .resource = "widgets", .kind = "Widget"};

const ResourceInfo* known(const std::string& group, const std::string& resource) {
  for (const ResourceInfo* r : {&kNamespaces, &kConfigMaps}) {
    if (r->group == group && r->resource == resource) return r;
  }
  return nullptr;  // widgets: a custom resource whose CRD is not served yet
}

bj::object object(const std::string& ns, const std::string& name, const std::string& value = "1") {
  bj::object meta{{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return bj::object{{"metadata", std::move(meta)}, {"data", bj::object{{"v", value}}}};
}

// Every object of r as stored (JSON text), by namespace/name.
std::vector<std::string> texts(const ObjectStore& store, const ResourceInfo& r) {
  std::vector<std::string> out;
  for (const StoredPtr& o : store.list(r, "", nullptr).items) out.push_back(o->json());
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

class PersistentStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-store-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    db_ = (dir_ / "objects.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A store on the database, as a (re)started server opens it.
  std::unique_ptr<ObjectStore> open() {
    return std::make_unique<ObjectStore>(
        StoreOptions{.persistence = open_sqlite_persistence(db_), .resolve = known});
  }

  // A first run: namespace "a", configmaps a/x (updated once) and a/y, namespace "b" with b/z.
  void write_first_run() {
    auto store = open();
    store->create(kNamespaces, object("", "a"));
    store->create(kNamespaces, object("", "b"));
    store->create(kConfigMaps, object("a", "x"));
    store->create(kConfigMaps, object("a", "y"));
    store->create(kConfigMaps, object("b", "z"));
    store->modify(kConfigMaps, "a", "x", [](const bj::object& o) {
      bj::object next = o;
      next["data"].as_object()["v"] = "2";
      return next;
    });
    first_namespaces_ = texts(*store, kNamespaces);
    first_configmaps_ = texts(*store, kConfigMaps);
    first_version_ = store->resource_version();
  }

  fs::path dir_;
  std::string db_;
  std::vector<std::string> first_namespaces_, first_configmaps_;
  std::uint64_t first_version_ = 0;
};

TEST_F(PersistentStoreTest, ReloadHasEveryObjectWithItsResourceVersionAndUid) {
  write_first_run();
  auto store = open();
  EXPECT_EQ(texts(*store, kNamespaces), first_namespaces_);
  EXPECT_EQ(texts(*store, kConfigMaps), first_configmaps_);  // uid, RV, data: the same text
  EXPECT_EQ(store->resource_version(), first_version_);
  EXPECT_EQ(meta_string(*store->get(kConfigMaps, "a", "x"), "resourceVersion"), "6");
}

TEST_F(PersistentStoreTest, ResourceVersionsContinueAfterARestart) {
  write_first_run();
  auto store = open();
  ObjectPtr created = store->create(kConfigMaps, object("a", "new"));
  EXPECT_EQ(meta_string(*created, "resourceVersion"), std::to_string(first_version_ + 1));
  // Optimistic concurrency holds across the restart: the old RV still names the revision.
  bj::object stale = object("a", "y", "3");
  stale["metadata"].as_object()["resourceVersion"] = "4";
  EXPECT_NO_THROW(store->update(kConfigMaps, stale));
}

TEST_F(PersistentStoreTest, DeletionsPersistAndMoveTheResourceVersion) {
  write_first_run();
  {
    auto store = open();
    store->remove(kConfigMaps, "a", "y");
    store->remove(kNamespaces, "", "b");  // takes b/z with it
    EXPECT_EQ(store->resource_version(), first_version_ + 3);
  }
  auto store = open();
  EXPECT_EQ(store->resource_version(), first_version_ + 3);
  std::vector<std::string> names;
  for (const StoredPtr& o : store->list(kConfigMaps, "", nullptr).items) {
    names.push_back(o->ns() + "/" + o->name());
  }
  EXPECT_EQ(names, std::vector<std::string>{"a/x"});
  EXPECT_EQ(store->list(kNamespaces, "", nullptr).items.size(), 1u);
}

TEST_F(PersistentStoreTest, WatchFromBeforeTheRestartIsGoneFromNowResumes) {
  write_first_run();
  auto store = open();
  // Continue tokens of lists from before the restart expire with the watches (rest_read.cpp).
  EXPECT_EQ(store->oldest_resumable(), first_version_);
  try {
    store->watch(kConfigMaps, "", first_version_ - 1);
    FAIL() << "a watch from before the restart must get 410";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 410);
    EXPECT_EQ(e.message(), "too old resource version: " + std::to_string(first_version_ - 1) +
                               " (" + std::to_string(first_version_) + ")");
  }
  // At the last RV the server had: nothing was missed, the watch goes on.
  std::shared_ptr<Watch> watch = store->watch(kConfigMaps, "", first_version_);
  store->create(kConfigMaps, object("a", "after"));
  std::vector<StoredEvent> events = watch->next(std::chrono::steady_clock::now());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].object->name(), "after");
}

TEST_F(PersistentStoreTest, CustomResourcesWaitForTheirTypeToBeAdopted) {
  {
    auto store = open();
    store->create(kNamespaces, object("", "a"));
    store->create(kWidgets, object("a", "w"));
  }
  auto store = open();
  EXPECT_TRUE(store->list(kWidgets, "", nullptr).items.empty());
  store->adopt(kWidgets);
  ASSERT_EQ(store->list(kWidgets, "", nullptr).items.size(), 1u);
  EXPECT_EQ(store->get_stored(kWidgets, "a", "w")->resource_version(), 2u);
}

// An object nests as deep as the API accepts (10,000 levels); a restart reads it back, where
// Boost.JSON's default limit of 32 made the whole store refuse to load.
TEST_F(PersistentStoreTest, DeeplyNestedObjectIsReloaded) {
  bj::object deep = object("a", "deep");
  bj::value nested = 0.5;
  for (int i = 0; i < 1000; ++i) nested = bj::object{{"x", std::move(nested)}};
  deep["spec"] = std::move(nested);
  std::vector<std::string> before;
  {
    auto store = open();
    store->create(kNamespaces, object("", "a"));
    store->create(kConfigMaps, deep);
    before = texts(*store, kConfigMaps);
  }
  std::unique_ptr<ObjectStore> store;
  ASSERT_EQ(error_of([&] { store = open(); }), "no error");
  EXPECT_EQ(texts(*store, kConfigMaps), before);
}

TEST_F(PersistentStoreTest, GarbageFileIsAnErrorNamingIt) {
  std::ofstream(db_) << std::string(8192, 'x');
  std::string error = error_of([&] { open(); });
  EXPECT_NE(error.find("object database " + db_), std::string::npos) << error;
  EXPECT_NE(error.find("file is not a database"), std::string::npos) << error;
}

TEST_F(PersistentStoreTest, ObjectThatIsNotJsonIsAnError) {
  write_first_run();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE objects SET json = '{\"metadata\":' WHERE key = 'a/y'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  std::string error = error_of([&] { open(); });
  EXPECT_NE(error.find("stored /configmaps a/y is not valid JSON"), std::string::npos) << error;
}

TEST_F(PersistentStoreTest, CustomResourceThatIsNotJsonIsAnErrorAtStart) {
  {
    auto store = open();
    store->create(kNamespaces, object("", "a"));
    store->create(kWidgets, object("a", "w"));
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE objects SET json = '[1]' WHERE key = 'a/w'", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(error_of([&] { open(); }), "stored example.com/widgets a/w is not an object");
}

TEST_F(PersistentStoreTest, NewerSchemaIsAnError) {
  write_first_run();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = 2 WHERE name = 'schema'", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(error_of([&] { open(); }),
            "object database " + db_ + ": has schema version 2, this tailor-cluster reads 1");
}

TEST_F(PersistentStoreTest, SecondServerOnTheSameDatabaseIsRefused) {
  auto first = open();
  first->create(kNamespaces, object("", "a"));
  std::string error = error_of([&] { open(); });
  EXPECT_NE(error.find("database is locked (is another tailor-cluster using it?)"),
            std::string::npos)
      << error;
}

TEST_F(PersistentStoreTest, DatabaseIsReadableByItsOwnerOnly) {
  open();
  EXPECT_EQ(fs::status(db_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

// A commit that fails leaves the store as it was: the write is refused with 500, not half made.
class FailingPersistence : public Persistence {
 public:
  void put(std::string_view, std::string_view, std::uint64_t, std::string_view) override {
    throw std::runtime_error("object database /x: cannot commit a write: disk I/O error");
  }
  void remove(std::string_view, std::string_view, std::uint64_t) override {
    throw std::runtime_error("object database /x: cannot commit a write: disk I/O error");
  }
  PersistedState load_all() override { return {}; }
};

TEST(PersistentStoreFailureTest, FailedCommitChangesNothing) {
  ObjectStore store(StoreOptions{.persistence = std::make_shared<FailingPersistence>()});
  try {
    store.create(kNamespaces, object("", "a"));
    FAIL() << "a failed commit must fail the write";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 500);
    EXPECT_EQ(e.message(),
              "Internal error occurred: object database /x: cannot commit a write: disk I/O error");
  }
  EXPECT_TRUE(store.list(kNamespaces, "", nullptr).items.empty());
}

}  // namespace
}  // namespace tailor::embedded
