#include "cli/demo_view.h"

#include <cstdio>
#include <ostream>

namespace tailor::cli::demo {
namespace {

// Which lines matter most, by their first words.
const char* color_of(const std::string& text) {
  if (text.starts_with("resized in place") || text.starts_with("the Deferred")) return "\033[32m";
  if (text.starts_with("recommendation")) return "\033[36m";
  if (text.starts_with("evicted") || text.starts_with("replacement")) return "\033[35m";
  if (text.find("PodResizePending") != std::string::npos) return "\033[33m";
  return nullptr;
}

}  // namespace

LiveView::LiveView(std::ostream& out, bool color)
    : out_(out), color_(color), start_(std::chrono::steady_clock::now()) {}

double LiveView::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void LiveView::step(const std::string& heading) {
  out_ << (color_ ? "\033[1m== " : "== ") << heading << (color_ ? "\033[0m\n" : "\n") << std::flush;
}

void LiveView::line(const std::string& text) {
  char stamp[16];
  std::snprintf(stamp, sizeof stamp, "[%4.0fs] ", elapsed());
  const char* color = color_ ? color_of(text) : nullptr;
  out_ << stamp << (color ? color : "") << text << (color ? "\033[0m" : "") << "\n" << std::flush;
}

void LiveView::warn(const std::string& text) {
  out_ << (color_ ? "\033[31m" : "") << "warning: " << text << (color_ ? "\033[0m" : "") << "\n"
       << std::flush;
}

}  // namespace tailor::cli::demo
