// The kinds whose Kubernetes protobuf encoding tailor-cluster understands (proto/k8s/): what
// kubectl create and kubectl auth can-i send.
#pragma once

#include <string_view>

namespace google::protobuf {
class Message;
}

namespace tailor::embedded {

// The empty message of apiVersion/kind ("apps/v1", "Deployment"); nullptr when not known.
const google::protobuf::Message* protobuf_prototype(std::string_view api_version,
                                                    std::string_view kind);

}  // namespace tailor::embedded
