#pragma once
/// \file
/// A tagged answer streamed to the client while the upstream generates it
/// (registry `"stream_partial": true`; docs/proxy.md "Partial
/// answers"). The model's JSON goes out as text deltas in its compact form
/// (json::Compactor). When the attempt validates and the validated text is
/// what was streamed, the message simply ends: the block's deltas add up to
/// the answer. Otherwise what was streamed is voided by a discard (a marker
/// that makes the block's text unparseable, the block closed, a
/// `weld.discard` event) and the next attempt, or the repaired answer,
/// streams in a new block (Anthropic content block, OpenAI choice index).
///
/// \code
///   PartialStream partial(Protocol::AnthropicMessages, head);
///   partial.start_attempt(1);
///   send(partial.feed(fragment));                 // per argument fragment
///   if (retry) send(partial.discard("invalid", verdict.errors));
///   else send(partial.finish(verdict.text, usage, !verdict.repairs.empty()));
/// \endcode

#include <string>
#include <string_view>

#include "weld/json/compact.h"
#include "weld/proxy/weld.h"

namespace weld::proxy {

/// The frames of one partially streamed answer, in the client's API shape.
class PartialStream {
 public:
  /// Anthropic Messages and OpenAI Chat; false for the Responses API, whose
  /// clients get the whole answer at the end.
  static bool supports(Protocol api);

  /// `head.id` empty: a fresh "msg_weld_…" / "chatcmpl-weld…" id is made.
  PartialStream(Protocol api, StreamHead head);

  /// A new upstream attempt (1-based): its text goes to a fresh compactor.
  void start_attempt(int attempt);

  /// A fragment of the attempt's JSON as the model writes it: the frames to
  /// send now (the message's opening the first time, the block's opening,
  /// a text delta), or "" when nothing new is known.
  std::string feed(std::string_view fragment);

  /// The current block's text is void: `reason` "invalid" (another attempt
  /// follows; `errors` are its validation messages) or "failed" (an error
  /// frame follows). The discard frames, or "" when the block holds nothing.
  std::string discard(std::string_view reason, std::string_view errors = {});

  /// The validated answer: the frames that end the message. When `text` is
  /// not what the block holds (repairs, or text the compactor could not
  /// follow) the block is discarded first ("repaired" / "reformatted") and
  /// `text` sent whole in a new block. Opens the message when nothing was
  /// sent (a caller normally renders the whole stream then instead).
  std::string finish(std::string_view text, const Usage& usage, bool repaired);

  /// True once the message's opening frame was given out.
  bool started() const { return started_; }
  /// The text the current block holds.
  const std::string& streamed() const { return streamed_; }

 private:
  std::string emit(std::string_view text);

  const provider::Codec& codec_;
  StreamHead head_;
  json::Compactor compactor_;
  int attempt_ = 0;
  int index_ = 0;  // the current block (content block / choice index)
  bool started_ = false;
  bool block_open_ = false;
  std::string streamed_;
};

}  // namespace weld::proxy
