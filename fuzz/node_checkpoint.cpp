// The node agent's allocation checkpoint (node-agent/allocation/checkpoint.h), read after every
// restart from whatever a crash or a disk left: any text decodes or throws CheckpointError
// (Corrupt or UnknownVersion), never anything else; what decodes encodes to a checkpoint that
// decodes to the same allocations. The input is read twice: as a whole file, and as the payload
// under a header with its right checksum (a random mutation almost never keeps the checksum, and
// the reader of the allocations behind it is what a bit flip on disk meets once it does).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "node-agent/allocation/checkpoint.h"

namespace alloc = tailor::node::allocation;
using tailor::fuzz::check;

namespace {

void read(std::string_view text) {
  alloc::Checkpoint decoded;
  try {
    decoded = alloc::decode_checkpoint(text, "fuzz");
  } catch (const alloc::CheckpointError& e) {
    check(e.kind() != alloc::CheckpointErrorKind::Io, "reading text is no I/O error", e.what());
    return;
  }
  const std::string encoded = alloc::encode_checkpoint(decoded);
  try {
    check(alloc::decode_checkpoint(encoded, "re-encoded") == decoded, "a checkpoint round-trips",
          encoded);
  } catch (const alloc::CheckpointError& e) {
    tailor::fuzz::invariant_broken("what the agent writes it reads back", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  read(text);
  char checksum[17];
  std::snprintf(checksum, sizeof checksum, "%016llx",
                static_cast<unsigned long long>(alloc::fnv1a64(text)));
  read("tailor-node-agent-checkpoint v1 fnv1a64:" + std::string(checksum) + "\n" +
       std::string(text));
  return 0;
}
