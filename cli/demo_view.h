// The live terminal view: one timestamped line per thing the demo saw happen, steps as
// headings, highlighted when the output is a terminal.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

namespace tailor::cli::demo {

class LiveView {
 public:
  LiveView(std::ostream& out, bool color);
  double elapsed() const;  // seconds since the view started
  void step(const std::string& heading);
  void line(const std::string& text);  // "[ 12s] text"
  void warn(const std::string& text);

 private:
  std::ostream& out_;
  bool color_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tailor::cli::demo
