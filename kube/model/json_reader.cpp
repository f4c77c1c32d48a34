#include "kube/model/json_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace tailor::kube {

namespace {
// Control characters as \xNN: a detail or key quoted from the input may hold any byte, and a NUL
// would cut the message short wherever what() is read as a C string (logs, events, conditions).
std::string printable(std::string text) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::none_of(text.begin(), text.end(), control)) return text;
  std::string out;
  for (const char c : text) {
    if (!control(c)) {
      out += c;
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}
}  // namespace

DecodeError::DecodeError(std::string path, std::string detail)
    : std::runtime_error(""),
      path_(printable(std::move(path))),
      detail_(printable(std::move(detail))) {
  rebuild();
}

namespace {
// Resource names and label keys such as "example.com/gpu" would read ambiguously after a dot.
bool plain_identifier(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}
}  // namespace

void DecodeError::add_field(std::string_view name) {
  prepend(plain_identifier(name) ? std::string(name) : "[" + printable(std::string(name)) + "]");
}

void DecodeError::add_index(std::size_t index) { prepend("[" + std::to_string(index) + "]"); }

void DecodeError::prepend(std::string segment) {
  if (!path_.empty() && path_.front() != '[') segment += '.';
  path_ = segment + path_;
  rebuild();
}

void DecodeError::rebuild() { message_ = path_.empty() ? detail_ : path_ + ": " + detail_; }

}  // namespace tailor::kube

namespace tailor::kube::json {

void fail(std::string detail) { throw DecodeError("", std::move(detail)); }

void fail_syntax(simdjson::error_code error) {
  switch (error) {
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING:
    case simdjson::EMPTY:
      fail(std::string("truncated or unbalanced JSON: ") + simdjson::error_message(error));
    case simdjson::DEPTH_ERROR:
      fail("JSON nested too deeply");
    case simdjson::UTF8_ERROR:
      fail("invalid UTF-8 in JSON");
    default:
      fail(std::string("malformed JSON: ") + simdjson::error_message(error));
  }
}

std::string_view type_name(od::json_type type) {
  switch (type) {
    case od::json_type::array:
      return "array";
    case od::json_type::object:
      return "object";
    case od::json_type::number:
      return "number";
    case od::json_type::string:
      return "string";
    case od::json_type::boolean:
      return "boolean";
    case od::json_type::null:
      return "null";
  }
  return "unknown";
}

namespace {
std::string_view value_type_name(od::value& v) {
  od::json_type type;
  if (v.type().get(type)) return "invalid JSON";
  return type_name(type);
}

std::string_view token_text(od::value& v) {
  std::string_view token = v.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return token;
}

// An integer literal that simdjson refused as int64 is out of range (not a type mismatch).
bool looks_integral(od::value& v) {
  od::json_type type;
  if (v.type().get(type) || type != od::json_type::number) return false;
  std::string_view digits = token_text(v);
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  // Only digits: the raw token runs to the next structural character, so a number followed by
  // junk ("1\0") reaches here too, and is malformed rather than large.
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

// Keeps error messages readable when a huge value is the problem.
std::string excerpt(std::string_view text) {
  constexpr std::size_t kMax = 40;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}
}  // namespace

void fail_type(od::value& v, simdjson::error_code error, std::string_view expected) {
  if (error != simdjson::INCORRECT_TYPE && error != simdjson::NUMBER_ERROR &&
      error != simdjson::NUMBER_OUT_OF_RANGE) {
    fail_syntax(error);
  }
  std::string_view got = value_type_name(v);
  if (got == "number") {
    fail("expected " + std::string(expected) + ", got number " + excerpt(token_text(v)));
  }
  fail("expected " + std::string(expected) + ", got " + std::string(got));
}

bool null_after(od::value& v, simdjson::error_code error) {
  if (error != simdjson::INCORRECT_TYPE) return false;
  bool is_null = false;
  return !v.is_null().get(is_null) && is_null;
}

void read(od::value& v, std::string& out) {
  std::string_view text;
  if (auto error = v.get_string().get(text)) {
    if (null_after(v, error)) return;
    fail_type(v, error, "a string");
  }
  out.assign(text);
}

void read(od::value& v, bool& out) {
  if (auto error = v.get_bool().get(out)) {
    if (null_after(v, error)) return;
    fail_type(v, error, "a boolean");
  }
}

void read(od::value& v, std::int64_t& out) {
  if (auto error = v.get_int64().get(out)) {
    if (null_after(v, error)) return;
    if (error == simdjson::NUMBER_OUT_OF_RANGE || looks_integral(v)) {
      fail("integer out of range: " + excerpt(token_text(v)));
    }
    fail_type(v, error, "an integer");
  }
}

void read(od::value& v, std::int32_t& out) {
  std::int64_t wide = out;
  read(v, wide);
  if (wide < std::numeric_limits<std::int32_t>::min() ||
      wide > std::numeric_limits<std::int32_t>::max()) {
    fail("integer out of range for int32: " + std::to_string(wide));
  }
  out = static_cast<std::int32_t>(wide);
}

namespace {
// Quantity strings repeat across pods ("100m", "256Mi"); parsing is a pure function, so a small
// per-thread direct-mapped cache keyed by the exact text skips most parses.
class QuantityCache {
 public:
  const Quantity* find(std::string_view text) const {
    if (text.empty() || text.size() > kMaxText) return nullptr;  // size 0 marks an empty slot
    const Slot& slot = slots_[slot_of(text)];
    bool hit = slot.size == text.size() && std::memcmp(slot.text, text.data(), text.size()) == 0;
    return hit ? &slot.value : nullptr;
  }
  void put(std::string_view text, const Quantity& value) {
    if (text.empty() || text.size() > kMaxText) return;
    Slot& slot = slots_[slot_of(text)];
    slot.value = value;
    slot.size = static_cast<std::uint8_t>(text.size());
    std::memcpy(slot.text, text.data(), text.size());
  }

 private:
  static constexpr std::size_t kSlots = 64;
  static constexpr std::size_t kMaxText = 22;
  struct Slot {
    Quantity value;
    std::uint8_t size = 0;  // 0: empty
    char text[kMaxText];
  };
  static std::size_t slot_of(std::string_view text) {
    std::uint32_t hash = 2166136261u;  // FNV-1a
    for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return (hash ^ (hash >> 16)) % kSlots;
  }
  std::array<Slot, kSlots> slots_{};
};

thread_local QuantityCache quantity_cache;

Quantity parse_quantity(std::string_view text) {
  if (const Quantity* cached = quantity_cache.find(text)) return *cached;
  std::string message;
  auto parsed = Quantity::try_parse(text, &message);
  if (!parsed) fail(message.empty() ? "invalid quantity " + excerpt(text) : message);
  quantity_cache.put(text, *parsed);
  return *parsed;
}

// apimachinery takes the bytes between the quotes as they are (no unescaping) and trims
// spaces: "1\u0030m" is invalid, " 100m " is 100m.
std::string_view quoted_quantity_text(od::value& v) {
  std::string_view text = token_text(v);
  text = text.substr(1, text.size() - 2);
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}
}  // namespace

// apimachinery's Quantity.UnmarshalJSON: a string, a bare number (its literal text), or null
// (zero). Tokens were validated by simdjson's stage 1 (a string token ends with its quote).
void read(od::value& v, Quantity& out) {
  od::json_type type;
  if (auto error = v.type().get(type)) fail_syntax(error);
  std::string_view text;
  switch (type) {
    case od::json_type::string:
      text = quoted_quantity_text(v);  // left unconsumed: the enclosing loop skips it
      break;
    case od::json_type::number:
      text = token_text(v);  // left unconsumed: the enclosing loop skips it
      break;
    case od::json_type::null:
      if (auto error = v.is_null().error()) fail_syntax(error);
      out = Quantity();
      return;
    default:
      fail_type(v, simdjson::INCORRECT_TYPE, "a quantity (string or number)");
  }
  out = parse_quantity(text);
}

void read(od::value& v, StringMap& out) {
  for_each_field(v, [&](std::string_view key, od::value& value) {
    std::string text;
    read(value, text);
    out.insert_or_assign(std::string(key), std::move(text));
  });
}

void read(od::value& v, ResourceList& out) {
  for_each_field(v, [&](std::string_view key, od::value& value) {
    Quantity quantity;
    read(value, quantity);
    out.insert_or_assign(key, quantity);
  });
}

}  // namespace tailor::kube::json
