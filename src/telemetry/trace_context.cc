// W3C Trace Context (docs/telemetry.md): ids and the traceparent header.

#include "weld/telemetry/trace_context.h"

#include <array>
#include <cstring>
#include <random>

namespace weld::telemetry {
namespace {

// xoshiro256** (Blackman and Vigna): 256 bits of state, a handful of
// instructions per 64-bit word. One per thread, seeded from the OS: ids must
// be unique across processes, and a lock on the hot path of the proxy would
// cost more than the generator.
class IdGenerator {
 public:
  IdGenerator() {
    std::random_device device;
    for (std::uint64_t& word : state_) word = (std::uint64_t{device()} << 32) | device();
    // All zero is a fixed point of the generator.
    if (state_[0] == 0 && state_[1] == 0 && state_[2] == 0 && state_[3] == 0) state_[0] = 1;
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

IdGenerator& generator() {
  thread_local IdGenerator ids;
  return ids;
}

template <std::size_t N>
void fill_random(std::array<std::uint8_t, N>& bytes) {
  static_assert(N % 8 == 0);
  IdGenerator& ids = generator();
  for (;;) {
    std::uint64_t any = 0;
    for (std::size_t at = 0; at < N; at += 8) {
      const std::uint64_t word = ids.next();
      std::memcpy(bytes.data() + at, &word, 8);
      any |= word;
    }
    if (any != 0) return;  // all zero is an invalid id
  }
}

template <std::size_t N>
bool all_zero(const std::array<std::uint8_t, N>& bytes) {
  for (std::uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is invalid in traceparent
}

// Reads 2*N lower-case hex digits into `out`.
template <std::size_t N>
bool read_hex(std::string_view text, std::array<std::uint8_t, N>& out) {
  if (text.size() != 2 * N) return false;
  for (std::size_t i = 0; i < N; ++i) {
    int high = hex_digit(text[2 * i]);
    int low = hex_digit(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    out[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return true;
}

}  // namespace

bool SpanContext::valid() const { return !all_zero(trace_id) && !all_zero(span_id); }

TraceId new_trace_id() {
  TraceId id;
  fill_random(id);
  return id;
}

SpanId new_span_id() {
  SpanId id;
  fill_random(id);
  return id;
}

namespace {

// The two hex digits of each byte value, in the order they are written.
constexpr std::array<std::array<char, 2>, 256> kHexPairs = [] {
  constexpr char digits[] = "0123456789abcdef";
  std::array<std::array<char, 2>, 256> pairs{};
  for (std::size_t b = 0; b < 256; ++b) pairs[b] = {digits[b >> 4], digits[b & 0x0F]};
  return pairs;
}();

char* write_hex(char* digits, const std::uint8_t* bytes, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) std::memcpy(digits + 2 * i, kHexPairs[bytes[i]].data(), 2);
  return digits + 2 * size;
}

void append_hex(std::string& out, const std::uint8_t* bytes, std::size_t size) {
  const std::size_t at = out.size();
  out.resize(at + 2 * size);
  write_hex(out.data() + at, bytes, size);
}

}  // namespace

std::string to_hex(const std::uint8_t* bytes, std::size_t size) {
  std::string out;
  out.reserve(size * 2);
  append_hex(out, bytes, size);
  return out;
}

std::optional<SpanContext> parse_traceparent(std::string_view value) {
  // Surrounding spaces and tabs are allowed in header values.
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  // version "-" trace-id "-" parent-id "-" trace-flags: 2+1+32+1+16+1+2 = 55.
  if (value.size() < 55 || value[2] != '-' || value[35] != '-' || value[52] != '-') return std::nullopt;
  std::array<std::uint8_t, 1> version{}, flags{};
  if (!read_hex(value.substr(0, 2), version) || version[0] == 0xFF) return std::nullopt;
  // Version 00 is exactly 55 characters; a later version may append fields
  // after a '-', which we ignore (W3C: parse as version 00).
  if (version[0] == 0 && value.size() != 55) return std::nullopt;
  if (value.size() > 55 && value[55] != '-') return std::nullopt;
  SpanContext context;
  if (!read_hex(value.substr(3, 32), context.trace_id) || !read_hex(value.substr(36, 16), context.span_id) ||
      !read_hex(value.substr(53, 2), flags)) {
    return std::nullopt;
  }
  if (!context.valid()) return std::nullopt;
  context.sampled = (flags[0] & 0x01) != 0;
  context.remote = true;
  return context;
}

void append_traceparent(std::string& out, const SpanContext& context) {
  char text[55];  // 2+1+32+1+16+1+2
  char* p = text;
  *p++ = '0';
  *p++ = '0';
  *p++ = '-';
  p = write_hex(p, context.trace_id.data(), context.trace_id.size());
  *p++ = '-';
  p = write_hex(p, context.span_id.data(), context.span_id.size());
  *p++ = '-';
  *p++ = '0';
  *p = context.sampled ? '1' : '0';
  out.append(text, sizeof text);
}

std::string format_traceparent(const SpanContext& context) {
  std::string out;
  out.reserve(55);
  append_traceparent(out, context);
  return out;
}

}  // namespace weld::telemetry
