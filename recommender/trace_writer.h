#pragma once

#include <iosfwd>

#include "recommender/trace.h"

namespace tailor::recommender {

// Writes a series in the generic CSV of docs/scoring.md (2.1) (the one read_trace_stream reads
// back): time_s,container,cpu_cores,memory_bytes,max_cpu_cores,p95_cpu_cores,max_memory_bytes and,
// when the series has limits, cpu_limit_cores,memory_limit_bytes. CPU to 10 microcores, memory
// to the byte.
void write_generic_trace(std::ostream& out, const ContainerSeries& series);

}  // namespace tailor::recommender
