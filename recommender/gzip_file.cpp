#include "recommender/gzip_file.h"

#include <zlib.h>

#include <memory>

#include "recommender/trace.h"

namespace tailor::recommender {

bool is_gzip_path(const std::string& path) { return path.ends_with(".gz"); }

std::string read_gzip_file(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw TraceError(path + ": cannot open for reading");
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), buffer, sizeof buffer);
    int code = Z_OK;
    const char* message = gzerror(file.get(), &code);
    // A truncated or corrupt stream may end with n == 0 and the error only in gzerror.
    if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
      throw TraceError(path + ": corrupt gzip data: " + message);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

}  // namespace tailor::recommender
