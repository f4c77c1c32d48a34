// Label selectors (=, ==, !=, in, notin, exists, !exists, gt, lt) and field selectors
// (=, ==, !=) as kube-apiserver parses and matches them. Invalid text throws a 400 StatusError.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

class StoredObject;

class LabelSelector {
 public:
  enum class Op { Equals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  static LabelSelector parse(std::string_view text);
  // Matches the object's metadata.labels.
  bool matches(const boost::json::object& object) const;
  bool matches(const StoredObject& object) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  // label(key): the value of the label, null when absent.
  template <typename Lookup>
  bool matches_labels(const Lookup& label) const;

  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  struct Requirement {
    std::string field;  // "spec.nodeName"
    bool equals;
    std::string value;
  };

  // Fields other than metadata.name / metadata.namespace must be selectable for resource.
  static FieldSelector parse(std::string_view text, const ResourceInfo& resource);
  bool matches(const boost::json::object& object) const;
  bool matches(const StoredObject& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace tailor::embedded
