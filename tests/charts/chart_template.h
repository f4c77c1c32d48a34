// Reading the chart's templates without Helm (there is no helm binary on these machines and none
// can be installed). A template is Go text/template around YAML; these helpers reduce it to its
// YAML by a minimal, documented substitution of the `{{ ... }}` actions, and list what the
// actions refer to (values, named templates, files) so the tests can check each reference.
//
// The substitution, in order:
//  1. Comments `{{/* ... */}}` (with or without trim dashes) are removed, also across lines.
//  2. A line holding nothing but actions is dropped: control flow (if/else/end/range/with/
//     define), variable assignments, fail, and whole-block inserts (`include ... | nindent N`,
//     `toYaml ... | nindent N`), whose parent key is then null. Both branches of an if/else stay,
//     so every branch must parse next to the others.
//  3. An action inside a line is replaced by a value when it is a plain reference:
//     `.Values.a.b`, `$var` or `$var.a.b` (where `$var := .Values.x` is the file's first
//     assignment of $var: later reassignments are on dropped control lines), optionally
//     `| quote`, whose value in values.yaml is a scalar; `.Release.Namespace` is "kube-system"
//     and `.Release.Name` is "tailor". Every other action becomes the plain scalar TEMPLATE
//     ("name: {{ include "x" . }}-controller" gives "name: TEMPLATE-controller").
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tailor::charts {

inline constexpr const char* kPlaceholder = "TEMPLATE";

inline std::string strip_comments(const std::string& text) {
  static const std::regex comment(R"(\{\{-?\s*/\*[\s\S]*?\*/\s*-?\}\})");
  return std::regex_replace(text, comment, "");
}

// The body of an action: "{{- toYaml . | nindent 4 }}" gives "toYaml . | nindent 4".
inline std::string action_body(const std::string& action) {
  static const std::regex trim(R"(^\{\{-?\s*|\s*-?\}\}$)");
  return std::regex_replace(action, trim, "");
}

inline std::vector<std::string> actions_of(const std::string& text) {
  static const std::regex action(R"(\{\{[\s\S]*?\}\})");
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), action), end; it != end; ++it) {
    out.push_back(action_body(it->str()));
  }
  return out;
}

// `$name := .Values.a.b` assignments: name -> "a.b".
inline std::map<std::string, std::string> value_aliases(const std::string& text) {
  static const std::regex assign(R"(\$(\w+)\s*:=\s*\.Values((?:\.\w+)+)\s*$)");
  std::map<std::string, std::string> out;
  for (const std::string& body : actions_of(strip_comments(text))) {
    std::smatch m;
    if (std::regex_search(body, m, assign)) out.emplace(m[1], m[2].str().substr(1));
  }
  return out;
}

// Every values path the template reads, directly or through an alias: "controller.ports.usage".
inline std::set<std::string> value_references(const std::string& text) {
  static const std::regex direct(R"(\.Values((?:\.\w+)+))");
  static const std::regex through_alias(R"(\$(\w+)((?:\.\w+)+))");
  const auto aliases = value_aliases(text);
  std::set<std::string> out;
  for (const std::string& body : actions_of(strip_comments(text))) {
    for (std::sregex_iterator it(body.begin(), body.end(), direct), end; it != end; ++it) {
      out.insert((*it)[1].str().substr(1));
    }
    for (std::sregex_iterator it(body.begin(), body.end(), through_alias), end; it != end; ++it) {
      auto alias = aliases.find((*it)[1]);
      if (alias != aliases.end()) out.insert(alias->second + (*it)[2].str());
    }
  }
  return out;
}

// Names used by include/template, or defined by define.
inline std::set<std::string> template_names(const std::string& text, const std::string& verb) {
  const std::regex name("\\b" + verb + R"re(\s+"([^"]+)")re");
  std::set<std::string> out;
  for (const std::string& body : actions_of(strip_comments(text))) {
    for (std::sregex_iterator it(body.begin(), body.end(), name), end; it != end; ++it) {
      out.insert((*it)[1]);
    }
  }
  return out;
}

// Patterns of .Files.Get / .Files.Glob.
inline std::set<std::string> file_patterns(const std::string& text) {
  static const std::regex files(R"re(\.Files\.(?:Get|Glob)\s+"([^"]+)")re");
  std::set<std::string> out;
  for (const std::string& body : actions_of(strip_comments(text))) {
    for (std::sregex_iterator it(body.begin(), body.end(), files), end; it != end; ++it) {
      out.insert((*it)[1]);
    }
  }
  return out;
}

// Blocks opened (if/range/with/define/block) minus blocks closed (end): 0 when balanced.
inline int unclosed_blocks(const std::string& text) {
  static const std::regex opens(R"(^(if|range|with|define|block)\b)");
  static const std::regex closes(R"(^end\b)");
  int depth = 0;
  for (const std::string& body : actions_of(strip_comments(text))) {
    if (std::regex_search(body, opens)) ++depth;
    if (std::regex_search(body, closes)) --depth;
  }
  return depth;
}

// The blocks around the first line holding `needle`, outermost first, as their opening actions
// ("if $prometheus.address"): what turns that line on (the substitution keeps every branch, so
// the tests check the guards here). `else` replaces the top with "else <its if>".
inline std::vector<std::string> enclosing_blocks(const std::string& text,
                                                 const std::string& needle) {
  static const std::regex opens(R"(^(if|range|with|define|block)\b)");
  std::vector<std::string> stack;
  std::stringstream lines(strip_comments(text));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) != std::string::npos) return stack;
    for (const std::string& body : actions_of(line)) {
      if (std::regex_search(body, opens)) stack.push_back(body);
      if (body.rfind("else", 0) == 0 && !stack.empty()) stack.back() = "else " + stack.back();
      if (body.rfind("end", 0) == 0 && !stack.empty()) stack.pop_back();
    }
  }
  return {"(no line holds " + needle + ")"};
}

// The node of values.yaml at a dotted path, if every key on the way exists. (Nodes are bound
// by construction only: assigning a yaml-cpp Node would rewrite the tree.)
inline std::optional<YAML::Node> value_at(const YAML::Node& values, const std::string& path) {
  const auto dot = path.find('.');
  const std::string key = path.substr(0, dot);
  if (!values.IsMap() || !values[key]) return std::nullopt;
  const YAML::Node child = values[key];
  if (dot == std::string::npos) return child;
  return value_at(child, path.substr(dot + 1));
}

// Step 3: the replacement of one inline action.
inline std::string inline_value(const std::string& body,
                                const std::map<std::string, std::string>& aliases,
                                const YAML::Node& values) {
  static const std::regex reference(
      R"(^(?:\.Values((?:\.\w+)+)|\$(\w+)((?:\.\w+)*))(\s*\|\s*quote)?$)");
  if (body == ".Release.Namespace") return "kube-system";
  if (body == ".Release.Name") return "tailor";
  std::smatch m;
  if (!std::regex_match(body, m, reference)) return kPlaceholder;
  std::string path = m[1].matched ? m[1].str().substr(1) : "";
  if (m[2].matched) {
    auto alias = aliases.find(m[2]);
    if (alias == aliases.end()) return kPlaceholder;
    path = alias->second + m[3].str();
  }
  auto node = value_at(values, path);
  if (!node || !node->IsScalar()) return kPlaceholder;
  return m[4].matched ? "\"" + node->Scalar() + "\"" : node->Scalar();
}

// The YAML of a template after the substitution above.
inline std::string substitute_actions(const std::string& text, const YAML::Node& values) {
  static const std::regex action(R"(\{\{[\s\S]*?\}\})");
  static const std::regex blank(R"(^\s*$)");
  const auto aliases = value_aliases(text);
  std::stringstream lines(strip_comments(text));
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    const std::string without = std::regex_replace(line, action, "");
    if (without.size() != line.size() && std::regex_match(without, blank)) continue;
    std::string rendered;
    std::size_t last = 0;
    for (std::sregex_iterator it(line.begin(), line.end(), action), end; it != end; ++it) {
      rendered += line.substr(last, it->position() - last);
      rendered += inline_value(action_body(it->str()), aliases, values);
      last = it->position() + it->length();
    }
    out += rendered + line.substr(last) + "\n";
  }
  return out;
}

}  // namespace tailor::charts
