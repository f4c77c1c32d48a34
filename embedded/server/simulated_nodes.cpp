#include "embedded/server/simulated_nodes.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "embedded/api/resources.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/quantity.h"

namespace tailor::embedded {
namespace {

bj::object resource_list(const YAML::Node& node, const std::string& where) {
  bj::object out;
  if (!node) return out;
  if (!node.IsMap()) throw NodesFileError(where + ": must be a map of resource name to quantity");
  for (const auto& entry : node) {
    std::string name = entry.first.as<std::string>();
    std::string error;
    auto q = kube::Quantity::try_parse(entry.second.as<std::string>(), &error);
    if (!q) throw NodesFileError(where + "." + name + ": " + error);
    out[name] = q->to_string();
  }
  return out;
}

bj::object node_object(const YAML::Node& n, std::size_t index) {
  std::string where = "nodes[" + std::to_string(index) + "]";
  if (!n.IsMap() || !n["name"]) throw NodesFileError(where + ": needs a name");
  std::string name = n["name"].as<std::string>();
  where += " (" + name + ")";
  bj::object labels{{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}};
  if (n["labels"]) {
    if (!n["labels"].IsMap()) throw NodesFileError(where + ".labels: must be a map");
    for (const auto& l : n["labels"])
      labels[l.first.as<std::string>()] = l.second.as<std::string>();
  }
  bj::object capacity = resource_list(n["capacity"], where + ".capacity");
  if (capacity.empty()) throw NodesFileError(where + ": needs capacity");
  bj::object allocatable =
      n["allocatable"] ? resource_list(n["allocatable"], where + ".allocatable") : capacity;
  return bj::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", bj::object{{"name", name},
                              {"labels", std::move(labels)},
                              {"annotations", bj::object{{kSimulatedNodeAnnotation, "true"}}}}},
      {"spec", bj::object{}},
      {"status",
       bj::object{{"capacity", std::move(capacity)},
                  {"allocatable", std::move(allocatable)},
                  {"conditions", bj::array{bj::object{{"type", "Ready"},
                                                      {"status", "True"},
                                                      {"reason", "KubeletReady"},
                                                      {"message", "simulated node"}}}},
                  {"addresses", bj::array{bj::object{{"type", "Hostname"}, {"address", name}}}},
                  {"nodeInfo", bj::object{{"kubeletVersion", "v1.35.0"},
                                          {"operatingSystem", "linux"},
                                          {"architecture", "amd64"}}}}}};
}

}  // namespace

std::vector<std::string> simulated_nodes(const std::string& yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw NodesFileError(std::string("not YAML: ") + e.what());
  }
  if (!root.IsMap() || !root["nodes"] || !root["nodes"].IsSequence()) {
    throw NodesFileError("expected a top-level \"nodes\" list");
  }
  std::vector<std::string> out;
  std::size_t i = 0;
  try {
    for (const YAML::Node& n : root["nodes"]) out.push_back(bj::serialize(node_object(n, i++)));
  } catch (const YAML::Exception& e) {
    throw NodesFileError("nodes[" + std::to_string(i - 1) + "]: " + e.what());
  }
  return out;
}

void register_simulated_nodes(ObjectStore& store, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw NodesFileError("cannot read nodes file " + path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> nodes;
  try {
    nodes = simulated_nodes(text.str());
  } catch (const NodesFileError& e) {
    throw NodesFileError(path + ": " + e.what());
  }
  const ResourceInfo& r = *find_resource("", "v1", "nodes");
  for (const std::string& n : nodes) create_if_absent(store, r, bj::parse(n).as_object());
}

}  // namespace tailor::embedded
