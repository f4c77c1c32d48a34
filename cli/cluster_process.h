// Background processes of `tailor cluster`: started detached (own session, output appended to a
// log file, pid in a pid file) so they outlive the command that started them, and stopped through
// their pid files.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tailor::cli {

// Starts argv[0] (a path) with its output appended to `log` and writes its pid to `pid_file`.
// Throws std::runtime_error when it cannot be started.
pid_t start_background(const std::vector<std::string>& argv, const std::filesystem::path& log,
                       const std::filesystem::path& pid_file);

// Starts argv[0] (a path) in a session of its own, its output going where this process's goes.
pid_t start_child(const std::vector<std::string>& argv);

// As start_background, under `tailor supervise` (cli/supervise.h), which restarts it when it
// ends: `pid_file` holds the running process's pid (rewritten at each restart), the supervisor's
// is in supervisor_pid_file(pid_file). Returns once the process has been started.
void start_supervised(const std::vector<std::string>& argv, const std::filesystem::path& log,
                      const std::filesystem::path& pid_file);
// "cluster.pid" -> "cluster.supervisor.pid".
std::filesystem::path supervisor_pid_file(const std::filesystem::path& pid_file);
// Stops the supervisor first (it stops the process: SIGTERM, SIGKILL after 10 s), then whatever
// still runs under pid_file. False when nothing ran.
bool stop_supervised(const std::filesystem::path& pid_file);

// A TCP port free on 127.0.0.1 now (the kernel's pick), for a process that must keep one port
// across its restarts.
int free_port();

// The pid in `pid_file` when that process still runs.
std::optional<pid_t> running_pid(const std::filesystem::path& pid_file);

// SIGTERM, then SIGKILL after `grace`; removes the pid file. False when nothing ran.
bool stop_background(const std::filesystem::path& pid_file, std::chrono::milliseconds grace);

// The last `lines` lines of a log, for error messages.
std::string log_tail(const std::filesystem::path& log, int lines = 15);

// Runs a command to completion; its output (stdout and stderr) is returned, a non-zero exit
// throws std::runtime_error with that output.
std::string run_command(const std::vector<std::string>& argv);

}  // namespace tailor::cli
