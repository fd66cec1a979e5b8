// date, time, date-time (RFC 3339 §5.6) and duration (RFC 3339 appendix A,
// as the JSON Schema 2019-09+ spec references it).

#include <cstdint>

#include "checks.h"

namespace weld::schema::format_detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `count` ASCII digits at s[pos].
bool read_digits(std::string_view s, std::size_t& pos, int count, int& value) {
  if (pos + static_cast<std::size_t>(count) > s.size()) return false;
  value = 0;
  for (int i = 0; i < count; ++i) {
    char c = s[pos + static_cast<std::size_t>(i)];
    if (!is_digit(c)) return false;
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(count);
  return true;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

bool is_leap_year(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

bool parse_date(std::string_view s, std::size_t& pos) {
  int year = 0, month = 0, day = 0;
  if (!read_digits(s, pos, 4, year) || !expect(s, pos, '-') || !read_digits(s, pos, 2, month) ||
      !expect(s, pos, '-') || !read_digits(s, pos, 2, day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int max_day = kDays[month - 1] + (month == 2 && is_leap_year(year) ? 1 : 0);
  return day <= max_day;
}

bool parse_time(std::string_view s, std::size_t& pos) {
  int hour = 0, minute = 0, second = 0;
  if (!read_digits(s, pos, 2, hour) || !expect(s, pos, ':') || !read_digits(s, pos, 2, minute) ||
      !expect(s, pos, ':') || !read_digits(s, pos, 2, second)) {
    return false;
  }
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (expect(s, pos, '.')) {
    std::size_t start = pos;
    while (pos < s.size() && is_digit(s[pos])) ++pos;
    if (pos == start) return false;
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int offset_hour = 0, offset_minute = 0;
    if (!read_digits(s, pos, 2, offset_hour) || !expect(s, pos, ':') || !read_digits(s, pos, 2, offset_minute)) {
      return false;
    }
    if (offset_hour > 23 || offset_minute > 59) return false;
    offset_minutes = sign * (offset_hour * 60 + offset_minute);
  } else {
    return false;
  }
  if (second == 60) {
    // A leap second exists only at 23:59:60 UTC.
    int utc = ((hour * 60 + minute - offset_minutes) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59) return false;
  }
  return true;
}

// 1*DIGIT followed by `unit`.
bool read_component(std::string_view s, std::size_t& pos, char unit) {
  std::size_t start = pos;
  while (pos < s.size() && is_digit(s[pos])) ++pos;
  if (pos == start || pos >= s.size() || s[pos] != unit) {
    pos = start;
    return false;
  }
  ++pos;
  return true;
}

// dur-time = "T" (dur-hour / dur-minute / dur-second)
bool parse_dur_time(std::string_view s, std::size_t& pos) {
  if (!expect(s, pos, 'T')) return false;
  if (read_component(s, pos, 'H')) {
    if (read_component(s, pos, 'M')) read_component(s, pos, 'S');
    return true;
  }
  if (read_component(s, pos, 'M')) {
    read_component(s, pos, 'S');
    return true;
  }
  return read_component(s, pos, 'S');
}

}  // namespace

bool is_date(std::string_view s) {
  std::size_t pos = 0;
  return parse_date(s, pos) && pos == s.size();
}

bool is_time(std::string_view s) {
  std::size_t pos = 0;
  return parse_time(s, pos) && pos == s.size();
}

bool is_date_time(std::string_view s) {
  std::size_t pos = 0;
  if (!parse_date(s, pos)) return false;
  if (pos >= s.size() || (s[pos] != 'T' && s[pos] != 't')) return false;
  ++pos;
  return parse_time(s, pos) && pos == s.size();
}

bool is_duration(std::string_view s) {
  std::size_t pos = 0;
  if (!expect(s, pos, 'P')) return false;
  if (read_component(s, pos, 'W')) return pos == s.size();
  bool date = false;
  if (read_component(s, pos, 'Y')) {
    date = true;
    if (read_component(s, pos, 'M')) read_component(s, pos, 'D');
  } else if (read_component(s, pos, 'M')) {
    date = true;
    read_component(s, pos, 'D');
  } else if (read_component(s, pos, 'D')) {
    date = true;
  }
  if (pos < s.size() && s[pos] == 'T') {
    if (!parse_dur_time(s, pos)) return false;
  } else if (!date) {
    return false;
  }
  return pos == s.size();
}

}  // namespace weld::schema::format_detail
