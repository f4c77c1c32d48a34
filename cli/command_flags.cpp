#include "cli/command_flags.h"

#include <stdexcept>

namespace tailor::cli {

bool FlagReader::next() {
  if (next_ >= args_.size()) return false;
  flag_ = args_[next_++];
  value_.clear();
  const auto equals = flag_.find('=');
  inline_value_ = flag_.rfind("--", 0) == 0 && equals != std::string::npos;
  if (inline_value_) {
    value_ = flag_.substr(equals + 1);
    flag_ = flag_.substr(0, equals);
  }
  return true;
}

std::string FlagReader::value() {
  if (inline_value_) return value_;
  if (next_ >= args_.size()) throw std::invalid_argument(flag_ + ": missing value");
  return args_[next_++];
}

}  // namespace tailor::cli
