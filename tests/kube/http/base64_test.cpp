#include "kube/http/base64.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::kube {
namespace {

TEST(Base64, Rfc4648Vectors) {
  struct Case {
    const char* plain;
    const char* encoded;
  };
  for (const Case& c :
       {Case{"", ""}, Case{"f", "Zg=="}, Case{"fo", "Zm8="}, Case{"foo", "Zm9v"},
        Case{"foob", "Zm9vYg=="}, Case{"fooba", "Zm9vYmE="}, Case{"foobar", "Zm9vYmFy"}}) {
    EXPECT_EQ(base64_encode(c.plain), c.encoded);
    EXPECT_EQ(base64_decode(c.encoded), c.plain);
  }
  EXPECT_EQ(base64_decode("Zm9v\nYmFy\n"), "foobar");  // wrapped lines
  std::string binary("\x00\xff\x10\x80", 4);
  EXPECT_EQ(base64_decode(base64_encode(binary)), binary);
}

TEST(Base64, RejectsInvalidData) {
  for (const char* bad : {"Zm9", "Zm9v!", "Zg=a", "Z===", "Zm9vYg="}) {
    EXPECT_THROW(base64_decode(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tailor::kube
