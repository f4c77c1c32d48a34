#include "embedded/storage/object_meta.h"

#include <cstdio>
#include <mutex>
#include <random>

namespace tailor::embedded {
namespace {

std::uint64_t random_u64() {
  static std::mutex mu;
  static std::mt19937_64 engine{std::random_device{}()};
  std::lock_guard lock(mu);
  return engine();
}

}  // namespace

bj::object& metadata(bj::object& object) {
  bj::value& m = object["metadata"];
  if (!m.is_object()) m = bj::object{};
  return m.as_object();
}

std::string meta_string(const bj::object& object, std::string_view key) {
  const bj::value* m = object.if_contains("metadata");
  if (!m || !m->is_object()) return "";
  const bj::value* v = m->as_object().if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const bj::value* find_path(const bj::object& object, std::string_view dotted_path) {
  const bj::object* current = &object;
  while (true) {
    std::size_t dot = dotted_path.find('.');
    const bj::value* v = current->if_contains(dotted_path.substr(0, dot));
    if (!v || dot == std::string_view::npos) return v;
    if (!v->is_object()) return nullptr;
    current = &v->as_object();
    dotted_path.remove_prefix(dot + 1);
  }
}

const bj::object* object_field(const bj::object& object, std::string_view key) {
  const bj::value* v = object.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

std::string string_at(const bj::object& object, std::string_view dotted_path) {
  const bj::value* v = find_path(object, dotted_path);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

std::string string_at(const bj::value& value, std::string_view dotted_path) {
  return value.is_object() ? string_at(value.as_object(), dotted_path) : "";
}

std::optional<std::string> node_address(const bj::object& node, std::string_view type) {
  const bj::value* addresses = find_path(node, "status.addresses");
  if (!addresses || !addresses->is_array()) return std::nullopt;
  for (const bj::value& a : addresses->as_array()) {
    if (string_at(a, "type") == type) return string_at(a, "address");
  }
  return std::nullopt;
}

std::vector<std::string> strings_of(const bj::object& object, std::string_view key) {
  std::vector<std::string> out;
  const bj::value* v = object.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const bj::value& s : v->get_array()) {
    if (s.is_string()) out.emplace_back(s.get_string());
  }
  return out;
}

std::string new_uid() {
  std::uint64_t hi = random_u64(), lo = random_u64();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;              // version 4
  lo = (lo & ~(0xC0ULL << 56)) | (0x80ULL << 56);  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", unsigned(hi >> 32),
                unsigned((hi >> 16) & 0xFFFF), unsigned(hi & 0xFFFF), unsigned(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string random_name_suffix() {
  // Kubernetes' alphabet leaves out vowels and look-alike characters.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  std::uint64_t r = random_u64();
  for (int i = 0; i < 5; ++i, r /= kAlphabet.size()) s += kAlphabet[r % kAlphabet.size()];
  return s;
}

}  // namespace tailor::embedded
