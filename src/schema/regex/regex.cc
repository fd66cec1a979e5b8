// Regex: RE2 (linear time) when the translated pattern allows it, else PCRE2
// under a match/depth/heap budget (docs/schema.md, "What validates").

#include "weld/schema/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <re2/re2.h>

#include "translate.h"

namespace weld::schema {
namespace {

// PCRE2 budget. The match limit counts backtracking steps; 1,000,000 is a few
// milliseconds of work, far beyond what a sane pattern needs on a JSON string.
constexpr std::uint32_t kMatchLimit = 1'000'000;
constexpr std::uint32_t kDepthLimit = 10'000;
constexpr std::uint32_t kHeapLimitKib = 32 * 1024;

struct PcreCodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct PcreContextDeleter {
  void operator()(pcre2_match_context* context) const { pcre2_match_context_free(context); }
};
struct PcreDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

std::string pcre_error_text(int code) {
  PCRE2_UCHAR buffer[256];
  int length = pcre2_get_error_message(code, buffer, sizeof buffer);
  if (length < 0) return "error " + std::to_string(code);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<std::size_t>(length));
}

}  // namespace

struct Regex::Impl {
  std::string pattern;
  std::unique_ptr<RE2> re2;
  std::unique_ptr<pcre2_code, PcreCodeDeleter> pcre;
  std::unique_ptr<pcre2_match_context, PcreContextDeleter> context;
};

Regex::Regex(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

Result<Regex> Regex::compile(std::string_view pattern) {
  Result<regex_detail::Translation> translation = regex_detail::translate(pattern);
  if (!translation) return translation.error();
  auto impl = std::make_shared<Impl>();
  impl->pattern = std::string(pattern);
  std::string re2_problem;
  if (!translation->needs_backtracking) {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingUTF8);
    options.set_log_errors(false);
    options.set_max_mem(64 << 20);
    auto re2 = std::make_unique<RE2>(translation->re2, options);
    if (re2->ok()) {
      impl->re2 = std::move(re2);
      return Regex(std::move(impl));
    }
    // RE2 refuses some valid patterns (repetition above 1000, programs too
    // large): fall back to the bounded engine rather than reject them.
    re2_problem = re2->error();
  }
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  const std::string& source = translation->pcre2;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(),
                                   PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_MATCH_UNSET_BACKREF |
                                       PCRE2_NEVER_BACKSLASH_C,
                                   &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    std::string why = pcre_error_text(error_code);
    if (why.find("lookbehind") != std::string::npos) why = "look-behind of variable length is not supported";
    return Error{ErrorCode::Regex, "Unsupported regular expression: /" + std::string(pattern) + "/u: " + why, ""};
  }
  impl->pcre.reset(code);
  // JIT when the platform has it (several times faster); the match limit
  // still applies, and a JIT stack overflow counts as a budget overrun.
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  impl->context.reset(pcre2_match_context_create(nullptr));
  pcre2_set_match_limit(impl->context.get(), kMatchLimit);
  pcre2_set_depth_limit(impl->context.get(), kDepthLimit);
  pcre2_set_heap_limit(impl->context.get(), kHeapLimitKib);
  return Regex(std::move(impl));
}

Regex::Match Regex::search(std::string_view subject) const {
  if (impl_->re2) {
    return RE2::PartialMatch(re2::StringPiece(subject.data(), subject.size()), *impl_->re2) ? Match::Yes
                                                                                             : Match::No;
  }
  std::unique_ptr<pcre2_match_data, PcreDataDeleter> data(
      pcre2_match_data_create_from_pattern(impl_->pcre.get(), nullptr));
  int rc = pcre2_match(impl_->pcre.get(), reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                       data.get(), impl_->context.get());
  if (rc >= 0) return Match::Yes;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
      rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    return Match::BudgetExceeded;
  }
  return Match::No;  // no match, or a subject that is not UTF-8
}

const std::string& Regex::pattern() const { return impl_->pattern; }

bool Regex::is_bounded() const { return impl_->re2 == nullptr; }

Status Regex::check_syntax(std::string_view pattern) {
  Result<regex_detail::Translation> translation = regex_detail::translate(pattern);
  if (!translation) return translation.error();
  return Ok{};
}

}  // namespace weld::schema
