// A plain TCP connection to a server under test, for tests that speak HTTP over it by hand.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>

namespace tailor::kube::http::testing {

struct PlainClient {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket{io};
  explicit PlainClient(std::uint16_t port) {
    socket.connect(
        boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  }
};

}  // namespace tailor::kube::http::testing
