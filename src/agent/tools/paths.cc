#include "paths.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace weld::agent::tools {
namespace fs = std::filesystem;

Result<std::optional<std::string>> string_arg(const json::Value& arguments, std::string_view tool,
                                              std::string_view key, bool required) {
  const json::Value* value = arguments.find(key);
  if (value == nullptr || value->is_null()) {
    if (required) {
      return Error{"args", std::string(tool) + ": missing required parameter \"" + std::string(key) + "\".", ""};
    }
    return std::optional<std::string>{};
  }
  if (!value->is_string()) {
    return Error{"args", std::string(tool) + ": parameter \"" + std::string(key) + "\" must be a string.", ""};
  }
  return std::optional<std::string>(value->as_string());
}

Result<std::optional<std::int64_t>> integer_arg(const json::Value& arguments, std::string_view tool,
                                                std::string_view key) {
  const json::Value* value = arguments.find(key);
  if (value == nullptr || value->is_null()) return std::optional<std::int64_t>{};
  std::int64_t n = 0;
  if (value->is_integer()) {
    n = value->as_integer();
  } else if (value->is_real() && value->as_real() == static_cast<double>(static_cast<std::int64_t>(value->as_real()))) {
    n = static_cast<std::int64_t>(value->as_real());
  } else {
    return Error{"args", std::string(tool) + ": parameter \"" + std::string(key) + "\" must be an integer.", ""};
  }
  if (n < 0) {
    return Error{"args", std::string(tool) + ": parameter \"" + std::string(key) + "\" must not be negative.", ""};
  }
  return std::optional<std::int64_t>(n);
}

namespace {
bool is_within(const fs::path& root, const fs::path& path) {
  auto root_it = root.begin();
  auto path_it = path.begin();
  for (; root_it != root.end(); ++root_it, ++path_it) {
    if (root_it->empty()) continue;  // trailing separator
    if (path_it == path.end() || *root_it != *path_it) return false;
  }
  return true;
}
}  // namespace

Result<std::string> resolve_in_workspace(const std::string& cwd, std::string_view text) {
  if (text.empty()) return Error{"path", "The path is empty.", ""};
  if (text.find('\0') != std::string_view::npos) return Error{"path", "The path contains a NUL byte.", ""};
  fs::path given(text);
  fs::path absolute = given.is_absolute() ? given : fs::path(cwd) / given;
  absolute = absolute.lexically_normal();
  std::string shown = absolute.string();
  if (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  fs::path root = fs::path(cwd).lexically_normal();
  std::error_code ec;
  fs::path real_root = fs::weakly_canonical(root, ec);
  if (ec) real_root = root;
  fs::path real = fs::weakly_canonical(absolute, ec);
  if (ec) real = absolute;
  if (!is_within(root, absolute) || !is_within(real_root, real)) {
    return Error{"path", "Path \"" + shown + "\" is outside the workspace \"" + root.string() + "\".", shown};
  }
  return shown;
}

std::string display_path(const std::string& cwd, const std::string& path) {
  fs::path rel = fs::path(path).lexically_relative(fs::path(cwd));
  std::string s = rel.string();
  if (s.empty()) return path;
  return s;
}

Result<std::string> read_file_bounded(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error{"io", "File not found: \"" + path + "\".", path};
  if (S_ISDIR(st.st_mode)) return Error{"io", "\"" + path + "\" is a directory, not a file.", path};
  if (!S_ISREG(st.st_mode)) return Error{"io", "\"" + path + "\" is not a regular file.", path};
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return Error{"io",
                 "File \"" + path + "\" is " + std::to_string(st.st_size) + " bytes (more than " +
                     std::to_string(max_bytes) + "); read a part of it with offset/limit.",
                 path};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"io", "Could not read \"" + path + "\".", path};
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool looks_binary(std::string_view data) {
  return data.substr(0, 8192).find('\0') != std::string_view::npos;
}

namespace {
std::vector<std::string_view> split_segments(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    std::size_t slash = s.find('/');
    std::string_view part = s.substr(0, slash);
    if (!part.empty() && part != ".") out.push_back(part);
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  return out;
}

// Dynamic programming over (pattern segment, path segment): O(P·S) even for
// patterns like "**/a/**/a/**/b" that would make naive backtracking blow up.
bool match_segments(const std::vector<std::string_view>& pat, const std::vector<std::string_view>& segs) {
  const std::size_t n = segs.size();
  // reach[si]: the pattern prefix seen so far can consume exactly segs[0..si).
  std::vector<char> reach(n + 1, 0);
  reach[0] = 1;
  for (std::string_view p : pat) {
    std::vector<char> next(n + 1, 0);
    if (p == "**") {
      bool any = false;
      for (std::size_t si = 0; si <= n; ++si) {
        any = any || reach[si];
        next[si] = any ? 1 : 0;
      }
    } else {
      std::string pattern(p);
      for (std::size_t si = 0; si < n; ++si) {
        if (!reach[si]) continue;
        std::string segment(segs[si]);
        if (::fnmatch(pattern.c_str(), segment.c_str(), FNM_PERIOD) == 0) next[si + 1] = 1;
      }
    }
    reach.swap(next);
  }
  return reach[n] != 0;
}
}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  return match_segments(split_segments(pattern), split_segments(path));
}

}  // namespace weld::agent::tools
