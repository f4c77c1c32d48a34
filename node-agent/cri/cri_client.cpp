#include "node-agent/cri/cri_client.h"

#include <grpcpp/grpcpp.h>

#include "node-agent/cri/cri_messages.h"
#include "proto/cri/api.grpc.pb.h"

namespace tailor::node::cri {
namespace v1 = ::runtime::v1;

LinuxResources to_linux_resources(const CgroupValues& values) {
  LinuxResources out;
  out.cpu_shares = values.cpu_shares.value_or(0);
  out.cpu_period = values.cpu_period_us.value_or(0);
  const std::int64_t quota = values.cpu_quota_us.value_or(0);
  out.cpu_quota = quota == kUnlimitedQuota ? 0 : quota;
  out.memory_limit_in_bytes = values.memory_limit_bytes.value_or(0);
  return out;
}

namespace {

std::string normalize_endpoint(const std::string& endpoint) {
  if (endpoint.empty()) throw std::invalid_argument("CRI endpoint is empty");
  if (endpoint.front() == '/') return "unix://" + endpoint;
  return endpoint;
}

CriErrorKind kind_of(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return CriErrorKind::Timeout;
    case grpc::StatusCode::UNAVAILABLE:
      return CriErrorKind::Unavailable;
    case grpc::StatusCode::NOT_FOUND:
      return CriErrorKind::NotFound;
    case grpc::StatusCode::UNIMPLEMENTED:
      return CriErrorKind::Unimplemented;
    case grpc::StatusCode::INVALID_ARGUMENT:
      return CriErrorKind::InvalidArgument;
    default:
      return CriErrorKind::Other;
  }
}

struct CallSite {
  const char* method;
  std::string subject;  // "container <id>", "sandbox <id>", or empty
  std::chrono::milliseconds timeout;
};

CriError to_error(const CallSite& site, const grpc::Status& status, const std::string& endpoint) {
  const CriErrorKind kind = kind_of(status.error_code());
  std::string where = std::string("CRI ") + site.method;
  if (!site.subject.empty()) where += " (" + site.subject + ")";
  std::string message;
  switch (kind) {
    case CriErrorKind::Timeout:
      message = where + ": runtime did not answer within " + std::to_string(site.timeout.count()) +
                " ms at " + endpoint;
      break;
    case CriErrorKind::Unavailable:
      message = where + ": runtime unavailable at " + endpoint + ": " + status.error_message();
      break;
    case CriErrorKind::NotFound:
      message = where + ": not found: " + status.error_message();
      break;
    case CriErrorKind::Unimplemented:
      message = where + ": not implemented by the runtime: " + status.error_message();
      break;
    default:
      message = where + " failed (gRPC code " + std::to_string(status.error_code()) +
                "): " + status.error_message();
  }
  return CriError(kind, site.method, message);
}

template <typename Response, typename Request, typename Rpc>
Response unary_call(const CallSite& site, const Request& request, Rpc rpc,
                    const std::string& endpoint) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + site.timeout);
  Response response;
  const grpc::Status status = rpc(&context, request, &response);
  if (!status.ok()) throw to_error(site, status, endpoint);
  return response;
}

class GrpcRuntimeService final : public RuntimeService {
 public:
  explicit GrpcRuntimeService(const CriClientOptions& options)
      : options_(options),
        endpoint_(normalize_endpoint(options.endpoint)),
        stub_(v1::RuntimeService::NewStub(
            grpc::CreateChannel(endpoint_, grpc::InsecureChannelCredentials()))) {}

  RuntimeVersion version() override {
    v1::VersionRequest request;
    request.set_version("v1");
    const auto response = call<v1::VersionResponse>(
        {"Version", "", options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->Version(c, r, p); });
    return {response.version(), response.runtime_name(), response.runtime_version(),
            response.runtime_api_version()};
  }

  std::string run_pod_sandbox(const PodSandboxSpec& sandbox) override {
    v1::RunPodSandboxRequest request;
    cri::fill(*request.mutable_config(), sandbox);
    return call<v1::RunPodSandboxResponse>(
               {"RunPodSandbox", "pod " + sandbox.ns + "/" + sandbox.name, options_.create_timeout},
               request,
               [this](auto* c, const auto& r, auto* p) { return stub_->RunPodSandbox(c, r, p); })
        .pod_sandbox_id();
  }

  void stop_pod_sandbox(const std::string& sandbox_id) override {
    v1::StopPodSandboxRequest request;
    request.set_pod_sandbox_id(sandbox_id);
    call<v1::StopPodSandboxResponse>(
        {"StopPodSandbox", "sandbox " + sandbox_id, options_.create_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->StopPodSandbox(c, r, p); });
  }

  void remove_pod_sandbox(const std::string& sandbox_id) override {
    v1::RemovePodSandboxRequest request;
    request.set_pod_sandbox_id(sandbox_id);
    call<v1::RemovePodSandboxResponse>(
        {"RemovePodSandbox", "sandbox " + sandbox_id, options_.create_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->RemovePodSandbox(c, r, p); });
  }

  SandboxStatus pod_sandbox_status(const std::string& sandbox_id) override {
    v1::PodSandboxStatusRequest request;
    request.set_pod_sandbox_id(sandbox_id);
    return cri::from_proto(
        call<v1::PodSandboxStatusResponse>(
            {"PodSandboxStatus", "sandbox " + sandbox_id, options_.call_timeout}, request,
            [this](auto* c, const auto& r, auto* p) { return stub_->PodSandboxStatus(c, r, p); })
            .status());
  }

  std::int32_t exec_sync(const std::string& container_id, const std::vector<std::string>& command,
                         std::chrono::seconds timeout) override {
    v1::ExecSyncRequest request;
    request.set_container_id(container_id);
    for (const auto& word : command) request.add_cmd(word);
    request.set_timeout(timeout.count());
    // The runtime enforces `timeout`; the call's own deadline leaves it room to say so.
    return call<v1::ExecSyncResponse>(
               {"ExecSync", "container " + container_id, timeout + options_.call_timeout}, request,
               [this](auto* c, const auto& r, auto* p) { return stub_->ExecSync(c, r, p); })
        .exit_code();
  }

  std::vector<SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>& label_selector) override {
    v1::ListPodSandboxRequest request;
    for (const auto& [key, value] : label_selector)
      (*request.mutable_filter()->mutable_label_selector())[key] = value;
    const auto response = call<v1::ListPodSandboxResponse>(
        {"ListPodSandbox", "", options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->ListPodSandbox(c, r, p); });
    std::vector<SandboxStatus> out;
    for (const auto& item : response.items())
      out.push_back({.id = item.id(), .ready = item.state() == v1::SANDBOX_READY});
    return out;
  }

  std::string create_container(const std::string& sandbox_id, const ContainerSpec& container,
                               const PodSandboxSpec& sandbox) override {
    v1::CreateContainerRequest request;
    request.set_pod_sandbox_id(sandbox_id);
    cri::fill(*request.mutable_config(), container);
    cri::fill(*request.mutable_sandbox_config(), sandbox);
    return call<v1::CreateContainerResponse>(
               {"CreateContainer", "container " + container.name + " in sandbox " + sandbox_id,
                options_.create_timeout},
               request,
               [this](auto* c, const auto& r, auto* p) { return stub_->CreateContainer(c, r, p); })
        .container_id();
  }

  void start_container(const std::string& container_id) override {
    v1::StartContainerRequest request;
    request.set_container_id(container_id);
    call<v1::StartContainerResponse>(
        {"StartContainer", "container " + container_id, options_.create_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->StartContainer(c, r, p); });
  }

  void stop_container(const std::string& container_id, std::int64_t grace_seconds) override {
    v1::StopContainerRequest request;
    request.set_container_id(container_id);
    request.set_timeout(grace_seconds);
    // The runtime may wait the whole grace period before it answers.
    const auto timeout = options_.call_timeout + std::chrono::seconds(grace_seconds);
    call<v1::StopContainerResponse>(
        {"StopContainer", "container " + container_id, timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->StopContainer(c, r, p); });
  }

  void remove_container(const std::string& container_id) override {
    v1::RemoveContainerRequest request;
    request.set_container_id(container_id);
    call<v1::RemoveContainerResponse>(
        {"RemoveContainer", "container " + container_id, options_.create_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->RemoveContainer(c, r, p); });
  }

  std::vector<ContainerSummary> list_containers(const ContainerFilter& filter) override {
    v1::ListContainersRequest request;
    cri::fill(*request.mutable_filter(), filter);
    const auto response = call<v1::ListContainersResponse>(
        {"ListContainers", "", options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->ListContainers(c, r, p); });
    std::vector<ContainerSummary> out;
    out.reserve(response.containers_size());
    for (const auto& c : response.containers()) out.push_back(cri::from_proto(c));
    return out;
  }

  ContainerStatus container_status(const std::string& container_id) override {
    v1::ContainerStatusRequest request;
    request.set_container_id(container_id);
    const auto response = call<v1::ContainerStatusResponse>(
        {"ContainerStatus", "container " + container_id, options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->ContainerStatus(c, r, p); });
    return cri::from_proto(response.status());
  }

  void update_container_resources(const std::string& container_id,
                                  const LinuxResources& resources) override {
    v1::UpdateContainerResourcesRequest request;
    request.set_container_id(container_id);
    cri::fill(*request.mutable_linux(), resources);
    call<v1::UpdateContainerResourcesResponse>(
        {"UpdateContainerResources", "container " + container_id, options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) {
          return stub_->UpdateContainerResources(c, r, p);
        });
  }

  SandboxUpdateOutcome update_pod_sandbox_resources(const std::string& sandbox_id,
                                                    const LinuxResources& resources) override {
    v1::UpdatePodSandboxResourcesRequest request;
    request.set_pod_sandbox_id(sandbox_id);
    cri::fill(*request.mutable_resources(), resources);
    try {
      call<v1::UpdatePodSandboxResourcesResponse>(
          {"UpdatePodSandboxResources", "sandbox " + sandbox_id, options_.call_timeout}, request,
          [this](auto* c, const auto& r, auto* p) {
            return stub_->UpdatePodSandboxResources(c, r, p);
          });
    } catch (const CriError& e) {
      if (e.kind() == CriErrorKind::Unimplemented) return SandboxUpdateOutcome::NotSupported;
      throw;
    }
    return SandboxUpdateOutcome::Applied;
  }

 private:
  template <typename Response, typename Request, typename Rpc>
  Response call(const CallSite& site, const Request& request, Rpc rpc) {
    return unary_call<Response>(site, request, rpc, endpoint_);
  }

  CriClientOptions options_;
  std::string endpoint_;
  std::unique_ptr<v1::RuntimeService::Stub> stub_;
};

class GrpcImageService final : public ImageService {
 public:
  explicit GrpcImageService(const CriClientOptions& options)
      : options_(options),
        endpoint_(normalize_endpoint(options.endpoint)),
        stub_(v1::ImageService::NewStub(
            grpc::CreateChannel(endpoint_, grpc::InsecureChannelCredentials()))) {}

  std::optional<ImageInfo> image_status(const std::string& image) override {
    v1::ImageStatusRequest request;
    request.mutable_image()->set_image(image);
    const auto response = unary_call<v1::ImageStatusResponse>(
        {"ImageStatus", "image " + image, options_.call_timeout}, request,
        [this](auto* c, const auto& r, auto* p) { return stub_->ImageStatus(c, r, p); }, endpoint_);
    if (!response.has_image() || response.image().id().empty()) return std::nullopt;
    const auto& found = response.image();
    ImageInfo out{found.id(), {found.repo_tags().begin(), found.repo_tags().end()}, found.size()};
    if (found.has_uid()) out.uid = found.uid().value();
    out.username = found.username();
    return out;
  }

 private:
  CriClientOptions options_;
  std::string endpoint_;
  std::unique_ptr<v1::ImageService::Stub> stub_;
};

}  // namespace

std::unique_ptr<ImageService> connect_image_service(const CriClientOptions& options) {
  return std::make_unique<GrpcImageService>(options);
}

std::unique_ptr<RuntimeService> connect_runtime_service(const CriClientOptions& options) {
  return std::make_unique<GrpcRuntimeService>(options);
}

}  // namespace tailor::node::cri
