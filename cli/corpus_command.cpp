#include "cli/corpus_command.h"

#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "recommender/corpus.h"
#include "recommender/trace_writer.h"

namespace tailor::cli {
namespace po = boost::program_options;
namespace rec = tailor::recommender;

namespace {

const char* kUsage =
    "Usage: tailor corpus --out DIR [--seed N] [--per-family N]\n"
    "Writes the synthetic usage corpus the recommender is judged on: shape families of real\n"
    "workloads (cycles, steps, leaks, batches, spikes, heaps, start-ups, gaps, neighbours,\n"
    "growth, tiny containers), N seeded series each, as generic trace CSVs for `tailor replay`.\n"
    "Series with an even index go to DIR/tuning (choose defaults there), odd ones to\n"
    "DIR/held-out (report them, never tune on them). The same seed writes the same bytes.\n";

}  // namespace

int run_corpus(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string dir;
  std::uint64_t seed = 14;
  int per_family = 8;
  po::options_description opts("Options");
  opts.add_options()("help,h", "show this help")("out", po::value(&dir), "directory to write")(
      "seed", po::value(&seed), "corpus seed (default 14)")(
      "per-family", po::value(&per_family), "series per family, half of them held out (default 8)");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "tailor corpus: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (vm.count("help")) {
    out << kUsage << opts;
    return 0;
  }
  if (dir.empty() || per_family < 2 || per_family > 1000) {
    err << "tailor corpus: "
        << (dir.empty() ? "--out DIR is required" : "--per-family must be 2 to 1000") << "\n"
        << kUsage;
    return 2;
  }
  try {
    std::map<std::string, int> windows;
    for (const auto& c : rec::generate_corpus(seed, per_family)) {
      const auto folder = std::filesystem::path(dir) / rec::corpus_half(c.held_out) / c.family;
      std::filesystem::create_directories(folder);
      const auto path = folder / (c.series.container + ".csv");
      std::ofstream file(path);
      if (!file) throw std::runtime_error(path.string() + ": cannot open for writing");
      rec::write_generic_trace(file, c.series);
      if (!file.flush()) throw std::runtime_error(path.string() + ": write failed");
      windows[rec::corpus_half(c.held_out)] += static_cast<int>(c.series.windows.size());
    }
    out << "corpus seed " << seed << ", " << per_family << " series per family ("
        << (per_family + 1) / 2 << " tuning, " << per_family / 2 << " held out):\n";
    for (const auto& f : rec::corpus_families())
      out << "  " << f.name << ": " << f.description << "\n";
    out << "tuning half (choose defaults here): " << dir << "/tuning (" << windows["tuning"]
        << " windows)\nheld-out half (report, never tune): " << dir << "/held-out ("
        << windows["held-out"] << " windows)\n";
  } catch (const std::exception& e) {
    err << "tailor corpus: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tailor::cli
