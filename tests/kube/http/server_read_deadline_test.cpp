// ReadDeadlines: a socket whose deadline passes has its reading shut down (a blocked read ends)
// and release() says so; deadlines of different lengths each pass on time, a shorter one armed
// behind a longer one included. Waits are generous upper bounds.
#include "kube/http/server_read_deadline.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tailor::kube::http {
namespace {

using namespace std::chrono_literals;

// Both ends of a local stream socket; closed at the end.
struct SocketPair {
  int ends[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0); }
  ~SocketPair() {
    ::close(ends[0]);
    ::close(ends[1]);
  }
  // Whether reading ends[0] reports end of stream within `max` (its reading was shut down).
  bool read_shut_within(std::chrono::milliseconds max) const {
    pollfd p{ends[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(max.count())) <= 0) return false;
    char byte;
    return ::recv(ends[0], &byte, 1, MSG_DONTWAIT) == 0;
  }
};

TEST(ReadDeadlines, ShorterDeadlineArmedBehindALongerOnePassesFirst) {
  ReadDeadlines deadlines;
  deadlines.start();
  SocketPair slow, fast;
  deadlines.arm(slow.ends[0], 60s);
  deadlines.arm(fast.ends[0], 100ms);
  EXPECT_TRUE(fast.read_shut_within(30s));
  EXPECT_FALSE(slow.read_shut_within(0ms));
  EXPECT_TRUE(deadlines.release(fast.ends[0]));
  EXPECT_FALSE(deadlines.release(slow.ends[0]));
}

TEST(ReadDeadlines, ReleasedInTimeIsNotCut) {
  ReadDeadlines deadlines;
  deadlines.start();
  SocketPair pair;
  deadlines.arm(pair.ends[0], 200ms);
  EXPECT_FALSE(deadlines.release(pair.ends[0]));
  EXPECT_FALSE(pair.read_shut_within(400ms));
}

TEST(ReadDeadlines, ZeroMeansNoDeadline) {
  ReadDeadlines deadlines;
  deadlines.start();
  SocketPair pair;
  deadlines.arm(pair.ends[0], 0ms);
  EXPECT_FALSE(pair.read_shut_within(200ms));
  EXPECT_FALSE(deadlines.release(pair.ends[0]));
}

}  // namespace
}  // namespace tailor::kube::http
