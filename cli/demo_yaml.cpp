#include "cli/demo_yaml.h"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <regex>
#include <stdexcept>

namespace tailor::cli::demo {
namespace {
namespace bj = boost::json;

bj::value plain_scalar(const std::string& s) {
  static const std::regex kInt("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    if (s.starts_with("0o")) return std::strtoll(s.c_str() + 2, nullptr, 8);
    return std::strtoll(s.c_str(), nullptr, 0);
  }
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  return bj::string(s);
}

bj::value to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted and block scalars "!", plain ones "?".
      if (node.Tag() == "?") return plain_scalar(node.Scalar());
      return bj::string(node.Scalar());
    case YAML::NodeType::Sequence: {
      bj::array out;
      for (const auto& item : node) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      bj::object out;
      for (const auto& item : node) out[item.first.as<std::string>()] = to_json(item.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> yaml_documents_to_json(const std::string& yaml) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(yaml);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("YAML: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  std::vector<std::string> out;
  for (const auto& doc : docs) {
    if (doc.IsNull()) continue;
    out.push_back(bj::serialize(to_json(doc)));
  }
  return out;
}

}  // namespace tailor::cli::demo
