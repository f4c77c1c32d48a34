// A custom resource (Tree) whose spec is left open (x-kubernetes-preserve-unknown-fields), as
// real CRDs leave parts of theirs, and Tree objects nested to a given depth under spec.x: the
// deep JSON of the limits tests, raw and through kubectl.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <string>

namespace tailor::embedded::testing {

inline constexpr const char* kTreeCrd = R"({"apiVersion":"apiextensions.k8s.io/v1",
  "kind":"CustomResourceDefinition","metadata":{"name":"trees.example.com"},
  "spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"trees","singular":"tree","kind":"Tree"},
    "versions":[{"name":"v1","served":true,"storage":true,
      "schema":{"openAPIV3Schema":{"type":"object","properties":{
        "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})";

// `levels` of {"x": ...} around an empty object.
inline std::string nested_x(std::size_t levels) {
  std::string text;
  text.reserve(6 * levels + levels + 2);
  for (std::size_t i = 0; i < levels; ++i) text += R"({"x":)";
  text += "{}";
  text.append(levels, '}');
  return text;
}

// A Tree whose JSON nests `depth` levels in all: the object is level 1, spec level 2, and
// spec.x.x... goes down to an empty object at level `depth`.
inline std::string deep_tree(const std::string& name, std::size_t depth) {
  return R"({"apiVersion":"example.com/v1","kind":"Tree","metadata":{"name":")" + name +
         R"("},"spec":)" + nested_x(depth - 2) + "}";
}

// How deep a Tree nests, counted without recursion.
inline std::size_t depth_of(const boost::json::value& tree) {
  std::size_t depth = 2;  // the object, spec
  const boost::json::value* at = &tree.at("spec");
  while (at->is_object() && at->as_object().contains("x")) {
    at = &at->as_object().at("x");
    ++depth;
  }
  return depth;
}

// Parses a body deeper than Boost.JSON's default 32 levels.
inline boost::json::value parse_deep(const std::string& text) {
  boost::json::parse_options options;
  options.max_depth = 20000;
  return boost::json::parse(text, {}, options);
}

}  // namespace tailor::embedded::testing
