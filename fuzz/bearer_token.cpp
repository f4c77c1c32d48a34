// A bearer token as tailor-cluster's authenticator reads it (embedded/auth/jwt.h,
// token_claims.h). The first byte picks what the rest is:
// - even: the token text any client may send. It is never accepted (the fuzzer cannot sign with
//   the cluster's key), and reading it never throws.
// - odd: claims JSON, signed with the cluster's key as a TokenRequest would be, then read back and
//   checked at a fixed time: the verified claims are the signed ones, and a subject that passes
//   names its namespace and its ServiceAccount in full.
#include <boost/json.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/auth/jwt.h"
#include "embedded/auth/token_claims.h"
#include "fuzz/fuzz_check.h"
#include "kube/model/json_value.h"

namespace {

namespace bj = boost::json;
using tailor::fuzz::check;
namespace auth = tailor::embedded;

const auth::SigningKey& key() {
  static const auth::SigningKey k = auth::SigningKey::generate();
  return k;
}

void client_token(std::string_view text) {
  check(!auth::verified_claims(key(), text), "an unsigned token is refused", text);
}

void signed_claims(std::string_view text) {
  boost::system::error_code ec;
  bj::value claims = tailor::kube::json::parse_value(text, ec);
  if (ec || !claims.is_object()) return;
  const std::string token = auth::encode_jwt(key(), claims.get_object());
  std::optional<bj::object> back = auth::verified_claims(key(), token);
  check(back.has_value() && *back == claims.get_object(), "signed claims read back", text);
  const tailor::kube::TimePoint now{std::chrono::seconds(1'800'000'000)};
  const std::vector<std::string> audiences = {auth::kServiceAccountIssuer};
  std::optional<auth::TokenSubject> subject =
      auth::check_token_claims(*back, auth::kServiceAccountIssuer, audiences, now);
  if (!subject) return;
  check(!subject->ns.empty() && !subject->service_account.name.empty() &&
            !subject->service_account.uid.empty(),
        "an accepted subject is whole", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    client_token(rest);
  } else {
    signed_claims(rest);
  }
  return 0;
}
