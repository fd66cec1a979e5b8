// PartialStream (see partial_stream.h; docs/proxy.md "Partial answers").

#include "weld/proxy/partial_stream.h"

#include <atomic>


namespace weld::proxy {
namespace {

// Appended to a voided block. It holds no '"': whatever JSON prefix the
// block held, the marker leaves an unclosed string or a token that cannot
// start there, so the block's text (alone, or joined with the others) never
// parses, and a client that ignores the discard event cannot mistake it for
// an answer.
std::string_view marker(std::string_view reason) {
  if (reason == "invalid") return "\n[weld: discarded, this attempt did not match the schema; another follows]";
  if (reason == "repaired") return "\n[weld: discarded; the repaired answer follows]";
  if (reason == "failed") return "\n[weld: discarded; no valid answer, an error follows]";
  return "\n[weld: discarded; the answer as validated follows]";
}

std::atomic<std::uint64_t> streams{0};

}  // namespace

bool PartialStream::supports(Protocol api) { return provider::codec_for(api).streams_partial(); }

PartialStream::PartialStream(Protocol api, StreamHead head) : codec_(provider::codec_for(api)), head_(std::move(head)) {
  if (head_.id.empty()) {
    const std::string seed = head_.model + "\n" + std::to_string(head_.created) + "\n" + std::to_string(++streams);
    head_.id = codec_.answer_id(seed);
  }
}

void PartialStream::start_attempt(int attempt) {
  attempt_ = attempt;
  compactor_ = json::Compactor();
}

std::string PartialStream::emit(std::string_view text) {
  std::string out;
  if (text.empty()) return out;
  if (!started_) {
    out += codec_.answer_stream_start(head_);
    started_ = true;
  }
  if (!block_open_) {
    out += codec_.block_start(head_, index_);
    block_open_ = true;
  }
  out += codec_.block_text(head_, index_, text);
  streamed_ += text;
  return out;
}

std::string PartialStream::feed(std::string_view fragment) { return emit(compactor_.feed(fragment)); }

std::string PartialStream::discard(std::string_view reason, std::string_view errors) {
  if (!block_open_) return {};
  json::Value event = json::Object{{"type", "weld.discard"}, {"index", index_}, {"attempt", attempt_}, {"reason", reason}};
  if (!errors.empty()) event.set("errors", errors);
  std::string out = codec_.discard(head_, index_, marker(reason), event);
  ++index_;
  block_open_ = false;
  streamed_.clear();
  return out;
}

std::string PartialStream::finish(std::string_view text, const Usage& usage, bool repaired) {
  std::string out = emit(compactor_.finish());
  if (block_open_ && streamed_ != text) out += discard(repaired ? "repaired" : "reformatted");
  if (!started_) {
    out += codec_.answer_stream_start(head_);
    started_ = true;
  }
  if (!block_open_) {
    out += codec_.block_start(head_, index_);
    for (std::string_view piece : provider::text_deltas(text)) out += codec_.block_text(head_, index_, piece);
    streamed_.assign(text);
  }
  out += codec_.block_stop(head_, index_);
  out += codec_.message_end(head_, usage);
  block_open_ = false;
  return out;
}

}  // namespace weld::proxy
