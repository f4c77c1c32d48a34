#include "embedded/crd/ratcheting.h"

#include <algorithm>
#include <boost/json.hpp>
#include <string>

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

// The field path's steps up to its first list index: "spec.items[0].x" is spec, items.
std::vector<std::string> steps_of(const std::string& field) {
  std::vector<std::string> steps;
  if (field == "<nil>") return steps;
  std::string head = field.substr(0, field.find('['));
  std::size_t start = 0;
  while (start < head.size()) {
    std::size_t dot = head.find('.', start);
    if (dot == std::string::npos) dot = head.size();
    steps.push_back(head.substr(start, dot - start));
    start = dot + 1;
  }
  return steps;
}

const bj::value* child(const bj::value* v, const std::string& key) {
  return v && v->is_object() ? v->as_object().if_contains(key) : nullptr;
}

bool unchanged(const bj::value& object, const bj::value& old, const std::string& field) {
  const bj::value* now = &object;
  const bj::value* before = &old;
  for (const std::string& step : steps_of(field)) {
    const bj::value* next = child(now, step);
    if (!next) break;  // missing now: judge by the nearest present parent
    now = next;
    before = child(before, step);
    if (!before) return false;  // added by this update
  }
  return *now == *before;
}

}  // namespace

void ratchet(std::vector<FieldCause>& causes, const bj::object& object, const bj::object* old) {
  if (!old || causes.empty()) return;
  const bj::value now(object), before(*old);
  causes.erase(std::remove_if(causes.begin(), causes.end(),
                              [&](const FieldCause& c) { return unchanged(now, before, c.field); }),
               causes.end());
}

}  // namespace tailor::embedded::crd
