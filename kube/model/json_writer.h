// Private to the model's encoders: model values to Boost.JSON values (pulls in Boost.JSON).
#pragma once

#include <boost/json.hpp>

#include "kube/model/list.h"

namespace tailor::kube::json {

namespace bj = boost::json;

// Sets key only when the value is non-empty / non-zero / set, like Go's omitempty.
void put(bj::object& o, std::string_view key, const std::string& value);
void put(bj::object& o, std::string_view key, std::int64_t value);
void put(bj::object& o, std::string_view key, bool value);
void put(bj::object& o, std::string_view key, bj::value value);
template <class T>
void put(bj::object& o, std::string_view key, const std::optional<T>& value) {
  if (value) o[key] = *value;
}

bj::value to_value(const ResourceList& list);
bj::value to_value(const ResourceRequirements& resources);
bj::object to_value(const ObjectMeta& meta);
bj::object to_value(const PodCondition& condition);
bj::object to_value(const ContainerStatus& status);
bj::object lease_spec(const LeaseSpec& spec);

}  // namespace tailor::kube::json
