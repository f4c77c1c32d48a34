#include "embedded/storage/timestamps.h"

#include <cstdio>

namespace tailor::kube::embedded {
namespace {

std::optional<int> number(std::string_view text, std::size_t at, std::size_t len) {
  if (at + len > text.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = at; i < at + len; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::string format_timestamp(TimePoint t) {
  using namespace std::chrono;
  auto secs = floor<seconds>(t);
  auto days = floor<std::chrono::days>(secs);
  year_month_day ymd{days};
  hh_mm_ss hms{secs - days};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                int(hms.minutes().count()), int(hms.seconds().count()));
  return buf;
}

std::optional<TimePoint> parse_timestamp(std::string_view text) {
  using namespace std::chrono;
  auto y = number(text, 0, 4), mo = number(text, 5, 2), d = number(text, 8, 2);
  auto h = number(text, 11, 2), mi = number(text, 14, 2), s = number(text, 17, 2);
  if (!y || !mo || !d || !h || !mi || !s || text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  year_month_day ymd{year(*y), month(unsigned(*mo)), day(unsigned(*d))};
  if (!ymd.ok() || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  std::size_t i = 19;
  nanoseconds fraction{0};
  if (text[i] == '.') {
    long long scale = 100000000, ns = 0;
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, scale /= 10) {
      ns += (text[i] - '0') * scale;
    }
    fraction = nanoseconds(ns);
  }
  minutes offset{0};
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z') && i + 1 == text.size()) {
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    auto oh = number(text, i + 1, 2), om = number(text, i + 4, 2);
    if (!oh || !om) return std::nullopt;
    offset = minutes(*oh * 60 + *om) * (text[i] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  return TimePoint(sys_days(ymd) + hours(*h) + minutes(*mi) + seconds(*s) + fraction - offset);
}

}  // namespace tailor::kube::embedded
