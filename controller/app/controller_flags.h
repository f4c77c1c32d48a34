// tailor-controller's command-line flags and config-file keys, bound to ProcessOptions (whose
// values are the defaults): what controller/main parses argv with, and what tests parse to check
// the binary's defaults (tests/controller/app/watch_vpa_default_test.cpp).
#pragma once

#include "controller/app/process_options.h"
#include "kube/observe/options.h"

namespace tailor::controller {

void add_controller_options(kube::config::Schema& schema, ProcessOptions& options);

}  // namespace tailor::controller
