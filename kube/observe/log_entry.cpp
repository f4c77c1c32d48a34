#include "kube/observe/log_entry.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace tailor::kube::log {
namespace {

constexpr char32_t kInvalid = 0xFFFFFFFF;

void append_go_quoted(std::string& out, std::string_view s);
void append_json_quoted(std::string& out, std::string_view s);

// Decodes one UTF-8 rune at s[i]; sets len. Returns kInvalid (len 1) on a bad sequence.
char32_t decode_rune(std::string_view s, std::size_t i, std::size_t& len) {
  auto b = static_cast<unsigned char>(s[i]);
  len = 1;
  if (b < 0x80) return b;
  int extra = b >= 0xF5 ? -1 : b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC2 ? 1 : -1;
  if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size()) return kInvalid;
  char32_t r = b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((c & 0xC0) != 0x80) return kInvalid;
    r = (r << 6) | (c & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (r < kMin[extra] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return kInvalid;
  len = static_cast<std::size_t>(extra) + 1;
  return r;
}

// Go's unicode.IsPrint for the characters that matter in logs: controls, separators other than
// the ASCII space, format characters and private use are not printable.
bool is_print(char32_t r) {
  if (r < 0x80) return r >= 0x20 && r != 0x7F;
  if (r < 0xA0 || r == 0xA0 || r == 0xAD) return false;
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F)) return false;
  if (r == 0x205F || (r >= 0x2060 && r <= 0x206F) || r == 0x3000 || r == 0xFEFF) return false;
  if ((r >= 0xE000 && r <= 0xF8FF) || (r >= 0xFFF9 && r <= 0xFFFB) || r >= 0xF0000) return false;
  return true;
}

void append_hex(std::string& out, std::uint32_t v, int width) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = (width - 1) * 4; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xF];
}

void append_go_escape(std::string& out, char32_t r) {
  switch (r) {
    case '\a':
      out += "\\a";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\v':
      out += "\\v";
      return;
    default:
      break;
  }
  if (r < 0x20 || r == 0x7F) {
    out += "\\x";
    append_hex(out, r, 2);
  } else if (r < 0x10000) {
    out += "\\u";
    append_hex(out, r, 4);
  } else {
    out += "\\U";
    append_hex(out, r, 8);
  }
}

// Go's %v for a float64 (strconv 'g', shortest): exponent form when exp < -4 || exp >= 6, with at
// least two exponent digits ("1e+06"), otherwise plain decimal.
std::string go_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e+06"
  std::string sign = sci[0] == '-' ? "-" : "";
  if (!sign.empty()) sci.erase(0, 1);
  auto e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  if (exp < -4 || exp >= 6) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + ebuf;
  }
  if (exp < 0) return sign + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  auto int_len = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= int_len) return sign + digits + std::string(int_len - digits.size(), '0');
  return sign + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

// zap's AppendFloat64: strconv 'f' with shortest precision; NaN and infinities as strings.
std::string json_float(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"+Inf\"" : "\"-Inf\"";
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, res.ptr);
}

std::string ref_text(const ObjectRef& r) {
  return r.namespace_.empty() ? r.name : r.namespace_ + "/" + r.name;
}

// klog's string values: quoted when single-line; multi-line strings keep their line breaks,
// each line indented by a tab, between "<" and " >" so a new header always starts a line.
void append_text_string(std::string& out, std::string_view v) {
  if (v.find('\n') == std::string_view::npos) {
    append_go_quoted(out, v);
    return;
  }
  out += "<\n";
  while (!v.empty()) {
    auto nl = v.find('\n');
    out += '\t';
    if (nl == std::string_view::npos) {
      out += v;
      out += '\n';
      break;
    }
    out += v.substr(0, nl + 1);
    v.remove_prefix(nl + 1);
  }
  out += " >";
}

struct TextValue {
  std::string& out;
  void operator()(std::nullptr_t) const { out += "<nil>"; }
  void operator()(bool b) const { out += b ? "true" : "false"; }
  void operator()(std::int64_t i) const { out += std::to_string(i); }
  void operator()(std::uint64_t u) const { out += std::to_string(u); }
  void operator()(double d) const { out += go_float(d); }
  void operator()(const std::string& s) const { append_text_string(out, s); }
  void operator()(const ObjectRef& r) const { append_text_string(out, ref_text(r)); }
};

struct JsonValue {
  std::string& out;
  void operator()(std::nullptr_t) const { out += "null"; }
  void operator()(bool b) const { out += b ? "true" : "false"; }
  void operator()(std::int64_t i) const { out += std::to_string(i); }
  void operator()(std::uint64_t u) const { out += std::to_string(u); }
  void operator()(double d) const { out += json_float(d); }
  void operator()(const std::string& s) const { append_json_quoted(out, s); }
  void operator()(const ObjectRef& r) const {
    out += "{\"name\":";
    append_json_quoted(out, r.name);
    if (!r.namespace_.empty()) {
      out += ",\"namespace\":";
      append_json_quoted(out, r.namespace_);
    }
    out += '}';
  }
};

void append_text_pairs(std::string& out, const KVs* kvs) {
  if (kvs == nullptr) return;
  for (const KV& kv : *kvs) {
    out += ' ';
    out += kv.key;
    out += '=';
    std::visit(TextValue{out}, kv.value);
  }
}

void append_json_pair(std::string& out, std::string_view key, const Value& v) {
  out += ',';
  append_json_quoted(out, key);
  out += ':';
  std::visit(JsonValue{out}, v);
}

void append_json_pairs(std::string& out, const KVs* kvs) {
  if (kvs == nullptr) return;
  for (const KV& kv : *kvs) append_json_pair(out, kv.key, kv.value);
}

std::string_view base_name(std::string_view file) {
  auto slash = file.rfind('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

// zap's ShortCallerEncoder: the last directory and the file name.
std::string_view short_path(std::string_view file) {
  auto last = file.rfind('/');
  if (last == std::string_view::npos || last == 0) return file;
  auto prev = file.rfind('/', last - 1);
  return prev == std::string_view::npos ? file : file.substr(prev + 1);
}

char severity_letter(Severity s) {
  switch (s) {
    case Severity::Warning:
      return 'W';
    case Severity::Error:
      return 'E';
    default:
      return 'I';
  }
}

std::string text_header(const Entry& e) {
  using namespace std::chrono;
  auto since_epoch = e.time.time_since_epoch();
  auto secs = duration_cast<seconds>(since_epoch);
  auto micros = duration_cast<microseconds>(since_epoch - secs).count();
  if (micros < 0) micros += 1000000, secs -= seconds(1);
  std::time_t t = static_cast<std::time_t>(secs.count());
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%c%02d%02d %02d:%02d:%02d.%06lld %7d ",
                severity_letter(e.severity), tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                tm.tm_sec, static_cast<long long>(micros), e.pid);
  std::string out = buf;
  out += base_name(e.file);
  out += ':' + std::to_string(e.line) + "] ";
  return out;
}

}  // namespace

namespace {

void append_go_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = i;  // copy plain ASCII in one go
    while (run < s.size() && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\') {
      ++run;
    }
    out.append(s, i, run - i);
    if ((i = run) >= s.size()) break;
    std::size_t len;
    char32_t r = decode_rune(s, i, len);
    if (r == kInvalid) {
      out += "\\x";
      append_hex(out, static_cast<unsigned char>(s[i]), 2);
    } else if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (is_print(r)) {
      out.append(s, i, len);
    } else {
      append_go_escape(out, r);
    }
    i += len;
  }
  out += '"';
}

void append_json_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t run = i;  // copy plain ASCII in one go
    while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 &&
           static_cast<unsigned char>(s[run]) < 0x80 && s[run] != '"' && s[run] != '\\') {
      ++run;
    }
    out.append(s, i, run - i);
    if ((i = run) >= s.size()) break;
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          out += "\\u00";
          append_hex(out, b, 2);
      }
      ++i;
      continue;
    }
    std::size_t len;
    if (decode_rune(s, i, len) == kInvalid) {
      out += "\\ufffd";
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  out += '"';
}

}  // namespace

std::string go_quote(std::string_view s) {
  std::string out;
  append_go_quoted(out, s);
  return out;
}

std::string json_quote(std::string_view s) {
  std::string out;
  append_json_quoted(out, s);
  return out;
}

std::string format_text(const Entry& e) {
  std::string out;
  out.reserve(256);
  out += text_header(e);
  append_go_quoted(out, e.msg);
  if (e.err) {
    out += " err=";
    append_text_string(out, *e.err);
  }
  append_text_pairs(out, e.context);
  append_text_pairs(out, e.kvs);
  out += '\n';
  return out;
}

std::string format_json(const Entry& e) {
  using namespace std::chrono;
  auto nanos = duration_cast<nanoseconds>(e.time.time_since_epoch()).count();
  std::string out;
  out.reserve(256);
  out += "{\"ts\":" + json_float(static_cast<double>(nanos) / 1e6);
  out += ",\"caller\":";
  append_json_quoted(out, std::string(short_path(e.file)) + ":" + std::to_string(e.line));
  out += ",\"msg\":";
  append_json_quoted(out, e.msg);
  append_json_pairs(out, e.context);
  if (e.severity != Severity::Error) append_json_pair(out, "v", std::int64_t{e.verbosity});
  append_json_pairs(out, e.kvs);
  if (e.severity == Severity::Error && e.err) append_json_pair(out, "err", *e.err);
  out += "}\n";
  return out;
}

}  // namespace tailor::kube::log
