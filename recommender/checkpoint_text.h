#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::recommender {

// The compact text of a strategy checkpoint: a tag naming the strategy and format version,
// then ';'-separated fields, lists comma-separated. Numbers are written in their shortest form
// that reads back to the same value, so a restored model is bit-for-bit the saved one.
class CheckpointWriter {
 public:
  explicit CheckpointWriter(std::string_view tag) : text_(tag) {}
  CheckpointWriter& real(double v);
  CheckpointWriter& integer(std::int64_t v);
  CheckpointWriter& reals(const double* v, std::size_t n);
  CheckpointWriter& floats(const float* v, std::size_t n);
  CheckpointWriter& integers(const std::int64_t* v, std::size_t n);
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// Reads the fields back in the order they were written. Every read names what it reads, and
// anything malformed (wrong tag, missing or extra fields, a field that is not a number, a value
// that is not finite) throws CheckpointError saying what and where.
class CheckpointReader {
 public:
  CheckpointReader(std::string_view text, std::string_view tag);
  double real(const char* what);  // finite
  double non_negative(const char* what);
  std::int64_t integer(const char* what);
  // A list of exactly `n` finite values (n = npos: any length).
  std::vector<double> reals(const char* what, std::size_t n);
  // Finite, and >= 0 unless allow_negative.
  std::vector<float> floats(const char* what, std::size_t n, bool allow_negative = false);
  std::vector<std::int64_t> integers(const char* what, std::size_t n);
  void finish() const;  // throws if fields remain
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string_view next(const char* what);
  std::string_view tag_;
  std::vector<std::string_view> fields_;
  std::size_t at_ = 0;
};

}  // namespace tailor::recommender
