// The e2e environment's tailor-controller as a process, for the restart and failover tests: its
// command line (read from /proc, so a relaunch runs exactly what `tailor cluster up` ran), stop,
// relaunch detached, its supervisor (`tailor supervise`, which starts it again when it dies), and
// the leader Lease.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {

struct ControllerProcess {
  pid_t pid = 0;
  std::vector<std::string> argv;
};

// The running controller (DIR/controller.pid). Throws std::runtime_error when it is not running.
ControllerProcess running_controller(const E2eCluster& cluster);

// `argv` with --flag set to `value` (either "--flag value" or "--flag=value" is replaced; the
// flag is appended when absent).
std::vector<std::string> with_flag(std::vector<std::string> argv, const std::string& flag,
                                   const std::string& value);

// Starts `argv` detached (its own session, reaped by init), output appended to `log`, its pid
// written to `pid_file`. Returns the pid.
pid_t launch_detached(const std::vector<std::string>& argv, const std::filesystem::path& log,
                      const std::filesystem::path& pid_file);

// The controller the supervisor started after `old` ended (DIR/controller.pid names another live
// process); throws std::runtime_error when none runs within `timeout`.
ControllerProcess restarted_controller(const E2eCluster& cluster, pid_t old,
                                       std::chrono::seconds timeout);

// SIGSTOP / SIGCONT to the controller's supervisor (DIR/controller.supervisor.pid): paused, it
// does not restart a controller a test kills; resumed, it starts that one again.
void pause_controller_supervisor(const E2eCluster& cluster);
void resume_controller_supervisor(const E2eCluster& cluster);

// A process's command line (from /proc), argv[0] made the absolute path of its binary, so that a
// relaunch runs exactly what was running. Throws std::runtime_error when it cannot be read.
std::vector<std::string> command_line(pid_t pid);

// The live process a pid file names (DIR/cluster.pid, DIR/node-N/agent.pid, ...), or 0 when the
// file is missing or unreadable or its process is gone (a zombie counts as gone).
pid_t live_pid(const std::filesystem::path& pid_file);

// Sends `signal` and waits until the process is gone; false after `timeout`.
bool stop_process(pid_t pid, int signal, std::chrono::seconds timeout);

// Ends a controller the tests ran in place of the supervised one, started while the supervisor
// was paused: `replacement` (when > 0) is stopped, `leader` killed if it still runs, the
// supervisor resumed, and this waits until the controller it starts again (the command line
// `tailor cluster up` ran) leads. Adds a test failure when it does not.
void restore_supervised_controller(const E2eCluster& cluster, pid_t leader, pid_t replacement);

// The environment's controller run with --`flag`=`value` for a test's duration (a suite
// fixture's, to share the restart): the supervisor paused, the controller stopped with SIGTERM
// (it releases the Lease), its command line with the flag started on the same ports and
// leading; at destruction, restore_supervised_controller. Throws std::runtime_error when the
// new controller does not lead in time.
class ControllerWithFlag {
 public:
  ControllerWithFlag(const E2eCluster& cluster, const std::string& flag, const std::string& value);
  ~ControllerWithFlag();
  ControllerWithFlag(const ControllerWithFlag&) = delete;
  ControllerWithFlag& operator=(const ControllerWithFlag&) = delete;

  pid_t pid() const { return pid_; }
  const std::filesystem::path& log() const { return log_; }

 private:
  const E2eCluster& cluster_;
  ControllerProcess leader_;
  std::filesystem::path log_;
  pid_t pid_ = 0;
};

// The leader Lease kube-system/tailor-controller: its holder ("" when none or released).
std::string lease_holder(const E2eCluster& cluster);
// tailor-controller's default identity for a process: hostname_pid.
std::string identity_of(pid_t pid);

// The controller log's size now, and what was appended after `offset`.
std::uintmax_t log_size(const std::filesystem::path& log);
std::string log_since(const std::filesystem::path& log, std::uintmax_t offset);
// The checkpoints a controller's log says it restored ("Checkpoints read ... restored=N"), or -1
// when the log has no such line.
int restored_checkpoints(const std::string& log_text);

}  // namespace tailor::e2e
