// tailor-controller as one object, built from its parsed options: the REST client, the Controller
// (informers, passes, checkpoints), the metrics and health endpoints, the usage stream from the
// node agents, the admission webhook, the metrics.k8s.io poller and leader election. main()
// parses the flags, starts it and stops it on SIGTERM; tests start and stop it in-process.
//
//   ControllerProcess process(options);
//   process.start();   // everything listening; passes run on a thread of their own
//   ...                // until the caller decides to stop (main: sigwait)
//   process.stop();    // the last checkpoints written, then everything stopped in order
#pragma once

#include <memory>

#include "controller/app/process_options.h"

namespace tailor::controller {

class ControllerProcess {
 public:
  explicit ControllerProcess(ProcessOptions options);
  ~ControllerProcess();  // stop()
  ControllerProcess(const ControllerProcess&) = delete;
  ControllerProcess& operator=(const ControllerProcess&) = delete;

  // Builds and starts every part, once. Returns when all listen (the ports file is written)
  // and the passes have begun waiting for the informers. Throws what could not start (an
  // unreadable kubeconfig, a port in use, a certificate without its key, a webhook that could
  // not be registered), after stopping what had started.
  void start();
  // Stops the passes, writes the models' checkpoints, then stops leader election (releasing the
  // lease), the webhook, the poller, the usage stream, the informers and last the endpoints.
  // Idempotent; returns once every thread of the process's own has ended.
  void stop();

  // The ports listened on (0 when not started or not listening).
  int usage_port() const;
  int webhook_port() const;
  int metrics_port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller
