#include "embedded/api/selectors.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "embedded/storage/object_meta.h"
#include "embedded/storage/stored_object.h"

namespace tailor::embedded {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> split_requirements(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return parts;
}

bool valid_label_key(std::string_view key) {
  if (key.empty() || key.size() > 317) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}

bool valid_label_value(std::string_view v) {
  return v.size() <= 63 && std::all_of(v.begin(), v.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
         });
}

StatusError selector_error(std::string_view text, const std::string& why) {
  return bad_request("unable to parse requirement: " + why + " in selector \"" + std::string(text) +
                     "\"");
}

std::vector<std::string> parse_set(std::string_view whole, std::string_view rest) {
  rest = trim(rest);
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
    throw selector_error(whole, "expected a parenthesized set of values");
  }
  std::vector<std::string> values;
  std::string_view inner = rest.substr(1, rest.size() - 2);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= inner.size(); ++i) {
    if (i == inner.size() || inner[i] == ',') {
      std::string_view v = trim(inner.substr(start, i - start));
      if (!valid_label_value(v))
        throw selector_error(whole, "invalid label value \"" + std::string(v) + "\"");
      values.emplace_back(v);
      start = i + 1;
    }
  }
  return values;
}

LabelSelector::Requirement parse_label_requirement(std::string_view whole, std::string_view r) {
  using Op = LabelSelector::Op;
  if (r.starts_with("!")) {
    std::string_view key = trim(r.substr(1));
    if (!valid_label_key(key))
      throw selector_error(whole, "invalid label key \"" + std::string(key) + "\"");
    return {std::string(key), Op::DoesNotExist, {}};
  }
  std::size_t op_pos = r.find_first_of("=!<> ");
  std::string_view key = trim(r.substr(0, op_pos));
  if (!valid_label_key(key))
    throw selector_error(whole, "invalid label key \"" + std::string(key) + "\"");
  if (op_pos == std::string_view::npos) return {std::string(key), Op::Exists, {}};
  std::string_view rest = trim(r.substr(op_pos));
  struct Form {
    std::string_view token;
    Op op;
  };
  for (Form f : {Form{"==", Op::Equals}, Form{"!=", Op::NotEquals}, Form{"=", Op::Equals},
                 Form{">", Op::GreaterThan}, Form{"<", Op::LessThan}}) {
    if (!rest.starts_with(f.token)) continue;
    std::string_view value = trim(rest.substr(f.token.size()));
    if (!valid_label_value(value))
      throw selector_error(whole, "invalid label value \"" + std::string(value) + "\"");
    if ((f.op == Op::GreaterThan || f.op == Op::LessThan) &&
        (value.empty() || !std::all_of(value.begin(), value.end(), ::isdigit))) {
      throw selector_error(whole, "for 'Gt', 'Lt' operators, the value must be an integer");
    }
    return {std::string(key), f.op, {std::string(value)}};
  }
  if (rest.starts_with("notin"))
    return {std::string(key), Op::NotIn, parse_set(whole, rest.substr(5))};
  if (rest.starts_with("in")) return {std::string(key), Op::In, parse_set(whole, rest.substr(2))};
  throw selector_error(whole,
                       "found '" + std::string(rest) + "', expected: in, notin, =, ==, !=, gt, lt");
}

}  // namespace

LabelSelector LabelSelector::parse(std::string_view text) {
  LabelSelector s;
  if (trim(text).empty()) return s;
  for (std::string_view r : split_requirements(text)) {
    if (r.empty()) throw selector_error(text, "empty requirement");
    s.requirements_.push_back(parse_label_requirement(text, r));
  }
  return s;
}

bool LabelSelector::matches(const bj::object& object) const {
  const bj::value* labels = find_path(object, "metadata.labels");
  return matches_labels([&](const std::string& key) -> const bj::string* {
    if (!labels || !labels->is_object()) return nullptr;
    const bj::value* v = labels->as_object().if_contains(key);
    return v && v->is_string() ? &v->as_string() : nullptr;
  });
}

bool LabelSelector::matches(const StoredObject& object) const {
  return matches_labels([&](const std::string& key) { return object.label(key); });
}

template <typename Lookup>
bool LabelSelector::matches_labels(const Lookup& label) const {
  for (const Requirement& r : requirements_) {
    const auto* v = label(r.key);
    auto in_values = [&] {
      return v &&
             std::find(r.values.begin(), r.values.end(), std::string_view(*v)) != r.values.end();
    };
    bool ok = false;
    switch (r.op) {
      case Op::Equals:
      case Op::In:
        ok = in_values();
        break;
      case Op::NotEquals:
      case Op::NotIn:
        ok = !in_values();
        break;
      case Op::Exists:
        ok = v != nullptr;
        break;
      case Op::DoesNotExist:
        ok = v == nullptr;
        break;
      case Op::GreaterThan:
      case Op::LessThan: {
        char* end = nullptr;
        std::string s = v ? std::string(*v) : "";
        long long have = std::strtoll(s.c_str(), &end, 10);
        long long want = std::atoll(r.values[0].c_str());
        ok = v && !s.empty() && *end == '\0' &&
             (r.op == Op::GreaterThan ? have > want : have < want);
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

FieldSelector FieldSelector::parse(std::string_view text, const ResourceInfo& resource) {
  FieldSelector s;
  if (trim(text).empty()) return s;
  for (std::string_view r : split_requirements(text)) {
    std::size_t pos = r.find_first_of("=!");
    if (pos == std::string_view::npos) {
      throw bad_request("invalid selector: '" + std::string(text) + "'; can't understand '" +
                        std::string(r) + "'");
    }
    Requirement req;
    req.field = std::string(trim(r.substr(0, pos)));
    std::string_view rest = r.substr(pos);
    req.equals = !rest.starts_with("!=");
    rest.remove_prefix(rest.starts_with("==") || rest.starts_with("!=") ? 2 : 1);
    req.value = std::string(trim(rest));
    bool known = req.field == "metadata.name" || req.field == "metadata.namespace" ||
                 std::find(resource.selectable_fields.begin(), resource.selectable_fields.end(),
                           req.field) != resource.selectable_fields.end();
    if (!known) throw bad_request("field label not supported: " + req.field);
    s.requirements_.push_back(std::move(req));
  }
  return s;
}

bool FieldSelector::matches(const bj::object& object) const {
  for (const Requirement& r : requirements_) {
    if ((selectable_field_value(object, r.field) == r.value) != r.equals) return false;
  }
  return true;
}

bool FieldSelector::matches(const StoredObject& object) const {
  for (const Requirement& r : requirements_) {
    if ((object.field(r.field) == r.value) != r.equals) return false;
  }
  return true;
}

}  // namespace tailor::embedded
