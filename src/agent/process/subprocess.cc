// The one subprocess runner (the shape of ninja's
// subprocess-posix.cc): everything that can go wrong between fork and exec
// is prepared before the fork, the child makes only async-signal-safe calls,
// and the parent owns the process group until it is reaped and killed.

#include "weld/agent/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include "weld/provider/http.h"

extern char** environ;  // POSIX

namespace weld::agent {
namespace {

using Clock = std::chrono::steady_clock;

std::mutex g_secrets_mutex;
std::vector<std::string> g_secrets;

std::vector<std::string> protected_secrets() {
  std::lock_guard lock(g_secrets_mutex);
  return g_secrets;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The child's side, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const SubprocessOptions& options, char* const* argv, char* const* envp, int stdin_fd,
                             int stdout_fd, int stderr_fd, int status_fd) {
  ::setpgid(0, 0);
  if (options.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  // weld blocks SIGINT/SIGTERM for its signal thread and ignores SIGPIPE;
  // masks and ignored dispositions survive exec, so reset them (`yes | head`
  // must end; a timeout's SIGTERM must land).
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT}) ::signal(sig, SIG_DFL);
  int devnull = ::open("/dev/null", O_RDWR);
  ::dup2(stdin_fd >= 0 ? stdin_fd : devnull, 0);
  ::dup2(stdout_fd >= 0 ? stdout_fd : devnull, 1);
  ::dup2(stderr_fd >= 0 ? stderr_fd : devnull, 2);
  // Nothing else of weld's (sockets, files) reaches the child.
  ::syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
  auto fail = [&](char what) {
    int e = errno;
    (void)!::write(status_fd, &what, 1);
    (void)!::write(status_fd, &e, sizeof e);
    ::_exit(127);
  };
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) fail('c');
  ::execvpe(argv[0], argv, envp);
  fail('x');
  ::_exit(127);  // not reached (fail exits); says so to the compiler
}

}  // namespace

void protect_secret(std::string_view value) {
  if (value.size() < 4) return;
  std::lock_guard lock(g_secrets_mutex);
  if (std::find(g_secrets.begin(), g_secrets.end(), value) == g_secrets.end()) g_secrets.emplace_back(value);
}

std::string scrub_secrets(std::string_view text) {
  std::string out(text);
  for (const std::string& secret : protected_secrets()) out = provider::redact(out, secret);
  return out;
}

std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  const std::vector<std::string> secrets = protected_secrets();
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = text.substr(0, eq);
    std::string_view value = text.substr(eq + 1);
    bool denied = std::any_of(std::begin(kChildEnvironmentDenied), std::end(kChildEnvironmentDenied),
                              [&](const char* denied_name) { return name == denied_name; });
    denied = denied || std::any_of(secrets.begin(), secrets.end(), [&](const std::string& s) { return value == s; });
    bool overridden = std::any_of(overrides.begin(), overrides.end(), [&](const auto& kv) { return name == kv.first; });
    if (!denied && !overridden) out.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
  return out;
}

Result<std::unique_ptr<Subprocess>> Subprocess::start(const SubprocessOptions& options) {
  auto os_error = [](const char* what) {
    return Error{ErrorCode::Spawn, std::string(what) + ": " + std::strerror(errno), ""};
  };
  if (options.argv.empty()) return Error{ErrorCode::Spawn, "no program to run", ""};
  // Everything the child needs, built before the fork.
  std::vector<std::string> env_strings = child_environment(options.env);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = options.argv;
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  std::vector<int> to_close;  // closed on every path out
  struct Closer {
    std::vector<int>& fds;
    ~Closer() {
      for (int fd : fds) ::close(fd);
    }
  } closer{to_close};
  int child_in = -1, child_out = -1, child_err = -1;
  std::unique_ptr<Subprocess> process(new Subprocess());
  auto make_pipe = [&](int& ours, int& theirs, bool we_write) -> bool {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    ours = we_write ? fds[1] : fds[0];
    theirs = we_write ? fds[0] : fds[1];
    to_close.push_back(theirs);
    return true;
  };
  if (options.stdin_mode == SubprocessOptions::Input::Pipe) {
    if (!make_pipe(process->stdin_fd_, child_in, true)) return os_error("pipe");
  } else if (options.stdin_mode == SubprocessOptions::Input::Data) {
    child_in = ::memfd_create("weld-stdin", MFD_CLOEXEC);
    if (child_in < 0) return os_error("memfd_create");
    to_close.push_back(child_in);
    std::size_t offset = 0;
    while (offset < options.input.size()) {
      ssize_t n = ::write(child_in, options.input.data() + offset, options.input.size() - offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return os_error("write");
      offset += static_cast<std::size_t>(n);
    }
    ::lseek(child_in, 0, SEEK_SET);
  }
  if (options.stdout_mode != SubprocessOptions::Output::Null) {
    if (!make_pipe(process->stdout_fd_, child_out, false)) return os_error("pipe");
  }
  if (options.stderr_mode == SubprocessOptions::Output::MergeIntoStdout) {
    child_err = child_out;
  } else if (options.stderr_mode == SubprocessOptions::Output::Pipe) {
    if (!make_pipe(process->stderr_fd_, child_err, false)) return os_error("pipe");
  }
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) return os_error("pipe");
  to_close.push_back(status_pipe[0]);
  to_close.push_back(status_pipe[1]);

  pid_t pid = ::fork();
  if (pid < 0) return os_error("fork");
  if (pid == 0) exec_child(options, argv.data(), envp.data(), child_in, child_out, child_err, status_pipe[1]);
  ::setpgid(pid, pid);  // also from here, so the group exists before any kill
  process->pid_ = pid;
  ::close(status_pipe[1]);
  to_close.pop_back();
  char what = 0;
  int child_errno = 0;
  ssize_t n;
  do n = ::read(status_pipe[0], &what, 1);
  while (n < 0 && errno == EINTR);
  if (n == 1) {
    (void)!::read(status_pipe[0], &child_errno, sizeof child_errno);
    process->stop(std::chrono::milliseconds(0));
    if (what == 'c') {
      return Error{ErrorCode::Spawn, "cannot enter its working directory \"" + options.cwd + "\": " + std::strerror(child_errno), ""};
    }
    return Error{ErrorCode::Spawn, "cannot run \"" + options.argv[0] + "\": " + std::strerror(child_errno), ""};
  }
  return process;
}

Subprocess::~Subprocess() {
  stop();
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

void Subprocess::close_stdin() { close_fd(stdin_fd_); }

bool Subprocess::exited() {
  std::lock_guard lock(mutex_);
  if (reaped_) return true;
  pid_t r = ::waitpid(pid_, &status_, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) reaped_ = true;
  return reaped_;
}

void Subprocess::stop(std::chrono::milliseconds grace) {
  std::lock_guard lock(mutex_);
  if (pid_ <= 0) return;
  if (!reaped_) {
    if (grace.count() > 0) {
      ::kill(-pid_, SIGTERM);
      auto give_up = Clock::now() + grace;
      while (Clock::now() < give_up) {
        pid_t r = ::waitpid(pid_, &status_, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) {
          reaped_ = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    if (!reaped_) {
      ::kill(-pid_, SIGKILL);
      while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
    }
  }
  // Whatever the child left behind in its group (background jobs). The
  // group id stays ours while any member lives, so this reaches only them.
  ::kill(-pid_, SIGKILL);
}

SubprocessRun run_subprocess(const SubprocessOptions& options, const SubprocessLimits& limits) {
  SubprocessRun run;
  auto started = Subprocess::start(options);
  if (!started) {
    run.start_error = started.error().message;
    return run;
  }
  Subprocess& process = **started;
  struct Stream {
    int fd;
    std::string* text;
    std::size_t* total;
    std::size_t ignored_total = 0;
  };
  std::vector<Stream> streams;
  if (process.stdout_fd() >= 0) streams.push_back({process.stdout_fd(), &run.output, &run.output_bytes});
  if (process.stderr_fd() >= 0) streams.push_back({process.stderr_fd(), &run.error_output, nullptr});
  for (Stream& s : streams) ::fcntl(s.fd, F_SETFL, ::fcntl(s.fd, F_GETFL) | O_NONBLOCK);

  // After the child exits, what is already in the pipes is read for this
  // long; a background job still holding a pipe open does not keep the
  // command running (nor is it reported as "Timed out").
  constexpr auto kDrainAfterExit = std::chrono::milliseconds(100);
  const auto deadline = Clock::now() + limits.timeout;
  std::optional<Clock::time_point> exited_at;
  char buffer[16384];
  for (;;) {
    if (limits.cancel != nullptr && limits.cancel->cancelled.load()) {
      run.end = SubprocessRun::End::Cancelled;
      break;
    }
    auto now = Clock::now();
    if (!exited_at && process.exited()) exited_at = now;
    if (exited_at && (streams.empty() || now >= *exited_at + kDrainAfterExit)) break;
    if (!exited_at && now >= deadline) {
      run.end = SubprocessRun::End::TimedOut;
      break;
    }
    std::vector<pollfd> fds;
    for (const Stream& s : streams) fds.push_back({s.fd, POLLIN, 0});
    int wait_ms = 20;  // the child's exit is noticed by polling waitpid
    if (exited_at) wait_ms = 5;
    int ready = fds.empty() ? (std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms)), 0)
                            : ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0 && errno != EINTR) break;
    for (std::size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      Stream& s = streams[i];
      ssize_t n = ::read(s.fd, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        streams.erase(streams.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      if (s.total != nullptr) *s.total += static_cast<std::size_t>(n);
      if (s.text->size() < limits.max_output) {
        s.text->append(buffer, std::min(static_cast<std::size_t>(n), limits.max_output - s.text->size()));
      }
    }
  }
  process.stop(std::chrono::milliseconds(0));  // SIGKILL to the group (or what is left of it); reaps
  if (run.end == SubprocessRun::End::StartFailed) {
    int status = process.wait_status();
    if (WIFEXITED(status)) {
      run.end = SubprocessRun::End::Exited;
      run.exit_code = WEXITSTATUS(status);
    } else {
      run.end = SubprocessRun::End::Signaled;
      run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
  }
  return run;
}

}  // namespace weld::agent
