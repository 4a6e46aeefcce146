#include "tests/support/process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace pgrange::testing {
namespace {

using Clock = std::chrono::steady_clock;

/// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string errno_text(const std::string& what, int err) {
  return what + ": " + std::strerror(err);
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

/// Finds `name` in PATH (or returns it unchanged when it contains a '/').
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;  // execve fails with ENOENT, reported to the caller
}

/// Everything the child needs, prepared before fork (the child must not allocate).
struct SpawnPlan {
  std::string program;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string working_dir;
};

SpawnPlan make_plan(ProcessOptions& opts) {
  if (opts.argv.empty()) throw std::runtime_error("ChildProcess: empty argv");
  SpawnPlan plan;
  plan.program = resolve_program(opts.argv[0]);
  for (auto& a : opts.argv) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);

  auto env = opts.env;
  plan.switch_user = opts.as_postgres_when_root && running_as_root();
  if (plan.switch_user) {
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r("postgres", &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
      throw std::runtime_error(
          "ChildProcess: running as root but there is no 'postgres' system user (run "
          "scripts/install-deps.sh)");
    }
    plan.uid = pw.pw_uid;
    plan.gid = pw.pw_gid;
    int ngroups = 64;
    plan.groups.resize(ngroups);
    if (getgrouplist("postgres", pw.pw_gid, plan.groups.data(), &ngroups) < 0) {
      plan.groups.resize(ngroups);
      getgrouplist("postgres", pw.pw_gid, plan.groups.data(), &ngroups);
    }
    plan.groups.resize(ngroups);
    bool has_home = false;
    for (auto& [k, v] : env) has_home = has_home || k == "HOME";
    if (!has_home) env.emplace_back("HOME", "/tmp");
    bool has_user = false;
    for (auto& [k, v] : env) has_user = has_user || k == "USER";
    if (!has_user) {
      env.emplace_back("USER", "postgres");
      env.emplace_back("LOGNAME", "postgres");
    }
  }
  plan.working_dir = opts.working_dir;
  if (plan.working_dir.empty() && plan.switch_user) plan.working_dir = "/tmp";

  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (auto& [k, v] : env) overridden = overridden || k == key;
    if (!overridden) plan.env_storage.push_back(std::move(entry));
  }
  for (auto& [k, v] : env) plan.env_storage.push_back(k + "=" + v);
  for (auto& s : plan.env_storage) plan.envp.push_back(s.data());
  plan.envp.push_back(nullptr);
  return plan;
}

[[noreturn]] void child_fail(int err_fd, int err) {
  ssize_t ignored = ::write(err_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

/// Forks and execs; in the child, fd stdin_fd/out_fd become 0 and 1+2. Throws when exec fails.
pid_t spawn(const ProcessOptions& opts, SpawnPlan& plan, int stdin_fd, int out_fd) {
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe2", errno));
  Fd err_read(err_pipe[0]);
  Fd err_write(err_pipe[1]);
  const pid_t parent = ::getpid();
  // The kernel sends the parent-death signal when the forking *thread* exits, so it is only
  // safe from the main thread (a child started from std::async would die with its thread).
  const int death_signal = ::gettid() == parent ? opts.parent_death_signal : 0;

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(errno_text("fork", errno));
  if (pid == 0) {
    const int ew = err_pipe[1];
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2}) {
      ::signal(sig, SIG_DFL);
    }
    if (opts.new_process_group) ::setpgid(0, 0);
    if (::dup2(stdin_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(out_fd, 2) < 0) {
      child_fail(ew, errno);
    }
    if (plan.switch_user) {
      if (::setgroups(plan.groups.size(), plan.groups.data()) != 0) child_fail(ew, errno);
      if (::setgid(plan.gid) != 0) child_fail(ew, errno);
      if (::setuid(plan.uid) != 0) child_fail(ew, errno);
    }
    if (!plan.working_dir.empty() && ::chdir(plan.working_dir.c_str()) != 0) child_fail(ew, errno);
    if (death_signal != 0) {
      ::prctl(PR_SET_PDEATHSIG, death_signal);
      if (::getppid() != parent) ::_exit(127);
    }
    // Nothing but 0, 1, 2 survives exec (the error pipe is close-on-exec already).
    if (::syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) != 0) {
      for (int fd = 3; fd < 1024; ++fd) {
        if (fd != ew) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
      }
    }
    ::execve(plan.program.c_str(), plan.argv.data(), plan.envp.data());
    child_fail(ew, errno);
  }
  err_write.reset();
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(err_read.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof child_errno) {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    throw std::runtime_error(errno_text(
        "cannot start '" + join_argv(opts.argv) + "' (" + plan.program + ")", child_errno));
  }
  return pid;
}

int decode_status(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

}  // namespace

bool running_as_root() {
  return ::geteuid() == 0;
}

std::string file_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max_bytes)
                                  ? size - static_cast<std::streamoff>(max_bytes)
                                  : 0;
  in.seekg(from);
  std::string out(static_cast<std::size_t>(size - from), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  return out;
}

ChildProcess::ChildProcess(ProcessOptions opts) : opts_(std::move(opts)) {
  SpawnPlan plan = make_plan(opts_);
  Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) throw std::runtime_error(errno_text("open /dev/null", errno));
  const std::string out_path = opts_.log_file.empty() ? "/dev/null" : opts_.log_file;
  Fd out(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (out.get() < 0) throw std::runtime_error(errno_text("open " + out_path, errno));
  pid_ = spawn(opts_, plan, in.get(), out.get());
}

namespace {
ProcessOptions simple_options(std::vector<std::string> argv, std::string log_file,
                              bool as_postgres_when_root) {
  ProcessOptions opts;
  opts.argv = std::move(argv);
  opts.log_file = std::move(log_file);
  opts.as_postgres_when_root = as_postgres_when_root;
  return opts;
}
}  // namespace

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_file,
                           bool as_postgres_when_root)
    : ChildProcess(simple_options(std::move(argv), std::move(log_file), as_postgres_when_root)) {}

ChildProcess::~ChildProcess() {
  try {
    if (!exit_status_) terminate();
  } catch (...) {
  }
}

bool ChildProcess::try_reap() {
  if (exit_status_) return true;
  int st = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &st, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    exit_status_ = decode_status(st);
    return true;
  }
  if (r < 0 && errno == ECHILD) {  // reaped by someone else (e.g. a SIGCHLD handler)
    exit_status_ = -1;
    return true;
  }
  return false;
}

bool ChildProcess::signal(int sig) {
  if (try_reap()) return false;
  return ::kill(pid_, sig) == 0;
}

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (!try_reap()) {
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return exit_status_;
}

bool ChildProcess::running() {
  return !try_reap();
}

std::string ChildProcess::log_tail(std::size_t max_bytes) const {
  return opts_.log_file.empty() ? "" : file_tail(opts_.log_file, max_bytes);
}

int ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (signal(SIGTERM)) {
    if (!wait(grace)) {
      ::kill(pid_, SIGKILL);
      wait(std::chrono::seconds(60));
    }
  }
  if (!exit_status_) {  // SIGKILL cannot be refused; block until reaped
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    exit_status_ = decode_status(st);
  }
  return *exit_status_;
}

std::string run_command(const std::vector<std::string>& argv, std::string stdin_text,
                        int* exit_code, std::chrono::milliseconds timeout) {
  ProcessOptions opts;
  opts.argv = argv;
  return run_process(std::move(opts), std::move(stdin_text), exit_code, timeout);
}

std::string run_process(ProcessOptions opts, std::string stdin_text, int* exit_code,
                        std::chrono::milliseconds timeout) {
  const std::vector<std::string> argv = opts.argv;
  SpawnPlan plan = make_plan(opts);
  // A socket for stdin lets us write with MSG_NOSIGNAL (no SIGPIPE if the child exits early).
  int in_pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    throw std::runtime_error(errno_text("socketpair", errno));
  }
  Fd in_parent(in_pair[0]), in_child(in_pair[1]);
  int out_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe2", errno));
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);

  const pid_t pid = spawn(opts, plan, in_child.get(), out_write.get());
  in_child.reset();
  out_write.reset();
  ::fcntl(in_parent.get(), F_SETFL, O_NONBLOCK);
  if (stdin_text.empty()) in_parent.reset();

  std::string output;
  std::size_t written = 0;
  const auto deadline = Clock::now() + timeout;
  bool timed_out = false;
  while (out_read.get() >= 0) {
    pollfd fds[2];
    int n = 0;
    fds[n++] = {out_read.get(), POLLIN, 0};
    if (in_parent.get() >= 0) fds[n++] = {in_parent.get(), POLLOUT, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    int r = ::poll(fds, n, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno != EINTR) throw std::runtime_error(errno_text("poll", errno));
    if (r <= 0) continue;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[8192];
      ssize_t got = ::read(out_read.get(), buf, sizeof buf);
      if (got > 0) {
        output.append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        out_read.reset();
      }
    }
    if (n == 2 && fds[1].revents) {
      ssize_t sent = ::send(in_parent.get(), stdin_text.data() + written,
                            stdin_text.size() - written, MSG_NOSIGNAL);
      if (sent > 0) written += static_cast<std::size_t>(sent);
      if ((sent < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_text.size()) {
        in_parent.reset();  // EOF for the child
      }
    }
  }
  in_parent.reset();
  int st = 0;
  if (timed_out) ::kill(pid, SIGKILL);
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    throw std::runtime_error("command timed out: " + join_argv(argv) + "\n" + output);
  }
  const int code = decode_status(st);
  if (exit_code != nullptr) {
    *exit_code = code;
  } else if (code != 0) {
    throw std::runtime_error("command failed (exit " + std::to_string(code) +
                             "): " + join_argv(argv) + "\n" + output);
  }
  return output;
}

}  // namespace pgrange::testing
