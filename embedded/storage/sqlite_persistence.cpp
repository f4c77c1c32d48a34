#include "embedded/storage/sqlite_persistence.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <stdexcept>

namespace tailor::embedded {
namespace {

constexpr std::int64_t kSchemaVersion = 1;

struct CloseDatabase {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Database = std::unique_ptr<sqlite3, CloseDatabase>;
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

class SqlitePersistence : public Persistence {
 public:
  SqlitePersistence(std::string path, SyncMode sync) : path_(std::move(path)) {
    sqlite3* db = nullptr;
    int rc =
        sqlite3_open_v2(path_.c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    db_.reset(db);  // closed even when opening failed
    check(rc, "cannot open");
    ::chmod(path_.c_str(), 0600);  // objects include Secrets: only the owner may read them
    // Exclusive: the lock taken by the first write below is kept, so a second tailor-cluster on
    // the same directory fails instead of both writing (and WAL needs no shared-memory file).
    exec("PRAGMA locking_mode=EXCLUSIVE", "cannot lock");
    if (single_text("PRAGMA journal_mode=WAL", "cannot switch to WAL journal") != "wal") {
      fail("cannot switch to WAL journal");
    }
    exec(sync == SyncMode::Full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
         "cannot set synchronous");
    if (std::string check = single_text("PRAGMA quick_check", "cannot be checked"); check != "ok") {
      fail("is corrupt (quick_check: " + check + ")");
    }
    exec("BEGIN IMMEDIATE", "cannot lock");
    exec(
        "CREATE TABLE IF NOT EXISTS objects(resource TEXT NOT NULL, key TEXT NOT NULL, "
        "json TEXT NOT NULL, PRIMARY KEY(resource, key)) WITHOUT ROWID",
        "cannot create table objects");
    exec("CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
         "cannot create table meta");
    check_schema();
    exec("COMMIT", "cannot commit");
    upsert_ = prepare(
        "INSERT INTO objects(resource, key, json) VALUES(?1, ?2, ?3) "
        "ON CONFLICT(resource, key) DO UPDATE SET json = excluded.json");
    delete_ = prepare("DELETE FROM objects WHERE resource = ?1 AND key = ?2");
    set_version_ = prepare(
        "INSERT INTO meta(name, value) VALUES('resourceVersion', ?1) "
        "ON CONFLICT(name) DO UPDATE SET value = excluded.value");
  }

  void put(std::string_view resource, std::string_view key, std::uint64_t resource_version,
           std::string_view json) override {
    bind(upsert_.get(), resource, key);
    check(sqlite3_bind_text(upsert_.get(), 3, json.data(), static_cast<int>(json.size()),
                            SQLITE_STATIC),
          "cannot bind");
    commit(upsert_.get(), resource_version);
  }

  void remove(std::string_view resource, std::string_view key,
              std::uint64_t resource_version) override {
    bind(delete_.get(), resource, key);
    commit(delete_.get(), resource_version);
  }

  PersistedState load_all() override {
    PersistedState state;
    state.resource_version = static_cast<std::uint64_t>(meta_value("resourceVersion"));
    Statement rows = prepare("SELECT resource, key, json FROM objects");
    int rc;
    while ((rc = sqlite3_step(rows.get())) == SQLITE_ROW) {
      state.objects.push_back(
          {column_text(rows.get(), 0), column_text(rows.get(), 1), column_text(rows.get(), 2)});
    }
    check(rc, "cannot be read");
    return state;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("object database " + path_ + ": " + what);
  }

  void check(int rc, const char* what) const {
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return;
    std::string why = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
    if (rc == SQLITE_BUSY) why += " (is another tailor-cluster using it?)";
    fail(std::string(what) + ": " + why);
  }

  void exec(const char* sql, const char* what) {
    check(sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr), what);
  }

  Statement prepare(const char* sql, const char* what = "cannot prepare a statement") {
    sqlite3_stmt* s = nullptr;
    check(sqlite3_prepare_v2(db_.get(), sql, -1, &s, nullptr), what);
    return Statement(s);
  }

  // The first column of the first row of a one-row statement (PRAGMAs).
  std::string single_text(const char* sql, const char* what) {
    Statement s = prepare(sql, what);
    int rc = sqlite3_step(s.get());
    check(rc, what);
    return rc == SQLITE_ROW ? column_text(s.get(), 0) : "";
  }

  static std::string column_text(sqlite3_stmt* s, int column) {
    const unsigned char* text = sqlite3_column_text(s, column);
    return text ? std::string(reinterpret_cast<const char*>(text),
                              static_cast<std::size_t>(sqlite3_column_bytes(s, column)))
                : "";
  }

  std::int64_t meta_value(const char* name) {
    Statement s = prepare("SELECT value FROM meta WHERE name = ?1");
    check(sqlite3_bind_text(s.get(), 1, name, -1, SQLITE_STATIC), "cannot bind");
    int rc = sqlite3_step(s.get());
    check(rc, "cannot be read");
    return rc == SQLITE_ROW ? sqlite3_column_int64(s.get(), 0) : 0;
  }

  // A new database gets the schema version; an existing one must have ours.
  void check_schema() {
    std::int64_t version = meta_value("schema");
    if (version == 0) {
      exec("INSERT INTO meta(name, value) VALUES('schema', 1)", "cannot write the schema");
    } else if (version != kSchemaVersion) {
      fail("has schema version " + std::to_string(version) + ", this tailor-cluster reads " +
           std::to_string(kSchemaVersion));
    }
  }

  void bind(sqlite3_stmt* s, std::string_view resource, std::string_view key) {
    check(
        sqlite3_bind_text(s, 1, resource.data(), static_cast<int>(resource.size()), SQLITE_STATIC),
        "cannot bind");
    check(sqlite3_bind_text(s, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC),
          "cannot bind");
  }

  static void step_once(sqlite3_stmt* s, int& rc) {
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }

  // change (bound) and the new resourceVersion in one transaction; rolled back on any failure.
  void commit(sqlite3_stmt* change, std::uint64_t resource_version) {
    int rc = sqlite3_exec(db_.get(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_reset(change);
      sqlite3_clear_bindings(change);
      check(rc, "cannot begin a write");
    }
    step_once(change, rc);
    if (rc == SQLITE_DONE) {
      sqlite3_bind_int64(set_version_.get(), 1, static_cast<sqlite3_int64>(resource_version));
      step_once(set_version_.get(), rc);
    }
    if (rc == SQLITE_DONE) rc = sqlite3_exec(db_.get(), "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
      std::string why = sqlite3_errmsg(db_.get());
      sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
      fail("cannot commit a write: " + why);
    }
  }

  std::string path_;
  Database db_;
  Statement upsert_;
  Statement delete_;
  Statement set_version_;
};

}  // namespace

std::unique_ptr<Persistence> open_sqlite_persistence(const std::string& path, SyncMode sync) {
  return std::make_unique<SqlitePersistence>(path, sync);
}

}  // namespace tailor::embedded
