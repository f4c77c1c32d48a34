#include "kube/http/url.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::kube::http {
namespace {

TEST(Url, PercentEncodingRoundTrips) {
  EXPECT_EQ(percent_encode("app=web,tier in (a b)"), "app%3Dweb%2Ctier%20in%20%28a%20b%29");
  EXPECT_EQ(percent_encode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(percent_decode("app%3Dweb%2Ctier%20in"), "app=web,tier in");
  EXPECT_EQ(percent_decode("a+b"), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
}

TEST(Url, MalformedEscapesAreErrors) {
  for (const char* bad : {"%", "%4", "%zz", "abc%g1"}) {
    EXPECT_THROW(percent_decode(bad), std::invalid_argument) << bad;
  }
}

TEST(Url, QueryStrings) {
  QueryParams params = parse_query("limit=500&continue=abc%3D%3D&watch&&labelSelector=a%3Db");
  QueryParams expected{
      {"limit", "500"}, {"continue", "abc=="}, {"watch", ""}, {"labelSelector", "a=b"}};
  EXPECT_EQ(params, expected);
  EXPECT_EQ(build_query({{"labelSelector", "a=b,c!=d"}, {"limit", "5"}}),
            "labelSelector=a%3Db%2Cc%21%3Dd&limit=5");
  EXPECT_EQ(build_query({}), "");
}

TEST(Url, ParsesBaseUrls) {
  struct Case {
    const char* text;
    bool tls;
    const char* host;
    int port;
    const char* prefix;
  };
  for (const Case& c :
       {Case{"https://10.0.0.1:6443", true, "10.0.0.1", 6443, ""},
        Case{"https://api.example.com", true, "api.example.com", 443, ""},
        Case{"http://localhost:8080/", false, "localhost", 8080, ""},
        Case{"http://localhost", false, "localhost", 80, ""},
        Case{"https://[::1]:6443/k8s/clusters/c1/", true, "::1", 6443, "/k8s/clusters/c1"}}) {
    Url url = parse_url(c.text);
    EXPECT_EQ(url.tls, c.tls) << c.text;
    EXPECT_EQ(url.host, c.host) << c.text;
    EXPECT_EQ(url.port, c.port) << c.text;
    EXPECT_EQ(url.path_prefix, c.prefix) << c.text;
  }
  for (const char* bad : {"ftp://x", "https://", "https://host:0", "https://host:99999",
                          "https://host:12ab", "https://[::1", "localhost:6443"}) {
    EXPECT_THROW(parse_url(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tailor::kube::http
