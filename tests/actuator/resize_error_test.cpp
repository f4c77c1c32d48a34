#include "actuator/resize_error.h"

#include <gtest/gtest.h>

namespace tailor::actuator {
namespace {

struct ErrorCase {
  int code;
  const char* message;
  ResizeErrorAction action;
};

TEST(ClassifyResizeError, ByCodeAndApiServerMessage) {
  std::vector<ErrorCase> cases{
      {404, "the server could not find the requested resource", ResizeErrorAction::Recreate},
      {404, "pods \"web-1\" not found", ResizeErrorAction::PodGone},
      {405, "the server does not allow this method on the requested resource",
       ResizeErrorAction::Recreate},
      {422,
       "Pod \"web-1\" is invalid: spec: Forbidden: Pod running on node without support for "
       "resize",
       ResizeErrorAction::Recreate},
      {403,
       "pods \"web-1\" is forbidden: exceeded quota: compute-resources, requested: "
       "requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2",
       ResizeErrorAction::QuotaExceeded},
      {403,
       "pods \"web-1\" is forbidden: User \"system:serviceaccount:kube-system:tailor\" "
       "cannot patch resource \"pods/resize\" in API group \"\" in the namespace \"default\"",
       ResizeErrorAction::Forbidden},
      {403, "admission webhook \"deny.example.com\" denied the request: resizes are frozen",
       ResizeErrorAction::Rejected},
      {422,
       "Pod \"web-1\" is invalid: spec: Forbidden: Pod QOS Class may not change as a result "
       "of resizing",
       ResizeErrorAction::Rejected},
      {409, "Operation cannot be fulfilled on pods \"web-1\": the object has been modified",
       ResizeErrorAction::RetryNow},
      {429, "Too many requests", ResizeErrorAction::RetryLater},
      {500, "etcdserver: request timed out", ResizeErrorAction::RetryLater},
      {0, "connection refused", ResizeErrorAction::RetryLater},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(classify_resize_error(c.code, c.message), c.action)
        << c.code << " " << c.message << ": "
        << to_string(classify_resize_error(c.code, c.message));
  }
}

}  // namespace
}  // namespace tailor::actuator
