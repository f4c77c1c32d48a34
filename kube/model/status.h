// metav1.Status: the body of API errors and of watch ERROR events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tailor::kube {

struct StatusCause {
  std::string reason{};  // "FieldValueInvalid", ...
  std::string message{};
  std::string field{};
};

struct StatusDetails {
  std::string name{};
  std::string group{};
  std::string kind{};
  std::string uid{};
  std::vector<StatusCause> causes{};
  std::optional<std::int32_t> retry_after_seconds{};
};

struct Status {
  std::string status{};  // "Success" | "Failure"
  std::string message{};
  std::string reason{};  // "NotFound", "Conflict", "Expired", "Invalid", ...
  std::int32_t code = 0;
  std::optional<StatusDetails> details{};
  std::string resource_version{};  // metadata.resourceVersion
};

}  // namespace tailor::kube
