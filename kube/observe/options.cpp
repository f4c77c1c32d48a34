#include "kube/observe/options.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace tailor::kube::config {
namespace po = boost::program_options;
namespace {

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why); }

int parse_int(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) bad("out of range");
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) bad("not an integer");
  return v;
}

double parse_double(std::string_view s) {
  std::string str(s);
  char* end = nullptr;
  double v = std::strtod(str.c_str(), &end);
  if (str.empty() || end != str.c_str() + str.size()) bad("not a number");
  if (!std::isfinite(v)) bad("not a finite number");
  return v;
}

// Go's strconv.ParseBool.
bool parse_bool(std::string_view s) {
  static const std::set<std::string_view> yes{"1", "t", "T", "TRUE", "true", "True"};
  static const std::set<std::string_view> no{"0", "f", "F", "FALSE", "false", "False"};
  if (yes.count(s)) return true;
  if (no.count(s)) return false;
  bad("not a boolean (true or false)");
}

Duration parse_nonnegative_duration(std::string_view s) {
  Duration d = parse_duration(s);
  if (d < Duration::zero()) bad("must not be negative");
  return d;
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  for (std::size_t start = 0;;) {
    auto comma = s.find(',', start);
    out.emplace_back(s.substr(start, comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string where(const std::string& file, const YAML::Mark& mark) {
  return "config " + file + ": line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1) + ": ";
}

// "-v=2" -> "-v", "2": Kubernetes users write short flags like long ones.
std::vector<std::string> normalize(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a.size() > 3 && a[0] == '-' && a[1] != '-' && a[2] == '=') {
      out.push_back(a.substr(0, 2));
      out.push_back(a.substr(3));
    } else {
      out.push_back(a);
    }
  }
  return out;
}

// Edits between a and b, counting a swap of neighbours as one (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// " (did you mean \"x\"?)" for the closest candidate when it is a likely typo, else "".
std::string did_you_mean(std::string_view unknown, const std::vector<std::string>& candidates,
                         std::string_view prefix = "") {
  const std::string* best = nullptr;
  std::size_t best_distance = 2 + unknown.size() / 8;  // one edit for short words, more for long
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(unknown, c);
    if (d < best_distance) best = &c, best_distance = d;
  }
  return best ? " (did you mean \"" + std::string(prefix) + *best + "\"?)" : "";
}

}  // namespace

struct Entry {
  Option option;
  std::string type;
  std::function<void(std::string_view)> set;                      // scalar options
  std::function<void(const std::vector<std::string>&)> set_list;  // list options
  std::string default_text;  // for usage(), taken when the option is declared
};

struct Schema::Impl {
  std::string program, description, version;  // version "": no --version flag
  std::vector<Entry> entries;
  std::string positional_name;
  std::vector<std::string>* positional = nullptr;
  std::string config_file;

  void add(Entry e) {
    for (const auto& existing : entries) {
      if (existing.option.flag == e.option.flag) {
        throw std::logic_error("option --" + e.option.flag + " declared twice");
      }
      if (!e.option.yaml_key.empty() && existing.option.yaml_key == e.option.yaml_key) {
        throw std::logic_error("config key " + e.option.yaml_key + " declared twice");
      }
    }
    entries.push_back(std::move(e));
  }

  const Entry* by_key(const std::string& key) const {
    for (const auto& e : entries) {
      if (e.option.yaml_key == key) return &e;
    }
    return nullptr;
  }

  bool is_section(const std::string& prefix) const {
    for (const auto& e : entries) {
      if (e.option.yaml_key.rfind(prefix + ".", 0) == 0) return true;
    }
    return false;
  }

  std::vector<std::string> flags() const {
    std::vector<std::string> out{"config", "help"};
    if (!version.empty()) out.push_back("version");
    for (const auto& e : entries) out.push_back(e.option.flag);
    return out;
  }

  // Every key and section a config file may hold.
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& e : entries) {
      const std::string& k = e.option.yaml_key;
      for (auto dot = k.find('.'); dot != std::string::npos; dot = k.find('.', dot + 1)) {
        out.push_back(k.substr(0, dot));
      }
      if (!k.empty()) out.push_back(k);
    }
    return out;
  }

  void load_file(const std::string& path);
  void walk(const YAML::Node& map, const std::string& prefix, const std::string& path);
  void apply_yaml(const Entry& e, const YAML::Node& key, const YAML::Node& value,
                  const std::string& path);
  po::variables_map parse_flags(const std::vector<std::string>& args) const;
  void apply_flags(const po::variables_map& vm) const;
};

Schema::Schema(std::string program, std::string description) : impl_(std::make_unique<Impl>()) {
  impl_->program = std::move(program);
  impl_->description = std::move(description);
}
Schema::~Schema() = default;

void Schema::add_custom(Option option, std::string type, std::function<void(std::string_view)> set,
                        std::string default_text) {
  impl_->add(
      Entry{std::move(option), std::move(type), std::move(set), nullptr, std::move(default_text)});
}

void Schema::add(Option option, std::string* t) {
  add_custom(
      std::move(option), "string", [t](std::string_view s) { *t = std::string(s); },
      t->empty() ? "" : "\"" + *t + "\"");
}
void Schema::add(Option option, bool* t) {
  add_custom(
      std::move(option), "bool", [t](std::string_view s) { *t = parse_bool(s); }, *t ? "true" : "");
}
void Schema::add(Option option, int* t, int min) {
  add_custom(
      std::move(option), "int",
      [t, min](std::string_view s) {
        int v = parse_int(s);
        if (v < min) bad("must be at least " + std::to_string(min));
        *t = v;
      },
      *t == 0 ? "" : std::to_string(*t));
}
void Schema::add(Option option, double* t) {
  std::ostringstream shown;
  shown << *t;
  add_custom(
      std::move(option), "float", [t](std::string_view s) { *t = parse_double(s); },
      *t == 0 ? "" : shown.str());
}
void Schema::add(Option option, Duration* t) {
  add_custom(
      std::move(option), "duration",
      [t](std::string_view s) { *t = parse_nonnegative_duration(s); }, format_duration(*t));
}
void Schema::add(Option option, std::vector<std::string>* t) {
  std::string shown;
  for (const auto& s : *t) shown += (shown.empty() ? "" : ",") + s;
  Entry e{std::move(option), "strings", nullptr, [t](const std::vector<std::string>& v) { *t = v; },
          shown.empty() ? shown : "[" + shown + "]"};
  impl_->add(std::move(e));
}

void Schema::positional(std::string name, std::vector<std::string>* target) {
  impl_->positional_name = std::move(name);
  impl_->positional = target;
}

void Schema::version(std::string version) { impl_->version = std::move(version); }

std::string Schema::version_text() const { return impl_->program + " " + impl_->version; }

const std::string& Schema::config_file() const { return impl_->config_file; }

ParseResult Schema::parse(int argc, const char* const argv[]) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse(args);
}

ParseResult Schema::parse(const std::vector<std::string>& args) {
  po::variables_map vm = impl_->parse_flags(normalize(args));
  if (vm.count("help")) return ParseResult::Help;
  if (vm.count("version")) return ParseResult::Version;
  if (vm.count("config")) {
    impl_->config_file = vm["config"].as<std::vector<std::string>>().back();
    impl_->load_file(impl_->config_file);
  }
  impl_->apply_flags(vm);
  if (impl_->positional && vm.count("__positional")) {
    *impl_->positional = vm["__positional"].as<std::vector<std::string>>();
  }
  return ParseResult::Run;
}

po::variables_map Schema::Impl::parse_flags(const std::vector<std::string>& args) const {
  po::options_description desc;
  auto many = [] { return po::value<std::vector<std::string>>(); };
  desc.add_options()("help,h", "")("config", many());
  if (!version.empty()) desc.add_options()("version", "");
  for (const auto& e : entries) {
    std::string spec = e.option.flag;
    if (e.option.short_flag) spec += std::string(",") + e.option.short_flag;
    auto* semantic = many();
    if (e.type == "bool") semantic->implicit_value({"true"}, "true");
    desc.add_options()(spec.c_str(), semantic);
  }
  po::positional_options_description pos;
  if (positional) {
    desc.add_options()("__positional", many());
    pos.add("__positional", -1);
  }
  po::variables_map vm;
  try {
    auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(desc).positional(pos).style(style).run(), vm);
  } catch (const po::unknown_option& e) {
    std::string name = e.get_option_name();
    name = name.substr(0, name.find('='));
    auto bare = name.substr(name.find_first_not_of('-'));
    throw ConfigError("unknown flag: " + name + did_you_mean(bare, flags(), "--"));
  } catch (const po::too_many_positional_options_error&) {
    throw ConfigError(program + " takes no arguments besides flags");
  } catch (const po::error& e) {
    throw ConfigError(std::string("flags: ") + e.what());
  }
  return vm;
}

void Schema::Impl::apply_flags(const po::variables_map& vm) const {
  for (const auto& e : entries) {
    if (!vm.count(e.option.flag)) continue;
    const auto& values = vm[e.option.flag].as<std::vector<std::string>>();
    try {
      if (e.set_list) {
        std::vector<std::string> all;
        for (const auto& v : values) {
          for (auto& part : split_commas(v)) all.push_back(std::move(part));
        }
        e.set_list(all);
      } else {
        e.set(values.back());  // the last occurrence wins, as with pflag
      }
    } catch (const std::invalid_argument& err) {
      throw ConfigError("invalid value \"" + values.back() + "\" for flag --" + e.option.flag +
                        ": " + err.what());
    }
  }
}

void Schema::Impl::load_file(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError("config " + path + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    throw ConfigError(where(path, e.mark) + "malformed YAML: " + e.msg);
  }
  if (root.IsNull()) return;  // an empty file sets nothing
  if (!root.IsMap()) {
    throw ConfigError(where(path, root.Mark()) + "the top level must be a map of settings");
  }
  walk(root, "", path);
}

void Schema::Impl::walk(const YAML::Node& map, const std::string& prefix, const std::string& path) {
  std::set<std::string> seen;
  for (const auto& pair : map) {
    // Copies: yaml-cpp's iterators hand out temporaries (Nodes are cheap handles).
    YAML::Node key_node = pair.first;
    YAML::Node value = pair.second;
    if (!key_node.IsScalar())
      throw ConfigError(where(path, key_node.Mark()) + "keys must be strings");
    std::string key = prefix.empty() ? key_node.Scalar() : prefix + "." + key_node.Scalar();
    if (!seen.insert(key).second) {
      throw ConfigError(where(path, key_node.Mark()) + "duplicate key \"" + key + "\"");
    }
    if (const Entry* e = by_key(key)) {
      apply_yaml(*e, key_node, value, path);
    } else if (is_section(key)) {
      if (value.IsNull()) continue;
      if (!value.IsMap()) {
        throw ConfigError(where(path, value.Mark()) + "\"" + key + "\" must be a map");
      }
      walk(value, key, path);
    } else {
      throw ConfigError(where(path, key_node.Mark()) + "unknown key \"" + key + "\"" +
                        did_you_mean(key, keys()));
    }
  }
}

void Schema::Impl::apply_yaml(const Entry& e, const YAML::Node& key_node, const YAML::Node& value,
                              const std::string& path) {
  const std::string& key = e.option.yaml_key;
  if (value.IsNull())
    throw ConfigError(where(path, key_node.Mark()) + "\"" + key + "\" has no value");
  std::string at = where(path, value.Mark());
  std::string text;
  try {
    if (e.set_list) {
      std::vector<std::string> items;
      if (value.IsScalar()) {
        items = split_commas(text = value.Scalar());
      } else if (value.IsSequence()) {
        for (const auto& item : value) {
          if (!item.IsScalar()) {
            throw ConfigError(where(path, item.Mark()) + "\"" + key + "\" items must be strings");
          }
          items.push_back(item.Scalar());
        }
      } else {
        throw ConfigError(at + "\"" + key + "\" must be a list");
      }
      e.set_list(items);
      return;
    }
    if (!value.IsScalar()) throw ConfigError(at + "\"" + key + "\" must be a single value");
    text = value.Scalar();
    e.set(text);
  } catch (const std::invalid_argument& err) {
    throw ConfigError(at + "invalid value \"" + text + "\" for \"" + key + "\": " + err.what());
  }
}

std::string Schema::usage() const {
  struct Row {
    std::string left, right;
  };
  std::vector<Row> rows{{"      --config string", "Path to a YAML config file; flags win over it."},
                        {"  -h, --help", "Show this help and exit."}};
  if (!impl_->version.empty()) rows.push_back({"      --version", "Print the version and exit."});
  for (const auto& e : impl_->entries) {
    std::string left = e.option.short_flag ? std::string("  -") + e.option.short_flag + ", --"
                                           : std::string("      --");
    left += e.option.flag;
    if (e.type != "bool") left += " " + e.type;
    std::string right = e.option.help;
    if (!e.default_text.empty()) right += " (default " + e.default_text + ")";
    if (!e.option.yaml_key.empty()) right += " [config: " + e.option.yaml_key + "]";
    rows.push_back({left, right});
  }
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.left.size());
  std::string out = "Usage: " + impl_->program + " [flags]";
  if (impl_->positional) out += " [" + impl_->positional_name + "...]";
  out += "\n\n" + impl_->description + "\n\nFlags:\n";
  for (const auto& r : rows) {
    out += r.left + std::string(width - r.left.size() + 3, ' ') + r.right + "\n";
  }
  return out;
}

std::string read_flag_file(const std::string& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    throw ConfigError("cannot read --" + std::string(flag) + " " + path);
  }
  return text.str();
}

}  // namespace tailor::kube::config
