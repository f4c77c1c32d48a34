// core/v1 Container and ContainerStatus, every field (k8s.io/api core/v1 types.go).
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

// What an autoscaler's users write most: requests and limits (a typo there must not vanish).
const KnownFields& resource_claim() {
  static const KnownFields f = fields({"name", "request"});
  return f;
}

const KnownFields& container_port() {
  // protocol's default is in the schema ("TCP"), so apply names a port that omits it.
  static const KnownFields f =
      keyed(fields({"name", "hostPort", "containerPort", "protocol", "hostIP"}),
            {{"containerPort"}, {"protocol", "TCP"}});
  return f;
}

const KnownFields& key_selector() {  // ConfigMapKeySelector, SecretKeySelector
  static const KnownFields f = fields({"name", "key", "optional"});
  return f;
}

const KnownFields& file_key_selector() {
  static const KnownFields f = fields({"volumeName", "path", "key", "optional"});
  return f;
}

const KnownFields& env_var_source() {
  static const KnownFields f = fields({}, {{"fieldRef", &object_field_selector()},
                                           {"resourceFieldRef", &resource_field_selector()},
                                           {"configMapKeyRef", &key_selector()},
                                           {"secretKeyRef", &key_selector()},
                                           {"fileKeyRef", &file_key_selector()}});
  return f;
}

const KnownFields& env_var() {
  static const KnownFields f =
      keyed(fields({"name", "value"}, {{"valueFrom", &env_var_source()}}), {{"name"}});
  return f;
}

const KnownFields& env_source_reference() {  // ConfigMapEnvSource, SecretEnvSource
  static const KnownFields f = fields({"name", "optional"});
  return f;
}

const KnownFields& env_from_source() {
  static const KnownFields f = fields({"prefix"}, {{"configMapRef", &env_source_reference()},
                                                   {"secretRef", &env_source_reference()}});
  return f;
}

const KnownFields& volume_mount() {
  static const KnownFields f = keyed(fields({"name", "readOnly", "recursiveReadOnly", "mountPath",
                                             "subPath", "mountPropagation", "subPathExpr"}),
                                     {{"mountPath"}});
  return f;
}

const KnownFields& volume_device() {
  static const KnownFields f = keyed(fields({"name", "devicePath"}), {{"devicePath"}});
  return f;
}

// ---- probes and lifecycle hooks

const KnownFields& exec_action() {
  static const KnownFields f = fields({"command"});
  return f;
}

const KnownFields& http_header() {
  static const KnownFields f = fields({"name", "value"});
  return f;
}

const KnownFields& http_get_action() {
  static const KnownFields f =
      fields({"path", "port", "host", "scheme"}, {{"httpHeaders", &http_header()}});
  return f;
}

const KnownFields& tcp_socket_action() {
  static const KnownFields f = fields({"port", "host"});
  return f;
}

const KnownFields& grpc_action() {
  static const KnownFields f = fields({"port", "service"});
  return f;
}

const KnownFields& sleep_action() {
  static const KnownFields f = fields({"seconds"});
  return f;
}

const KnownFields& probe() {
  static const KnownFields f =
      fields({"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold",
              "failureThreshold", "terminationGracePeriodSeconds"},
             {{"exec", &exec_action()},
              {"httpGet", &http_get_action()},
              {"tcpSocket", &tcp_socket_action()},
              {"grpc", &grpc_action()}});
  return f;
}

const KnownFields& lifecycle_handler() {
  static const KnownFields f = fields({}, {{"exec", &exec_action()},
                                           {"httpGet", &http_get_action()},
                                           {"tcpSocket", &tcp_socket_action()},
                                           {"sleep", &sleep_action()}});
  return f;
}

const KnownFields& lifecycle() {
  static const KnownFields f = fields(
      {"stopSignal"}, {{"postStart", &lifecycle_handler()}, {"preStop", &lifecycle_handler()}});
  return f;
}

// ---- security context

const KnownFields& capabilities() {
  static const KnownFields f = fields({"add", "drop"});
  return f;
}

const KnownFields& security_context() {
  static const KnownFields f =
      fields({"privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem",
              "allowPrivilegeEscalation", "procMount"},
             {{"capabilities", &capabilities()},
              {"seLinuxOptions", &se_linux_options()},
              {"windowsOptions", &windows_options()},
              {"seccompProfile", &seccomp_profile()},
              {"appArmorProfile", &seccomp_profile()}});
  return f;
}

// ---- restart rules and resize policy

const KnownFields& resize_policy() {
  static const KnownFields f = fields({"resourceName", "restartPolicy"});
  return f;
}

const KnownFields& exit_codes_requirement() {
  static const KnownFields f = fields({"operator", "values"});
  return f;
}

const KnownFields& restart_rule() {
  static const KnownFields f = fields({"action"}, {{"exitCodes", &exit_codes_requirement()}});
  return f;
}

// ---- status

const KnownFields& container_state() {
  static const KnownFields waiting = fields({"reason", "message"});
  static const KnownFields running = fields({"startedAt"});
  static const KnownFields terminated =
      fields({"exitCode", "signal", "reason", "message", "startedAt", "finishedAt", "containerID"});
  static const KnownFields f =
      fields({}, {{"waiting", &waiting}, {"running", &running}, {"terminated", &terminated}});
  return f;
}

const KnownFields& volume_mount_status() {
  static const KnownFields f = fields({"name", "mountPath", "readOnly", "recursiveReadOnly"});
  return f;
}

const KnownFields& container_user() {
  static const KnownFields linux = fields({"uid", "gid", "supplementalGroups"});
  static const KnownFields f = fields({}, {{"linux", &linux}});
  return f;
}

const KnownFields& resource_status() {
  static const KnownFields health = fields({"resourceID", "health"});
  static const KnownFields f = fields({"name"}, {{"resources", &health}});
  return f;
}

}  // namespace

const KnownFields& resource_requirements() {
  static const KnownFields f = fields({"limits", "requests"}, {{"claims", &resource_claim()}});
  return f;
}

const KnownFields& object_field_selector() {
  static const KnownFields f = fields({"apiVersion", "fieldPath"});
  return f;
}

const KnownFields& resource_field_selector() {
  static const KnownFields f = fields({"containerName", "resource", "divisor"});
  return f;
}

const KnownFields& se_linux_options() {
  static const KnownFields f = fields({"user", "role", "type", "level"});
  return f;
}

const KnownFields& windows_options() {
  static const KnownFields f =
      fields({"gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName", "hostProcess"});
  return f;
}

const KnownFields& seccomp_profile() {  // also AppArmorProfile
  static const KnownFields f = fields({"type", "localhostProfile"});
  return f;
}

const KnownFields& container() {
  static const KnownFields f =
      keyed(fields({"name", "image", "command", "args", "workingDir", "restartPolicy",
                    "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
                    "stdin", "stdinOnce", "tty"},
                   {{"ports", &container_port()},
                    {"envFrom", &env_from_source()},
                    {"env", &env_var()},
                    {"resources", &resource_requirements()},
                    {"resizePolicy", &resize_policy()},
                    {"restartPolicyRules", &restart_rule()},
                    {"volumeMounts", &volume_mount()},
                    {"volumeDevices", &volume_device()},
                    {"livenessProbe", &probe()},
                    {"readinessProbe", &probe()},
                    {"startupProbe", &probe()},
                    {"lifecycle", &lifecycle()},
                    {"securityContext", &security_context()}}),
            {{"name"}});
  return f;
}

const KnownFields& ephemeral_container() {
  static const KnownFields f = [] {
    KnownFields e = container();
    e.fields.emplace("targetContainerName", nullptr);
    return e;
  }();
  return f;
}

const KnownFields& container_status() {
  static const KnownFields f =
      fields({"name", "ready", "restartCount", "image", "imageID", "containerID", "started",
              "allocatedResources", "stopSignal"},
             {{"state", &container_state()},
              {"lastState", &container_state()},
              {"resources", &resource_requirements()},
              {"volumeMounts", &volume_mount_status()},
              {"user", &container_user()},
              {"allocatedResourcesStatus", &resource_status()}});
  return f;
}

}  // namespace tailor::embedded::known
