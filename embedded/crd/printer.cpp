#include "embedded/crd/printer.h"

#include <charconv>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "embedded/storage/object_meta.h"
#include "kube/model/json_value.h"

namespace tailor::embedded::crd {
namespace {

struct Step {
  enum class Kind { Field, Index, All, Filter } kind;
  std::string name{};     // Field; for Filter the field compared
  std::size_t index = 0;  // Index
  bool equals = true;     // Filter: == or !=
  bj::value literal{};    // Filter
};

class PathParser {
 public:
  explicit PathParser(std::string text) : s_(std::move(text)) {
    if (s_.size() >= 2 && s_.front() == '{' && s_.back() == '}') s_ = s_.substr(1, s_.size() - 2);
  }

  std::vector<Step> parse() {
    std::vector<Step> steps;
    while (i_ < s_.size()) {
      if (s_[i_] == '.') {
        ++i_;
        steps.push_back({Step::Kind::Field, name()});
      } else if (s_[i_] == '[') {
        ++i_;
        steps.push_back(bracket());
      } else {
        fail();
      }
    }
    return steps;
  }

 private:
  [[noreturn]] void fail() const {
    throw std::invalid_argument("unsupported JSONPath \"" + s_ + "\" at offset " +
                                std::to_string(i_));
  }

  std::string name() {
    std::string out;
    while (i_ < s_.size() && s_[i_] != '.' && s_[i_] != '[') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    if (out.empty()) fail();
    return out;
  }

  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) fail();
    ++i_;
  }

  std::string until(char end) {
    std::size_t close = s_.find(end, i_);
    if (close == std::string::npos) fail();
    std::string out = s_.substr(i_, close - i_);
    i_ = close + 1;
    return out;
  }

  Step bracket() {
    if (i_ < s_.size() && s_[i_] == '*') {
      ++i_;
      expect(']');
      return {Step::Kind::All};
    }
    if (i_ < s_.size() && s_[i_] == '\'') {
      ++i_;
      Step step{Step::Kind::Field, until('\'')};
      expect(']');
      return step;
    }
    if (s_.compare(i_, 4, "?(@.") == 0) {
      i_ += 4;
      return filter();
    }
    std::string digits = until(']');
    std::size_t index = 0;
    const char* last = digits.data() + digits.size();
    const auto [end, ec] = std::from_chars(digits.data(), last, index);
    if (ec != std::errc() || end != last) fail();
    return {Step::Kind::Index, "", index};
  }

  Step filter() {
    Step step{Step::Kind::Filter};
    while (i_ < s_.size() && s_[i_] != '=' && s_[i_] != '!' && s_[i_] != ')') step.name += s_[i_++];
    if (s_.compare(i_, 2, "==") == 0) {
      step.equals = true;
    } else if (s_.compare(i_, 2, "!=") == 0) {
      step.equals = false;
    } else {
      fail();
    }
    i_ += 2;
    std::string literal = until(')');
    expect(']');
    if (literal.size() >= 2 && (literal.front() == '"' || literal.front() == '\'') &&
        literal.back() == literal.front()) {
      step.literal = bj::string(literal.substr(1, literal.size() - 2));
    } else {
      boost::system::error_code ec;
      step.literal = bj::parse(literal, ec);
      if (ec) fail();
    }
    return step;
  }

  std::string s_;
  std::size_t i_ = 0;
};

bool filter_matches(const bj::value& item, const Step& step) {
  if (!item.is_object()) return false;
  const bj::value* v = find_path(item.as_object(), step.name);
  bool same = v && *v == step.literal;
  return step.equals ? same : (v && !same);
}

std::vector<const bj::value*> step_through(const std::vector<const bj::value*>& in,
                                           const Step& step) {
  std::vector<const bj::value*> out;
  for (const bj::value* v : in) {
    switch (step.kind) {
      case Step::Kind::Field:
        if (v->is_object()) {
          if (const bj::value* c = v->as_object().if_contains(step.name)) out.push_back(c);
        }
        break;
      case Step::Kind::Index:
        if (v->is_array() && step.index < v->as_array().size())
          out.push_back(&v->as_array()[step.index]);
        break;
      case Step::Kind::All:
        if (v->is_array()) {
          for (const bj::value& c : v->as_array()) out.push_back(&c);
        } else if (v->is_object()) {
          for (const auto& [k, c] : v->as_object()) out.push_back(&c);
        }
        break;
      case Step::Kind::Filter:
        if (v->is_array()) {
          for (const bj::value& c : v->as_array()) {
            if (filter_matches(c, step)) out.push_back(&c);
          }
        }
        break;
    }
  }
  return out;
}

// A cell as kube-apiserver's CRD table convertor types it; null when the value does not fit.
bj::value typed_cell(const std::string& type, const bj::value& v, kube::TimePoint now) {
  if (type == "string") return v.is_string() ? v : bj::value(bj::serialize(v));
  if (type == "integer") {
    if (std::optional<std::int64_t> i = kube::json::integer_of(v)) return *i;
    return nullptr;
  }
  if (type == "number") return v.is_number() ? v : bj::value(nullptr);
  if (type == "boolean") return v.is_bool() ? v : bj::value(nullptr);
  if (type == "date") {
    if (!v.is_string()) return nullptr;
    auto t = kube::try_parse_rfc3339(std::string(v.as_string()));
    return t ? bj::value(human_duration(now - *t)) : bj::value(nullptr);
  }
  return nullptr;
}

struct Printers {
  std::mutex mu;
  std::deque<std::unique_ptr<const Printer>> pool;  // never freed: tables hold pointers
  std::map<const ResourceInfo*, const Printer*> by_resource;
};

Printers& printers() {
  static Printers* p = new Printers;  // leaked: used until the process ends
  return *p;
}

}  // namespace

std::vector<bj::value> json_path_values(const bj::object& object, const std::string& json_path) {
  bj::value root = object;
  std::vector<const bj::value*> current{&root};
  for (const Step& step : PathParser(json_path).parse()) current = step_through(current, step);
  std::vector<bj::value> out;
  for (const bj::value* v : current) out.push_back(*v);
  return out;
}

Printer make_printer(const std::vector<PrinterColumn>& columns) {
  Printer p;
  p.columns.push_back(name_column());
  for (const PrinterColumn& c : columns)
    p.columns.push_back({c.name, c.type, c.format, c.description, c.priority});
  p.cells = [columns](const bj::object& o, kube::TimePoint now) {
    bj::array cells{meta_string(o, "name")};
    for (const PrinterColumn& c : columns) {
      std::vector<bj::value> found;
      try {
        found = json_path_values(o, c.json_path);
      } catch (const std::invalid_argument&) {
      }
      cells.push_back(found.empty() ? bj::value(nullptr) : typed_cell(c.type, found[0], now));
    }
    return cells;
  };
  return p;
}

void set_printer(const ResourceInfo& resource, const std::vector<PrinterColumn>& columns) {
  auto printer = std::make_unique<const Printer>(make_printer(columns));
  Printers& all = printers();
  std::lock_guard lock(all.mu);
  all.by_resource[&resource] = printer.get();
  all.pool.push_back(std::move(printer));
}

}  // namespace tailor::embedded::crd

namespace tailor::embedded {

const Printer* custom_resource_printer(const ResourceInfo& resource) {
  // CustomResourceDefinitions themselves print their creation time, as kube-apiserver does.
  static const Printer kDefinitions{
      {name_column(),
       {"Created At", "date", "", "Time when the CustomResourceDefinition was created", 0}},
      [](const bj::object& o, kube::TimePoint) {
        return bj::array{meta_string(o, "name"), meta_string(o, "creationTimestamp")};
      }};
  if (resource.group == "apiextensions.k8s.io" && resource.resource == "customresourcedefinitions")
    return &kDefinitions;
  crd::Printers& all = crd::printers();
  std::lock_guard lock(all.mu);
  auto it = all.by_resource.find(&resource);
  return it == all.by_resource.end() ? nullptr : it->second;
}

}  // namespace tailor::embedded
