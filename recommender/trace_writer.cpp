#include "recommender/trace_writer.h"

#include <cstdio>
#include <ostream>
#include <string>

#include "recommender/csv.h"

namespace tailor::recommender {

void write_generic_trace(std::ostream& out, const ContainerSeries& s) {
  out << "time_s,container,cpu_cores,memory_bytes,max_cpu_cores,p95_cpu_cores,max_memory_bytes"
      << (s.has_limits ? ",cpu_limit_cores,memory_limit_bytes" : "") << "\n";
  const std::string key = csv::quote(s.container);
  char line[256];
  for (const TraceWindow& w : s.windows) {
    std::snprintf(line, sizeof line, "%lld,", static_cast<long long>(w.start));
    out << line << key;
    std::snprintf(line, sizeof line, ",%.5f,%.0f,%.5f,%.5f,%.0f", w.avg_cpu, w.avg_mem, w.max_cpu,
                  w.p95_cpu, w.max_mem);
    out << line;
    if (s.has_limits) {
      std::snprintf(line, sizeof line, ",%.5f,%.0f", w.cpu_limit, w.memory_limit);
      out << line;
    }
    out << "\n";
  }
}

}  // namespace tailor::recommender
