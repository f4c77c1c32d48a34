// A refused resize is not sent again until the patch or the pod changes.
#include "actuator/refused_resize.h"

#include <gtest/gtest.h>

namespace tailor::actuator {
namespace {

const RefusedResize kRefused{.body = R"({"spec":{"containers":[{"name":"app"}]}})",
                             .generation = 3,
                             .message = "Pod \"web\" is invalid: spec: Forbidden: ..."};

TEST(RefusedResize, TheSamePatchToTheSamePodIsNotResent) {
  EXPECT_FALSE(may_resend(kRefused, kRefused.body, 3));
}

TEST(RefusedResize, ANewRecommendationIsSent) {
  EXPECT_TRUE(may_resend(kRefused, R"({"spec":{"containers":[{"name":"app","x":1}]}})", 3));
}

TEST(RefusedResize, AChangedPodIsTriedAgain) {
  EXPECT_TRUE(may_resend(kRefused, kRefused.body, 4));
}

}  // namespace
}  // namespace tailor::actuator
