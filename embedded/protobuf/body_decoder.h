// A Kubernetes protobuf request body (application/vnd.kubernetes.protobuf: the magic "k8s\0",
// then a runtime.Unknown naming apiVersion/kind around the object's own encoding) as the JSON
// object Kubernetes would decode from it. Failures are kube-apiserver's 400 BadRequest decode
// errors; a resource whose kind has no protobuf schema here is 415 UnsupportedMediaType.
#pragma once

#include <boost/json/fwd.hpp>
#include <string_view>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";

boost::json::object decode_protobuf_body(const ResourceInfo& resource, std::string_view body);

}  // namespace tailor::embedded
