#pragma once
/// \file
/// Compacting JSON text while it is still being written (the
/// proxy's `stream_partial`, docs/proxy.md "Partial answers"): a model's JSON arrives in fragments, and the
/// client should see, fragment by fragment, the text `serialize` will give
/// the finished document, so that what it received adds up to the final
/// answer. Whitespace between tokens is dropped, strings are re-escaped and
/// numbers rewritten by `serialize`'s rules; a string's content is given as
/// far as it has come, a number or literal once something ends it.
///
/// \code
///   weld::json::Compactor compactor;
///   std::string out = compactor.feed(R"({ "summary": "Ren)");  // {"summary":"Ren
///   out += compactor.feed(R"(ders \u00e9" })");                // ders é"}
///   out += compactor.finish();                                  // ""
///   // out == weld::json::serialize(*weld::json::parse(...the whole text...))
/// \endcode

#include <string>
#include <string_view>

namespace weld::json {

/// Feeds a JSON document's text in any split; gives back its compact form
/// as far as it is known. Text that is not JSON stops the output for good
/// (`stopped()`): what was given is then a prefix of nothing in particular,
/// and a caller must compare the whole output with the final text it means
/// to present before treating it as that text. The output is always valid
/// UTF-8 and ends at a token boundary or between code points of a string.
class Compactor {
 public:
  /// The compact text that `fragment` adds (may be empty).
  std::string feed(std::string_view fragment);
  /// The end of the text: a number or literal still held back (a root that
  /// is a scalar), or "" (then `stopped()` when the text was incomplete).
  std::string finish();
  /// True once the text stopped being JSON (or went on after its root
  /// value): nothing more is given.
  bool stopped() const { return stopped_; }

 private:
  // Emits complete tokens from pending_; keeps an incomplete one.
  std::string drain(bool at_end);
  // Appends a string's raw content `raw` (no quotes) re-escaped by
  // serialize's rules; false when it is not valid string content.
  bool append_string_content(std::string& out, std::string_view raw);

  std::string pending_;   // text not yet given out; starts with '"' inside a string
  bool in_string_ = false;
  int depth_ = 0;         // open containers
  bool done_ = false;     // the root value is complete
  bool stopped_ = false;
};

}  // namespace weld::json
