// A FakeCri served over gRPC on a unix socket, for tests that need the real CRI client in the
// path (deadlines, status codes): ListContainers, ContainerStatus and UpdateContainerResources
// are answered from the FakeCri; UpdatePodSandboxResources stays UNIMPLEMENTED as on containerd
// 1.6. Containers in `hang` never get an answer to UpdateContainerResources: the call waits
// until the client gives up, as a stuck runc would leave it.
#pragma once

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "node-agent/cri/cri_messages.h"
#include "proto/cri/api.grpc.pb.h"
#include "tests/node-agent/cri/fake_cri.h"

namespace tailor::node::cri::testing {

class FakeCriServer final : public ::runtime::v1::RuntimeService::Service {
 public:
  // Serves `cri` at `socket` until destroyed.
  FakeCriServer(FakeCri& cri, const std::filesystem::path& socket)
      : cri_(cri), endpoint_("unix://" + socket.string()) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(endpoint_, grpc::InsecureServerCredentials());
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
    if (!server_) throw std::runtime_error("fake CRI could not listen on " + endpoint_);
  }
  ~FakeCriServer() override {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

  const std::string& endpoint() const { return endpoint_; }
  void set_hang(std::set<std::string> ids) {
    std::lock_guard lock(mutex_);
    hang_ = std::move(ids);
  }
  int hung_calls() const {
    std::lock_guard lock(mutex_);
    return hung_calls_;
  }

  grpc::Status ListContainers(grpc::ServerContext*,
                              const ::runtime::v1::ListContainersRequest* request,
                              ::runtime::v1::ListContainersResponse* response) override {
    ContainerFilter filter;
    filter.pod_sandbox_id = request->filter().pod_sandbox_id();
    if (request->filter().has_state())
      filter.state = cri::from_proto(request->filter().state().state());
    for (const auto& [key, value] : request->filter().label_selector()) {
      filter.label_selector[key] = value;
    }
    std::lock_guard lock(mutex_);
    return answer([&] {
      for (const ContainerSummary& c : cri_.list_containers(filter)) {
        auto& out = *response->add_containers();
        out.set_id(c.id);
        out.set_pod_sandbox_id(c.pod_sandbox_id);
        out.mutable_metadata()->set_name(c.name);
        out.mutable_metadata()->set_attempt(c.attempt);
        out.set_state(cri::to_proto(c.state));
        out.mutable_labels()->insert(c.labels.begin(), c.labels.end());
      }
    });
  }

  grpc::Status ContainerStatus(grpc::ServerContext*,
                               const ::runtime::v1::ContainerStatusRequest* request,
                               ::runtime::v1::ContainerStatusResponse* response) override {
    std::lock_guard lock(mutex_);
    return answer([&] {
      const cri::ContainerStatus status = cri_.container_status(request->container_id());
      auto& out = *response->mutable_status();
      out.set_id(status.id);
      out.mutable_metadata()->set_name(status.name);
      out.mutable_metadata()->set_attempt(status.attempt);
      out.set_state(cri::to_proto(status.state));
      out.mutable_labels()->insert(status.labels.begin(), status.labels.end());
      if (status.resources) {
        cri::fill(*out.mutable_resources()->mutable_linux(), *status.resources);
      }
    });
  }

  grpc::Status UpdateContainerResources(
      grpc::ServerContext* context, const ::runtime::v1::UpdateContainerResourcesRequest* request,
      ::runtime::v1::UpdateContainerResourcesResponse*) override {
    {
      std::lock_guard lock(mutex_);
      if (hang_.contains(request->container_id())) {
        ++hung_calls_;
      } else {
        return answer([&] {
          cri_.update_container_resources(request->container_id(),
                                          cri::from_proto(request->linux()));
        });
      }
    }
    while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return {grpc::StatusCode::CANCELLED, "client gave up"};
  }

 private:
  // The FakeCri's errors as the status codes a runtime answers with.
  template <typename F>
  static grpc::Status answer(F&& body) {
    try {
      body();
      return grpc::Status::OK;
    } catch (const CriError& e) {
      return {e.kind() == CriErrorKind::NotFound ? grpc::StatusCode::NOT_FOUND
                                                 : grpc::StatusCode::UNKNOWN,
              e.what()};
    }
  }

  FakeCri& cri_;
  std::string endpoint_;
  mutable std::mutex mutex_;  // the FakeCri is not thread-safe; gRPC serves calls in parallel
  std::set<std::string> hang_;
  int hung_calls_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace tailor::node::cri::testing
