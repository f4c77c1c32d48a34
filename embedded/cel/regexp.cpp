#include "embedded/cel/regexp.h"

#include <re2/re2.h>

#include <map>
#include <memory>

namespace tailor::embedded::cel {
namespace {

// Go's regexp/syntax ErrorCode texts for RE2's codes.
std::string go_error_code(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

std::unique_ptr<RE2> compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error goes to the client, not to stderr
  return std::make_unique<RE2>(pattern, options);
}

// Compiled patterns per thread; the patterns are those of the served CRDs, so a few. Dropped
// wholesale past a bound, so CRD churn cannot grow it without limit.
const RE2& compiled(const std::string& pattern) {
  constexpr std::size_t kMaxCached = 256;
  thread_local std::map<std::string, std::unique_ptr<RE2>, std::less<>> cache;
  auto it = cache.find(pattern);
  if (it != cache.end()) return *it->second;
  if (cache.size() >= kMaxCached) cache.clear();
  return *cache.emplace(pattern, compile(pattern)).first->second;
}

}  // namespace

std::string regexp_error(const std::string& pattern) {
  const std::unique_ptr<RE2> re = compile(pattern);
  if (re->ok()) return "";
  return "error parsing regexp: " + go_error_code(re->error_code()) + ": `" + re->error_arg() + "`";
}

std::optional<bool> regexp_matches(const std::string& pattern, std::string_view text) {
  const RE2& re = compiled(pattern);
  if (!re.ok()) return std::nullopt;
  return RE2::PartialMatch(text, re);
}

std::optional<std::vector<std::string>> regexp_find_all(const std::string& pattern,
                                                        std::string_view text, long limit) {
  const RE2& re = compiled(pattern);
  if (!re.ok()) return std::nullopt;
  std::vector<std::string> out;
  std::size_t at = 0;
  std::size_t previous_end = std::string_view::npos;
  while (at <= text.size() && (limit < 0 || static_cast<long>(out.size()) < limit)) {
    re2::StringPiece match;
    if (!re.Match(re2::StringPiece(text.data(), text.size()), at, text.size(), RE2::UNANCHORED,
                  &match, 1))
      break;
    std::size_t begin = static_cast<std::size_t>(match.data() - text.data());
    std::size_t end = begin + match.size();
    // Go skips an empty match right after the previous match.
    if (!(match.empty() && begin == previous_end)) out.emplace_back(match.data(), match.size());
    previous_end = end;
    at = end > begin ? end : end + 1;
  }
  return out;
}

}  // namespace tailor::embedded::cel
