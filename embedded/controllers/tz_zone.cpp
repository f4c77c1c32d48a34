#include "embedded/controllers/tz_zone.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace tailor::embedded {
namespace {

using namespace std::chrono;

constexpr const char* kZoneinfo = "/usr/share/zoneinfo/";

// Reads big-endian fields off the front of the bytes; ok turns false past the end.
struct Bytes {
  std::string_view s;
  bool ok = true;

  std::string_view take(std::size_t n) {
    if (n > s.size()) {
      ok = false;
      return {};
    }
    std::string_view out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
  }
  std::int64_t integer(std::size_t width) {
    std::string_view b = take(width);
    if (!ok) return 0;
    std::uint64_t v = 0;
    for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
    // Sign-extend the 4- or 8-byte two's complement value.
    if (width < 8 && (v >> (width * 8 - 1)) & 1) v |= ~std::uint64_t{0} << (width * 8);
    return static_cast<std::int64_t>(v);
  }
};

struct Header {
  char version = 0;
  std::int64_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

std::optional<Header> header(Bytes& b) {
  if (b.take(4) != "TZif") return std::nullopt;
  Header h;
  std::string_view version = b.take(1);
  h.version = version.empty() ? '\0' : version.front();
  b.take(15);
  for (std::int64_t* count :
       {&h.isutcnt, &h.isstdcnt, &h.leapcnt, &h.timecnt, &h.typecnt, &h.charcnt}) {
    *count = b.integer(4);
  }
  // Counts are 32-bit: a negative one is a corrupt file.
  if (!b.ok || h.typecnt <= 0 ||
      std::min({h.isutcnt, h.isstdcnt, h.leapcnt, h.timecnt, h.charcnt}) < 0) {
    return std::nullopt;
  }
  return h;
}

// The bytes after the transitions and time types: abbreviations, leap seconds, indicators.
std::size_t tail_size(const Header& h, std::size_t width) {
  return static_cast<std::size_t>(h.charcnt + h.leapcnt * static_cast<std::int64_t>(width + 4) +
                                  h.isstdcnt + h.isutcnt);
}

// The size of a data block whose times are `width` bytes wide.
std::size_t block_size(const Header& h, std::size_t width) {
  return static_cast<std::size_t>(h.timecnt) * (width + 1) +
         static_cast<std::size_t>(h.typecnt) * 6 + tail_size(h, width);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

std::optional<TimeZone> TimeZone::from_tzif(std::string name, std::string_view bytes) {
  Bytes b{bytes};
  std::optional<Header> h = header(b);
  if (!h) return std::nullopt;
  std::size_t width = 4;
  if (h->version >= '2') {
    // Version 2 and later repeat the data with 64-bit times, then a footer: use those.
    b.take(block_size(*h, 4));
    h = header(b);
    if (!h) return std::nullopt;
    width = 8;
  }
  if (!b.ok || block_size(*h, width) > b.s.size()) return std::nullopt;
  TimeZone zone;
  zone.name_ = std::move(name);
  std::vector<std::int64_t> times;
  for (std::int64_t i = 0; i < h->timecnt; ++i) times.push_back(b.integer(width));
  std::vector<std::uint8_t> types;
  for (std::int64_t i = 0; i < h->timecnt; ++i) {
    types.push_back(static_cast<std::uint8_t>(b.integer(1)));
  }
  std::vector<seconds> offsets;
  for (std::int64_t i = 0; i < h->typecnt; ++i) {
    offsets.emplace_back(b.integer(4));
    b.take(2);  // isdst, abbreviation index
  }
  b.take(tail_size(*h, width));
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (types[i] >= offsets.size()) return std::nullopt;
    zone.transitions_.emplace_back(seconds(times[i]));
    zone.offset_after_.push_back(offsets[types[i]]);
  }
  zone.initial_offset_ = offsets[0];
  if (width == 8 && b.take(1) == "\n") {
    std::size_t end = b.s.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    if (end > 0) {
      zone.rule_ = PosixTzRule::parse(b.s.substr(0, end));
      if (!zone.rule_) return std::nullopt;
    }
  }
  return zone;
}

std::shared_ptr<const TimeZone> TimeZone::utc() {
  static const auto zone = [] {
    auto z = std::make_shared<TimeZone>();
    z->name_ = "UTC";
    return z;
  }();
  return zone;
}

std::shared_ptr<const TimeZone> TimeZone::load(const std::string& name, std::string* error) {
  // Go's "Local" is the process's zone: the embedded cluster's is UTC.
  if (name.empty() || name == "UTC" || name == "Local") return utc();
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const TimeZone>> loaded;
  std::lock_guard lock(mu);
  if (auto it = loaded.find(name); it != loaded.end()) return it->second;
  // Go refuses names that would leave the zoneinfo directory.
  bool escapes = name.front() == '/' || name.find("..") != std::string::npos;
  std::string bytes = escapes ? std::string() : read_file(kZoneinfo + name);
  if (escapes || bytes.empty()) {
    if (error) *error = escapes ? "time: invalid location name" : "unknown time zone " + name;
    return nullptr;
  }
  std::optional<TimeZone> zone = from_tzif(name, bytes);
  if (!zone) {
    if (error) *error = "malformed time zone information";
    return nullptr;
  }
  return loaded[name] = std::make_shared<const TimeZone>(std::move(*zone));
}

ZoneSpan TimeZone::lookup(sys_seconds t) const {
  if (transitions_.empty() || t < transitions_.front()) {
    return {initial_offset_, sys_seconds::min(),
            transitions_.empty() ? sys_seconds::max() : transitions_.front()};
  }
  auto next = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  auto i = static_cast<std::size_t>(next - transitions_.begin()) - 1;
  if (next == transitions_.end() && rule_) {
    ZoneSpan span = rule_->at(t);
    span.start = std::max(span.start, transitions_.back());
    return span;
  }
  return {offset_after_[i], transitions_[i],
          next == transitions_.end() ? sys_seconds::max() : *next};
}

sys_seconds TimeZone::resolve(local_seconds local) const {
  sys_seconds as_utc{local.time_since_epoch()};
  ZoneSpan span = lookup(as_utc);
  sys_seconds guess = as_utc - span.offset;
  if (guess < span.start || guess >= span.end) return as_utc - lookup(guess).offset;
  return guess;
}

local_seconds TimeZone::to_local(sys_seconds t) const {
  return local_seconds((t + lookup(t).offset).time_since_epoch());
}

}  // namespace tailor::embedded
