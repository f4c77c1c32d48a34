// The usage gate's pure parts (usage_gate.h): the listen address, the connection slots that stop
// and resume accepting, and the relay ports' real peers. The gate's I/O is tested over plain TCP
// in usage_gate_relay_test.cpp, and over TLS and gRPC in tests/controller/usage/limits.
#include "controller/usage/usage_gate.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::controller::usage {
namespace {

TEST(SplitHostPort, TakesHostAndPortOfEachForm) {
  struct Case {
    const char* address;
    const char* host;
    const char* port;
  };
  for (const Case& c :
       {Case{"10.0.0.5:8443", "10.0.0.5", "8443"}, Case{"127.0.0.1:0", "127.0.0.1", "0"},
        Case{"[fd00::1]:8443", "fd00::1", "8443"}, Case{"[::]:8443", "::", "8443"},
        Case{":8443", "", "8443"}, Case{"localhost:8443", "localhost", "8443"}}) {
    const auto [host, port] = split_host_port(c.address);
    EXPECT_EQ(host, c.host) << c.address;
    EXPECT_EQ(port, c.port) << c.address;
  }
}

TEST(SplitHostPort, RefusesAnAddressWithoutAPort) {
  for (const char* address : {"10.0.0.5", "10.0.0.5:", "[fd00::1]", "fd00::1:8443", "[::1]8443"}) {
    EXPECT_THROW(split_host_port(address), std::invalid_argument) << address;
  }
}

TEST(ConnectionSlots, AcceptingStopsAtTheCapAndResumesWhenOneCloses) {
  ConnectionSlots slots(3);
  EXPECT_TRUE(slots.take());
  EXPECT_TRUE(slots.take());
  EXPECT_FALSE(slots.take());  // the third fills it: accept no more
  EXPECT_EQ(slots.open(), 3);
  EXPECT_TRUE(slots.give_back());  // it was full: accept again
  EXPECT_FALSE(slots.take());      // full again
  EXPECT_TRUE(slots.give_back());
  EXPECT_FALSE(slots.give_back());  // accepting had not stopped: nothing to resume
  EXPECT_FALSE(slots.give_back());
  EXPECT_EQ(slots.open(), 0);
}

TEST(ConnectionSlots, ACapOfOneHoldsOneConnection) {
  ConnectionSlots slots(1);
  EXPECT_FALSE(slots.take());
  EXPECT_TRUE(slots.give_back());
  EXPECT_EQ(slots.open(), 0);
}

TEST(PeerBook, NamesTheClientOfARelayPort) {
  PeerBook book;
  book.add(41000, "ipv4:10.0.0.5:50123");
  book.add(41001, "ipv6:[fd00::7]:50124");
  EXPECT_EQ(book.resolve("ipv4:127.0.0.1:41000"), "ipv4:10.0.0.5:50123");
  EXPECT_EQ(book.resolve("ipv4:127.0.0.1:41001"), "ipv6:[fd00::7]:50124");
  book.remove(41000);
  EXPECT_EQ(book.resolve("ipv4:127.0.0.1:41000"), "ipv4:127.0.0.1:41000");
  EXPECT_EQ(book.size(), 1u);
}

TEST(PeerBook, LeavesOtherPeersAsGrpcNamedThem) {
  PeerBook book;
  book.add(41000, "ipv4:10.0.0.5:50123");
  for (const char* peer : {"ipv4:10.0.0.9:41000", "ipv4:127.0.0.1:4100", "ipv4:127.0.0.1:41000x",
                           "ipv4:127.0.0.1:", "ipv6:[::1]:41000", "unix:/tmp/s", ""}) {
    EXPECT_EQ(book.resolve(peer), peer);
  }
}

}  // namespace
}  // namespace tailor::controller::usage
