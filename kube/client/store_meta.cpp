#include "kube/client/store_meta.h"

#include <simdjson.h>

namespace tailor::kube::cache {
namespace {

namespace od = simdjson::ondemand;

std::string string_field(od::value value, std::string_view field) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) {
    throw DecodeError("metadata." + std::string(field) + ": expected a string");
  }
  return std::string(text);
}

std::vector<std::string> owner_uids(od::value value) {
  od::array owners;
  if (value.get_array().get(owners) != simdjson::SUCCESS) {
    throw DecodeError("metadata.ownerReferences: expected an array");
  }
  std::vector<std::string> uids;
  for (auto owner : owners) {
    od::object fields;
    if (owner.get_object().get(fields) != simdjson::SUCCESS) {
      throw DecodeError("metadata.ownerReferences[]: expected an object");
    }
    for (auto field : fields) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
        throw DecodeError("metadata.ownerReferences[]: malformed key");
      }
      if (key == "uid") uids.push_back(string_field(field.value(), "ownerReferences[].uid"));
    }
  }
  return uids;
}

void read_metadata(od::value value, MetaInfo& meta) {
  od::object fields;
  if (value.get_object().get(fields) != simdjson::SUCCESS) {
    throw DecodeError("metadata: expected an object");
  }
  for (auto field : fields) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
      throw DecodeError("metadata: malformed key");
    }
    if (key == "namespace") {
      meta.namespace_ = string_field(field.value(), key);
    } else if (key == "name") {
      meta.name = string_field(field.value(), key);
    } else if (key == "uid") {
      meta.uid = string_field(field.value(), key);
    } else if (key == "resourceVersion") {
      meta.resource_version = string_field(field.value(), key);
    } else if (key == "ownerReferences") {
      meta.owner_uids = owner_uids(field.value());
    }
  }
}

}  // namespace

std::string object_key(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

std::string MetaInfo::key() const { return object_key(namespace_, name); }

MetaInfo parse_meta(std::string_view object_json) {
  MetaInfo meta;
  bool found = false;
  try {
    thread_local od::parser parser;
    simdjson::padded_string padded(object_json);
    od::document doc = parser.iterate(padded);
    od::object fields = doc.get_object();
    for (auto field : fields) {
      std::string_view key = field.unescaped_key();
      if (key == "metadata") {
        read_metadata(field.value(), meta);
        found = true;
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    throw DecodeError(std::string("object JSON is malformed: ") + e.what());
  }
  if (!found) throw DecodeError("object has no metadata");
  if (meta.name.empty()) throw DecodeError("object has no metadata.name");
  return meta;
}

}  // namespace tailor::kube::cache
