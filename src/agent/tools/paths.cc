#include "paths.h"
#include "weld/agent/files_beneath.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <vector>

namespace weld::agent::tools {
namespace fs = std::filesystem;

Result<std::optional<std::string>> string_arg(const json::Value& arguments, std::string_view tool,
                                              std::string_view key, bool required) {
  const json::Value* value = arguments.find(key);
  if (value == nullptr || value->is_null()) {
    if (required) {
      return Error{ErrorCode::Args, std::string(tool) + ": missing required parameter \"" + std::string(key) + "\".", ""};
    }
    return std::optional<std::string>{};
  }
  if (!value->is_string()) {
    return Error{ErrorCode::Args, std::string(tool) + ": parameter \"" + std::string(key) + "\" must be a string.", ""};
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
    return Error{ErrorCode::Args, std::string(tool) + ": parameter \"" + std::string(key) + "\" must be an integer.", ""};
  }
  if (n < 0) {
    return Error{ErrorCode::Args, std::string(tool) + ": parameter \"" + std::string(key) + "\" must not be negative.", ""};
  }
  return std::optional<std::int64_t>(n);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
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

std::string root_of(const std::string& cwd) {
  std::string root = fs::path(cwd).lexically_normal().string();
  if (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

// The segments of a '/'-separated path, without empty and "." ones (views
// into `s`). Used for workspace paths and glob patterns alike.
std::vector<std::string_view> split_path(std::string_view s) {
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

std::string join(const std::string& dir, const std::string& name) { return dir == "." ? name : dir + "/" + name; }

// The kernel resolves: RESOLVE_BENEATH refuses "..", absolute symbolic links
// and anything climbing out of `root` with EXDEV, atomically with respect to
// renames (EAGAIN: a rename raced, try again); RESOLVE_NO_MAGICLINKS refuses
// /proc/<pid>/fd/… style links with ELOOP.
int open_kernel(int root, const std::string& relative, int flags, mode_t mode, bool follow_last) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC | (follow_last ? 0 : O_NOFOLLOW));
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < 32; ++attempt) {
    long fd = ::syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno != EAGAIN && errno != EINTR) return -errno;
  }
  return -EAGAIN;
}

std::optional<std::string> read_link(int dir, const std::string& name) {
  std::string target(4096, '\0');
  ssize_t n = ::readlinkat(dir, name.c_str(), target.data(), target.size());
  if (n < 0 || static_cast<std::size_t>(n) >= target.size()) return std::nullopt;
  target.resize(static_cast<std::size_t>(n));
  return target;
}

constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)

// The same rule without openat2: one component at a time, each opened with
// O_NOFOLLOW relative to the directory before it; a symbolic link is read and
// its target spliced into the remaining components (absolute → EXDEV), and
// ".." pops a stack of directories we opened, never the file system's "..",
// so nothing can climb above `root`.
int open_portable(int root, const std::string& relative, int flags, mode_t mode, bool follow_last) {
  std::deque<std::string> todo;
  for (std::string_view part : split_path(relative)) todo.emplace_back(part);
  int dup = ::fcntl(root, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return -errno;
  Fd current(dup);
  std::vector<Fd> parents;
  int links = 0;
  auto splice = [&](const std::string& target) {
    std::vector<std::string_view> parts = split_path(target);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.emplace_front(*it);
  };
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {
      if (parents.empty()) return -EXDEV;
      current = std::move(parents.back());
      parents.pop_back();
      continue;
    }
    if (!todo.empty()) {
      int fd = ::openat(current.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return -errno;
      Fd next(fd);
      struct stat st {};
      if (::fstat(fd, &st) != 0) return -errno;
      if (S_ISLNK(st.st_mode)) {
        auto target = read_link(current.get(), name);
        if (!target || target->empty()) return -ENOENT;
        if (++links > kMaxLinks) return -ELOOP;
        if ((*target)[0] == '/') return -EXDEV;
        splice(*target);
        continue;
      }
      if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
      parents.push_back(std::move(current));
      current = std::move(next);
      continue;
    }
    int fd = ::openat(current.get(), name.c_str(), flags | O_CLOEXEC | O_NOFOLLOW, mode);
    int open_errno = errno;
    if (fd >= 0) {
      struct stat st {};
      if ((flags & O_PATH) == 0 || !follow_last || ::fstat(fd, &st) != 0 || !S_ISLNK(st.st_mode)) return fd;
      ::close(fd);  // O_PATH | O_NOFOLLOW opened the link itself: follow it
    } else {
      struct stat st {};
      if (!follow_last || ::fstatat(current.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISLNK(st.st_mode)) {
        return -open_errno;
      }
    }
    auto target = read_link(current.get(), name);
    if (!target || target->empty()) return -ENOENT;
    if (++links > kMaxLinks) return -ELOOP;
    if ((*target)[0] == '/') return -EXDEV;
    splice(*target);
  }
  // Everything consumed without a final name: the path was the root or
  // ended in "..".
  int fd = ::openat(current.get(), ".", flags | O_CLOEXEC, mode);
  return fd >= 0 ? fd : -errno;
}

std::atomic<int> g_kernel_has_openat2{-1};  // -1 unknown, 0 no, 1 yes

int open_beneath(int root, const std::string& relative, int flags, mode_t mode, bool follow_last, Resolver resolver) {
  if (resolver != Resolver::Portable && g_kernel_has_openat2.load() != 0) {
    int fd = open_kernel(root, relative, flags, mode, follow_last);
    if (fd != -ENOSYS) {
      g_kernel_has_openat2 = 1;
      return fd;
    }
    g_kernel_has_openat2 = 0;
  }
  if (resolver == Resolver::Kernel) return -ENOSYS;
  return open_portable(root, relative, flags, mode, follow_last);
}

Result<Fd> open_root(const std::string& cwd) {
  int fd = ::open(cwd.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Error{ErrorCode::Io, "The working directory \"" + cwd + "\" cannot be opened: " + std::strerror(errno) + ".", cwd};
  }
  return Fd(fd);
}

Error open_error(int error, const std::string& cwd, const WorkspacePath& path) {
  const std::string& shown = path.absolute;
  switch (error) {
    case EXDEV:
      return Error{ErrorCode::Outside,
                   "Path \"" + shown + "\" is outside the workspace \"" + root_of(cwd) +
                       "\" (it leads there through a symbolic link).",
                   shown};
    case ELOOP:
      return Error{ErrorCode::Outside,
                   "Path \"" + shown + "\" goes through too many symbolic links, or a /proc link weld does not follow.",
                   shown};
    case ENOENT:
      return Error{ErrorCode::NotFound, "File not found: \"" + shown + "\".", shown};
    case ENOTDIR:
      return Error{ErrorCode::Io, "A component of \"" + shown + "\" is not a directory.", shown};
    default:
      return Error{ErrorCode::Io, "Could not open \"" + shown + "\": " + std::strerror(error) + ".", shown};
  }
}

// The path of an open directory relative to the workspace root, from the
// kernel's own record of it (/proc/self/fd); nullopt without /proc.
std::optional<std::string> relative_of(int root, int dir) {
  auto link = [](int fd) { return read_link(AT_FDCWD, "/proc/self/fd/" + std::to_string(fd)); };
  auto root_path = link(root);
  auto dir_path = link(dir);
  if (!root_path || !dir_path) return std::nullopt;
  if (*dir_path == *root_path) return std::string(".");
  std::string prefix = *root_path == "/" ? "/" : *root_path + "/";
  if (dir_path->rfind(prefix, 0) != 0) return std::nullopt;
  return dir_path->substr(prefix.size());
}

Status make_directories(const std::string& cwd, int root, const WorkspacePath& dir) {
  std::string so_far = ".";
  for (std::string_view part_view : split_path(dir.relative)) {
    std::string part(part_view);
    std::string next = join(so_far, part);
    WorkspacePath next_path{root_of(cwd) + "/" + next, next};
    int fd = open_beneath(root, next, O_PATH | O_DIRECTORY, 0, true, Resolver::Auto);
    if (fd == -ENOENT) {
      int parent = open_beneath(root, so_far, O_PATH | O_DIRECTORY, 0, true, Resolver::Auto);
      if (parent < 0) return open_error(-parent, cwd, {root_of(cwd) + "/" + so_far, so_far});
      Fd parent_fd(parent);
      if (::mkdirat(parent, part.c_str(), 0777) != 0 && errno != EEXIST) {
        return Error{ErrorCode::Io, "could not create the directory \"" + next_path.absolute + "\": " + std::strerror(errno), next_path.absolute};
      }
      fd = open_beneath(root, next, O_PATH | O_DIRECTORY, 0, true, Resolver::Auto);
    }
    if (fd < 0) return open_error(-fd, cwd, next_path);
    ::close(fd);
    so_far = next;
  }
  return Ok{};
}

std::atomic<std::uint64_t> g_temp_counter{0};
}  // namespace

Result<WorkspacePath> workspace_path(const std::string& cwd, std::string_view text) {
  if (text.empty()) return Error{ErrorCode::Path, "The path is empty.", ""};
  if (text.find('\0') != std::string_view::npos) return Error{ErrorCode::Path, "The path contains a NUL byte.", ""};
  fs::path given(text);
  fs::path absolute = (given.is_absolute() ? given : fs::path(cwd) / given).lexically_normal();
  std::string shown = absolute.string();
  if (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  fs::path root = fs::path(cwd).lexically_normal();
  if (!is_within(root, absolute)) {
    return Error{ErrorCode::Outside, "Path \"" + shown + "\" is outside the workspace \"" + root_of(cwd) + "\".", shown};
  }
  std::string relative = fs::path(shown).lexically_relative(fs::path(root_of(cwd))).string();
  if (relative.empty()) relative = ".";
  return WorkspacePath{shown, relative};
}

Result<Fd> open_in_workspace(const std::string& cwd, const WorkspacePath& path, int flags, mode_t mode,
                             bool follow_last, Resolver resolver) {
  auto root = open_root(cwd);
  if (!root) return root.error();
  int fd = open_beneath(root->get(), path.relative, flags, mode, follow_last, resolver);
  if (fd < 0) return open_error(-fd, cwd, path);
  return Fd(fd);
}

Result<struct stat> stat_in_workspace(const std::string& cwd, const WorkspacePath& path) {
  auto fd = open_in_workspace(cwd, path, O_PATH);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return open_error(errno, cwd, path);
  return st;
}

Result<std::optional<std::string>> read_fd_bounded(int fd, const std::string& shown, std::uint64_t max_bytes) {
  std::string data;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{ErrorCode::Io, "Could not read \"" + shown + "\": " + std::strerror(errno) + ".", shown};
    if (n == 0) break;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes) return std::optional<std::string>{};
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return std::optional<std::string>(std::move(data));
}

Result<std::string> read_in_workspace(const std::string& cwd, const WorkspacePath& path, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  auto fd = open_in_workspace(cwd, path, O_RDONLY | O_NONBLOCK);
  if (!fd) return fd.error();
  const std::string& shown = path.absolute;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return Error{ErrorCode::Io, "Could not read \"" + shown + "\": " + std::strerror(errno) + ".", shown};
  if (S_ISDIR(st.st_mode)) return Error{ErrorCode::Io, "\"" + shown + "\" is a directory, not a file.", shown};
  if (!S_ISREG(st.st_mode)) return Error{ErrorCode::Io, "\"" + shown + "\" is not a regular file.", shown};
  auto too_large = [&](std::uint64_t size) {
    return Error{ErrorCode::TooLarge,
                 "File \"" + shown + "\" is " + std::to_string(size) + " bytes (more than " + std::to_string(max_bytes) +
                     "); read a part of it with offset/limit.",
                 shown};
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_large(static_cast<std::uint64_t>(st.st_size));
  auto data = read_fd_bounded(fd->get(), shown, max_bytes);
  if (!data) return data.error();
  if (!*data) return too_large(max_bytes + 1);  // it grew while we read
  return std::move(**data);
}

Result<WriteOutcome> write_in_workspace(const std::string& cwd, const WorkspacePath& path_in, std::string_view content) {
  auto root = open_root(cwd);
  if (!root) return root.error();
  WorkspacePath path = path_in;
  for (int links = 0;; ++links) {
    if (path.relative == ".") return Error{ErrorCode::Io, "\"" + path.absolute + "\" is a directory.", path.absolute};
    fs::path relative(path.relative);
    std::string parent_relative = relative.has_parent_path() ? relative.parent_path().string() : ".";
    std::string name = relative.filename().string();
    WorkspacePath parent{fs::path(path.absolute).parent_path().string(), parent_relative};
    if (Status made = make_directories(cwd, root->get(), parent); !made) return made.error();
    int parent_fd = open_beneath(root->get(), parent_relative, O_PATH | O_DIRECTORY, 0, true, Resolver::Auto);
    if (parent_fd < 0) return open_error(-parent_fd, cwd, parent);
    Fd parent_dir(parent_fd);
    struct stat st {};
    bool existed = ::fstatat(parent_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (existed && S_ISLNK(st.st_mode)) {
      // Follow the final link under the same rule (a dangling link pointing
      // outside must not create a file there).
      auto target = read_link(parent_fd, name);
      if (!target || target->empty() || links >= kMaxLinks) return open_error(ELOOP, cwd, path);
      if ((*target)[0] == '/') return open_error(EXDEV, cwd, path);
      std::string real_parent = relative_of(root->get(), parent_fd).value_or(parent_relative);
      fs::path next = (fs::path(root_of(cwd)) / real_parent / *target).lexically_normal();
      auto next_path = workspace_path(cwd, next.string());
      if (!next_path) return open_error(EXDEV, cwd, path);
      path = *next_path;
      continue;
    }
    if (existed && S_ISDIR(st.st_mode)) return Error{ErrorCode::Io, "\"" + path.absolute + "\" is a directory.", path.absolute};
    if (existed && !S_ISREG(st.st_mode)) return Error{ErrorCode::Io, "\"" + path.absolute + "\" is not a regular file.", path.absolute};
    // A new file under a temporary name, then renamed over the entry: the
    // directory entry is replaced, so an outside file hard-linked here is
    // never changed, and a reader never sees half a file.
    std::string temp = "." + name.substr(0, 200) + ".weld-" + std::to_string(::getpid()) + "-" +
                       std::to_string(g_temp_counter.fetch_add(1));
    int fd = ::openat(parent_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      return Error{ErrorCode::Io, "could not open \"" + path.absolute + "\" for writing: " + std::strerror(errno), path.absolute};
    }
    Fd file(fd);
    bool ok = true;
    std::size_t offset = 0;
    while (ok && offset < content.size()) {
      ssize_t n = ::write(fd, content.data() + offset, content.size() - offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ok = false;
      else offset += static_cast<std::size_t>(n);
    }
    if (ok && existed) ok = ::fchmod(fd, st.st_mode & 07777) == 0;
    int saved = errno;
    if (ok) ok = ::close(file.release()) == 0;
    if (ok) ok = ::renameat(parent_fd, temp.c_str(), parent_fd, name.c_str()) == 0;
    if (!ok) {
      saved = errno != 0 ? errno : saved;
      ::unlinkat(parent_fd, temp.c_str(), 0);
      return Error{ErrorCode::Io, "could not write \"" + path.absolute + "\": " + std::strerror(saved), path.absolute};
    }
    return existed ? WriteOutcome::Overwrote : WriteOutcome::Created;
  }
}

namespace {

// One directory of walk_workspace, entries in name order and subdirectories
// entered where they sort, so the whole walk is in path order. Every entry is
// opened from the root again (openat2 beneath it), so a directory renamed
// or swapped for a link meanwhile cannot lead the walk outside.
struct Walk {
  const std::string& cwd;
  int root;
  const provider::CancelToken* cancel;
  const std::function<bool(int fd, const WorkspacePath& file)>& visit;
  WalkSkips skips;
  std::size_t visited = 0;
  bool stopped = false;

  static constexpr std::size_t kMaxEntriesVisited = 100000;

  // false when `dir` could not be opened as a directory (errno in `error`).
  bool directory(const WorkspacePath& dir, bool follow_last, int& error) {
    int dir_fd = open_beneath(root, dir.relative, O_RDONLY | O_DIRECTORY, 0, follow_last, Resolver::Auto);
    if (dir_fd < 0) {
      error = -dir_fd;
      return false;
    }
    DIR* listing = ::fdopendir(dir_fd);
    if (listing == nullptr) {
      error = errno;
      ::close(dir_fd);
      return false;
    }
    std::vector<std::string> names;
    while (dirent* entry = ::readdir(listing)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (stopped || (cancel != nullptr && cancel->cancelled.load())) break;
      if (++visited > kMaxEntriesVisited) {
        skips.stopped_after = kMaxEntriesVisited;
        stopped = true;
        break;
      }
      WorkspacePath child{dir.absolute + "/" + name, join(dir.relative, name)};
      struct stat st {};
      if (::fstatat(::dirfd(listing), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        int ignored = 0;
        if (name != ".git" && name != "node_modules") (void)directory(child, false, ignored);
        continue;
      }
      bool is_link = S_ISLNK(st.st_mode);
      if (!is_link && !S_ISREG(st.st_mode)) continue;
      int fd = open_beneath(root, child.relative, O_RDONLY | O_NONBLOCK, 0, is_link, Resolver::Auto);
      if (fd < 0) {
        if (is_link) ++skips.outside_links;
        continue;
      }
      Fd file(fd);
      struct stat opened {};
      if (::fstat(fd, &opened) != 0) continue;
      if (S_ISDIR(opened.st_mode)) {
        if (is_link) ++skips.directory_links;
        continue;
      }
      if (S_ISREG(opened.st_mode) && !visit(fd, child)) stopped = true;
    }
    ::closedir(listing);
    return true;
  }
};

}  // namespace

Result<WalkSkips> walk_workspace(const std::string& cwd, const WorkspacePath& start, const provider::CancelToken* cancel,
                                 const std::function<bool(int fd, const WorkspacePath& file)>& visit) {
  auto root = open_root(cwd);
  if (!root) return root.error();
  Walk walk{cwd, root->get(), cancel, visit, {}};
  int error = 0;
  if (!walk.directory(start, true, error)) return open_error(error, cwd, start);
  return walk.skips;
}

std::string display_path(const std::string& cwd, const std::string& path) {
  fs::path rel = fs::path(path).lexically_relative(fs::path(cwd));
  std::string s = rel.string();
  if (s.empty()) return path;
  return s;
}

bool looks_binary(std::string_view data) {
  return data.substr(0, 8192).find('\0') != std::string_view::npos;
}

namespace {
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
  return match_segments(split_path(pattern), split_path(path));
}

}  // namespace weld::agent::tools

namespace weld::agent {

Result<std::optional<std::string>> read_beneath(const std::string& root, std::string_view relative,
                                                std::uint64_t max_bytes) {
  std::error_code ec;
  const std::string absolute_root = std::filesystem::absolute(root, ec).lexically_normal().string();
  Result<tools::WorkspacePath> path = tools::workspace_path(absolute_root, relative);
  if (!path) return path.error();
  Result<std::string> text = tools::read_in_workspace(absolute_root, *path, max_bytes);
  if (!text && text.error().code == ErrorCode::NotFound) return std::optional<std::string>();
  if (!text) return text.error();
  return std::optional<std::string>(std::move(*text));
}

Status write_beneath(const std::string& root, std::string_view relative, std::string_view content) {
  std::error_code ec;
  const std::string absolute_root = std::filesystem::absolute(root, ec).lexically_normal().string();
  Result<tools::WorkspacePath> path = tools::workspace_path(absolute_root, relative);
  if (!path) return path.error();
  Result<tools::WriteOutcome> written = tools::write_in_workspace(absolute_root, *path, content);
  if (!written) return written.error();
  return Ok{};
}

}  // namespace weld::agent
