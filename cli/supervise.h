// `tailor supervise`: what keeps each process of `tailor cluster up` running. It runs one command
// as its child, writes the child's pid to a pid file (so `kill -9 $(cat X.pid)` hits the real
// process), and when the child ends by itself starts it again after a backoff (1 s doubling to
// 30 s, back to 1 s once a run lasted a minute), as the kubelet restarts containers. SIGTERM or
// SIGINT stop the child (SIGTERM, SIGKILL after 10 s) and then the supervisor.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

// The wait before the next start: 1 s after a run of a minute or more, else twice the last wait,
// at most 30 s. Pure.
std::chrono::seconds restart_delay(std::chrono::seconds last_delay,
                                   std::chrono::steady_clock::duration ran_for);

// `tailor supervise --pid-file FILE -- COMMAND [ARGS...]`; returns the exit code.
int run_supervise(const std::vector<std::string>& args, std::ostream& err);

}  // namespace tailor::cli
