#pragma once

#include <string>

namespace tailor::recommender {

bool is_gzip_path(const std::string& path);
// The whole decompressed content; throws TraceError (with the path) when unreadable or corrupt.
std::string read_gzip_file(const std::string& path);

}  // namespace tailor::recommender
