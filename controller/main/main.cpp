// tailor-controller: the Deployment in kube-system. Feeds the recommender from the node agents'
// usage stream, writes recommendations to policy status, resizes pods in place through
// pods/{name}/resize (recreating them when that cannot work), and sizes new pods through the
// mutating admission webhook. Only the elected leader writes; standbys keep their models fed.
#include <pthread.h>

#include <csignal>
#include <iostream>

#include "controller/app/controller_flags.h"
#include "controller/app/controller_process.h"
#include "controller/app/malloc_arenas.h"
#include "kube/observe/common_options.h"
#include "kube/observe/log.h"

namespace tailor::controller {
namespace {

sigset_t block_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Runs until SIGINT or SIGTERM (blocked in every thread, so only sigwait sees them).
int run(const ProcessOptions& options, sigset_t signals) {
  ControllerProcess process(options);
  process.start();
  int received = 0;
  sigwait(&signals, &received);
  kube::log::info("Shutting down", {{"signal", received}});
  process.stop();
  return 0;
}

}  // namespace
}  // namespace tailor::controller

int main(int argc, char** argv) {
  using namespace tailor;
  controller::limit_malloc_arenas();  // before any thread starts
  sigset_t signals = controller::block_signals();
  controller::ProcessOptions options;
  kube::config::Schema schema("tailor-controller",
                              "Tailor's controller: recommendations and in-place resizes.");
  controller::add_controller_options(schema, options);
  if (auto code =
          kube::observe::init_process(schema, options.common, argc, argv, std::cout, std::cerr)) {
    return *code;
  }
  try {
    return controller::run(options, signals);
  } catch (const std::exception& e) {
    kube::log::error(e, "tailor-controller cannot run");
    return 1;
  }
}
