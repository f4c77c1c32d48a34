#include "recommender/checkpoint_text.h"

#include <charconv>
#include <cmath>
#include <type_traits>

#include "recommender/checkpoint.h"

namespace tailor::recommender {
namespace {

template <typename T>
void append(std::string& out, T v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

template <typename T>
void append_list(std::string& out, const T* v, std::size_t n) {
  out += ';';
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    append(out, v[i]);
  }
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t end = s.find(sep);
    out.push_back(s.substr(0, end));
    if (end == std::string_view::npos) return out;
    s.remove_prefix(end + 1);
  }
}

}  // namespace

CheckpointWriter& CheckpointWriter::real(double v) {
  text_ += ';';
  append(text_, v);
  return *this;
}

CheckpointWriter& CheckpointWriter::integer(std::int64_t v) {
  text_ += ';';
  append(text_, v);
  return *this;
}

CheckpointWriter& CheckpointWriter::reals(const double* v, std::size_t n) {
  append_list(text_, v, n);
  return *this;
}

CheckpointWriter& CheckpointWriter::floats(const float* v, std::size_t n) {
  append_list(text_, v, n);
  return *this;
}

CheckpointWriter& CheckpointWriter::integers(const std::int64_t* v, std::size_t n) {
  append_list(text_, v, n);
  return *this;
}

CheckpointReader::CheckpointReader(std::string_view text, std::string_view tag) : tag_(tag) {
  fields_ = split(text, ';');
  if (fields_.front() != tag) {
    throw CheckpointError("checkpoint: not a '" + std::string(tag) + "' checkpoint (starts with '" +
                          std::string(fields_.front().substr(0, 32)) + "')");
  }
  at_ = 1;
}

void CheckpointReader::fail(const std::string& message) const {
  throw CheckpointError("checkpoint '" + std::string(tag_) + "', field " + std::to_string(at_) +
                        ": " + message);
}

std::string_view CheckpointReader::next(const char* what) {
  if (at_ >= fields_.size()) fail(std::string("ends before ") + what);
  return fields_[at_++];
}

namespace {
template <typename T>
bool parse(std::string_view s, T& value) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}
}  // namespace

double CheckpointReader::real(const char* what) {
  const std::string_view s = next(what);
  double v = 0;
  if (!parse(s, v) || !std::isfinite(v)) {
    fail(std::string(what) + " is not a finite number: '" + std::string(s.substr(0, 32)) + "'");
  }
  return v;
}

double CheckpointReader::non_negative(const char* what) {
  const double v = real(what);
  if (v < 0) fail(std::string(what) + " is negative");
  return v;
}

std::int64_t CheckpointReader::integer(const char* what) {
  const std::string_view s = next(what);
  std::int64_t v = 0;
  if (!parse(s, v)) {
    fail(std::string(what) + " is not an integer: '" + std::string(s.substr(0, 32)) + "'");
  }
  return v;
}

namespace {
template <typename T>
std::vector<T> read_list(CheckpointReader& r, std::string_view field, const char* what,
                         std::size_t n) {
  std::vector<T> out;
  if (!field.empty()) {
    for (std::string_view item : split(field, ',')) {
      T v{};
      if (!parse(item, v)) {
        r.fail(std::string(what) + " has a bad entry: '" + std::string(item.substr(0, 32)) + "'");
      }
      if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(v)) r.fail(std::string(what) + " has a non-finite entry");
      }
      out.push_back(v);
    }
  }
  if (n != std::string_view::npos && out.size() != n) {
    r.fail(std::string(what) + " has " + std::to_string(out.size()) + " entries, want " +
           std::to_string(n));
  }
  return out;
}
}  // namespace

std::vector<double> CheckpointReader::reals(const char* what, std::size_t n) {
  const std::string_view field = next(what);
  return read_list<double>(*this, field, what, n);
}

std::vector<float> CheckpointReader::floats(const char* what, std::size_t n, bool allow_negative) {
  const std::string_view field = next(what);
  std::vector<float> out = read_list<float>(*this, field, what, n);
  for (float v : out) {
    if (!allow_negative && v < 0) fail(std::string(what) + " has a negative entry");
  }
  return out;
}

std::vector<std::int64_t> CheckpointReader::integers(const char* what, std::size_t n) {
  const std::string_view field = next(what);
  return read_list<std::int64_t>(*this, field, what, n);
}

void CheckpointReader::finish() const {
  if (at_ != fields_.size()) {
    throw CheckpointError("checkpoint '" + std::string(tag_) + "': " +
                          std::to_string(fields_.size() - at_) + " unexpected trailing fields");
  }
}

}  // namespace tailor::recommender
