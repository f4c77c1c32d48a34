#include "embedded/protobuf/kinds.h"

#include <array>

#include "proto/k8s/apps.pb.h"
#include "proto/k8s/authentication.pb.h"
#include "proto/k8s/authorization.pb.h"
#include "proto/k8s/autoscaling.pb.h"
#include "proto/k8s/batch.pb.h"
#include "proto/k8s/core.pb.h"
#include "proto/k8s/policy.pb.h"
#include "proto/k8s/rbac.pb.h"

namespace tailor::embedded {
namespace {

namespace core = ::k8s::io::api::core::v1;
namespace apps = ::k8s::io::api::apps::v1;
namespace batch = ::k8s::io::api::batch::v1;
namespace authorization = ::k8s::io::api::authorization::v1;
namespace autoscaling = ::k8s::io::api::autoscaling::v1;
namespace policy = ::k8s::io::api::policy::v1;
namespace rbac = ::k8s::io::api::rbac::v1;
namespace authentication = ::k8s::io::api::authentication::v1;

struct ProtobufKind {
  std::string_view api_version;
  std::string_view kind;
  const google::protobuf::Message* prototype;
};

// Naming each default instance also keeps its generated code linked in.
const std::array<ProtobufKind, 20>& kinds() {
  static const std::array<ProtobufKind, 20> table{{
      {"v1", "Namespace", &core::Namespace::default_instance()},
      {"v1", "ConfigMap", &core::ConfigMap::default_instance()},
      {"v1", "Secret", &core::Secret::default_instance()},
      {"v1", "Service", &core::Service::default_instance()},
      {"v1", "ServiceAccount", &core::ServiceAccount::default_instance()},
      {"v1", "ResourceQuota", &core::ResourceQuota::default_instance()},
      {"v1", "Pod", &core::Pod::default_instance()},
      {"apps/v1", "Deployment", &apps::Deployment::default_instance()},
      {"batch/v1", "Job", &batch::Job::default_instance()},
      {"batch/v1", "CronJob", &batch::CronJob::default_instance()},
      {"autoscaling/v1", "HorizontalPodAutoscaler",
       &autoscaling::HorizontalPodAutoscaler::default_instance()},
      {"policy/v1", "PodDisruptionBudget", &policy::PodDisruptionBudget::default_instance()},
      {"authorization.k8s.io/v1", "SelfSubjectAccessReview",
       &authorization::SelfSubjectAccessReview::default_instance()},
      {"authorization.k8s.io/v1", "SelfSubjectRulesReview",
       &authorization::SelfSubjectRulesReview::default_instance()},
      {"authentication.k8s.io/v1", "TokenRequest",
       &authentication::TokenRequest::default_instance()},
      {"authentication.k8s.io/v1", "SelfSubjectReview",
       &authentication::SelfSubjectReview::default_instance()},
      {"rbac.authorization.k8s.io/v1", "Role", &rbac::Role::default_instance()},
      {"rbac.authorization.k8s.io/v1", "ClusterRole", &rbac::ClusterRole::default_instance()},
      {"rbac.authorization.k8s.io/v1", "RoleBinding", &rbac::RoleBinding::default_instance()},
      {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding",
       &rbac::ClusterRoleBinding::default_instance()},
  }};
  return table;
}

}  // namespace

const google::protobuf::Message* protobuf_prototype(std::string_view api_version,
                                                    std::string_view kind) {
  for (const ProtobufKind& k : kinds()) {
    if (k.api_version == api_version && k.kind == kind) return k.prototype;
  }
  return nullptr;
}

}  // namespace tailor::embedded
