// Conversions between the node agent's plain CRI structs and the generated runtime/v1 messages.
// Internal to the CRI client (and tests of it): it pulls in the generated protobuf headers.
#pragma once

#include "node-agent/cri/cri_client.h"
#include "proto/cri/api.pb.h"

namespace tailor::node::cri {

void fill(::runtime::v1::LinuxContainerResources& out, const LinuxResources& in);
LinuxResources from_proto(const ::runtime::v1::LinuxContainerResources& in);

void fill(::runtime::v1::PodSandboxConfig& out, const PodSandboxSpec& in);
void fill(::runtime::v1::ContainerConfig& out, const ContainerSpec& in);
void fill(::runtime::v1::ContainerFilter& out, const ContainerFilter& in);

ContainerState from_proto(::runtime::v1::ContainerState state);
::runtime::v1::ContainerState to_proto(ContainerState state);
ContainerStatus from_proto(const ::runtime::v1::ContainerStatus& in);
ContainerSummary from_proto(const ::runtime::v1::Container& in);
SandboxStatus from_proto(const ::runtime::v1::PodSandboxStatus& in);

}  // namespace tailor::node::cri
