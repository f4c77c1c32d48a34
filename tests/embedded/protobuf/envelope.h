// Builds protobuf request bodies as kubectl does: "k8s\0" + runtime.Unknown around the object.
#pragma once

#include <string>
#include <string_view>

#include "proto/k8s/runtime.pb.h"

namespace tailor::embedded::testing {

inline std::string envelope(std::string_view api_version, std::string_view kind,
                            const std::string& raw) {
  ::k8s::io::apimachinery::pkg::runtime::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion(std::string(api_version));
  unknown.mutable_typemeta()->set_kind(std::string(kind));
  unknown.set_raw(raw);
  return std::string("k8s\0", 4) + unknown.SerializeAsString();
}

template <typename Message>
std::string protobuf_body(std::string_view api_version, std::string_view kind,
                          const Message& object) {
  return envelope(api_version, kind, object.SerializeAsString());
}

}  // namespace tailor::embedded::testing
