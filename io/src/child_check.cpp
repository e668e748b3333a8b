#include "child_check.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <fstream>
#include <thread>

#include "granray/errors.h"

namespace granray::io {
namespace {

std::size_t resident_mib(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * std::size_t(::sysconf(_SC_PAGESIZE)) >> 20;
}

[[noreturn]] void run_child(const std::function<void()>& check, int report) {
  std::string message;
  int code = 0;
  try {
    check();
  } catch (const std::exception& e) {
    message = e.what();
    code = 1;
  } catch (...) {
    message = "an exception that is not a std::exception";
    code = 1;
  }
  for (std::size_t done = 0; done < message.size();) {
    const ssize_t n = ::write(report, message.data() + done, message.size() - done);
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::_exit(code);
}

}  // namespace

std::optional<std::string> failure_in_child(const std::function<void()>& check,
                                            const ChildLimits& limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw OutputError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw OutputError(std::string("cannot fork a process to check in: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(check, fds[1]);
  }
  ::close(fds[1]);
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::string> failure;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      failure = std::string("lost its check process: ") + std::strerror(errno);
      break;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > limits.seconds) {
      failure = "took more than " + std::to_string(int(limits.seconds)) + " s";
    } else if (resident_mib(pid) > limits.resident_mib) {
      failure = "used more than " + std::to_string(limits.resident_mib) + " MiB of memory";
    }
    if (failure) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(fds[0]);
  if (failure) return failure;
  if (WIFSIGNALED(status)) return "crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  return message.empty() ? std::string("failed") : message;
}

}  // namespace granray::io
