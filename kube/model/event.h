// Event (core/v1, the form kubectl describe shows).
#pragma once

#include <cstdint>
#include <string>

#include "kube/model/meta.h"

namespace tailor::kube {

struct EventSource {
  std::string component{};
  std::string host{};
};

struct Event {
  ObjectMeta metadata{};
  ObjectReference involved_object{};
  std::string reason{};
  std::string message{};
  std::string type{};  // "Normal" | "Warning"
  std::int32_t count = 0;
  std::string first_timestamp{};  // metav1.Time
  std::string last_timestamp{};   // metav1.Time
  std::string event_time{};       // metav1.MicroTime
  EventSource source{};
  std::string reporting_component{};
  std::string reporting_instance{};
  std::string action{};
};

}  // namespace tailor::kube
