// A verb's flags one at a time, as "--flag value" or "--flag=value": the one reading of a
// command line that `tailor cluster up` and `tailor demo` share.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tailor::cli {

class FlagReader {
 public:
  explicit FlagReader(const std::vector<std::string>& args) : args_(args) {}
  // Moves to the next argument; false after the last.
  bool next();
  // The argument's flag, without any "=value".
  const std::string& flag() const { return flag_; }
  // The flag's value: what follows '=', else the next argument; std::invalid_argument
  // "<flag>: missing value" when there is none.
  std::string value();

 private:
  const std::vector<std::string>& args_;
  std::size_t next_ = 0;
  std::string flag_{};
  std::string value_{};
  bool inline_value_ = false;
};

}  // namespace tailor::cli
