// Persistence in an SQLite database (Debian's libsqlite3): one row per object, one meta row for
// the resourceVersion, WAL journal. Every put/remove is a transaction committed before it returns.
#pragma once

#include <memory>
#include <string>

#include "embedded/storage/persistence.h"

namespace tailor::embedded {

// When a commit reaches the disk. Full: the WAL is fsynced at every commit, so an acknowledged
// write survives a power loss as well as a crash (etcd fsyncs every commit too). Normal: the WAL
// is written (survives kill -9 of the process) but fsynced only at checkpoints, so a power loss
// may drop the last acknowledged writes (never corrupt the database).
enum class SyncMode { Full, Normal };

// Opens (creating when absent) the database at path and takes it for this process alone (a second
// process opening it fails). Throws std::runtime_error naming the file when it is not a usable
// database: unreadable, not SQLite, corrupt, from a newer schema, or in use.
std::unique_ptr<Persistence> open_sqlite_persistence(const std::string& path,
                                                     SyncMode sync = SyncMode::Full);

}  // namespace tailor::embedded
