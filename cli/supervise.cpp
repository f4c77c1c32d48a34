#include "cli/supervise.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <fstream>
#include <ostream>
#include <thread>

#include "cli/cluster_process.h"

namespace tailor::cli {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop(int) { g_stop = 1; }

// Without SA_RESTART: a stop signal interrupts waitpid and sleeps, so it is seen at once.
void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
}

std::string how_it_ended(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

// Waits for the child; false when a stop signal came first.
bool wait_child(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return true;
    if (g_stop) return false;
  }
  return true;
}

void stop_child(pid_t pid) {
  ::kill(pid, SIGTERM);
  for (auto deadline = Clock::now() + 10s; Clock::now() < deadline;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(50ms);
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

// Sleeps `delay` unless a stop signal comes; false then.
bool pause(std::chrono::seconds delay) {
  timespec left{static_cast<std::time_t>(delay.count()), 0};
  while (::nanosleep(&left, &left) != 0) {
    if (g_stop) return false;
  }
  return !g_stop;
}

}  // namespace

std::chrono::seconds restart_delay(std::chrono::seconds last_delay, Clock::duration ran_for) {
  if (ran_for >= 60s || last_delay <= 0s) return 1s;
  return std::min<std::chrono::seconds>(last_delay * 2, 30s);
}

int run_supervise(const std::vector<std::string>& args, std::ostream& err) {
  auto dashes = std::find(args.begin(), args.end(), "--");
  if (dashes == args.end() || dashes + 1 == args.end() || args.size() < 3 ||
      args[0] != "--pid-file" || dashes != args.begin() + 2) {
    err << "Usage: tailor supervise --pid-file FILE -- COMMAND [ARGS...]\n";
    return 2;
  }
  const std::filesystem::path pid_file = args[1];
  const std::vector<std::string> command(dashes + 1, args.end());
  const std::string name = std::filesystem::path(command[0]).filename().string();
  catch_stop_signals();
  std::chrono::seconds delay{0};
  while (!g_stop) {
    const auto started = Clock::now();
    pid_t pid = 0;
    try {
      pid = start_child(command);
    } catch (const std::exception& e) {
      err << "tailor supervise: " << e.what() << std::endl;
      return 1;
    }
    std::ofstream(pid_file) << pid << "\n";
    int status = 0;
    if (!wait_child(pid, status)) {
      stop_child(pid);
      break;
    }
    delay = restart_delay(delay, Clock::now() - started);
    err << "tailor supervise: " << name << " (pid " << pid << ") " << how_it_ended(status)
        << "; starting it again in " << delay.count() << " s" << std::endl;
    if (!pause(delay)) break;
  }
  return 0;
}

}  // namespace tailor::cli
