// The redo payloads of WAL records (recovery/redo_codec.h) as recovery
// replays them (recovery/replay.h) into an empty catalog: the input is a
// run of records, each [type u8][length u16 little-endian][payload], of one
// transaction that a final commit applies (a kCommit record inside the run
// applies what came before it). Payloads reach the decoders only behind a
// CRC, so this target goes around the CRC that the wal_log target must
// pass. Any malformed payload, or one that does not apply to the catalog
// as it stands, must be Status::Corruption; replay never throws.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "recovery/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace forktail;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Catalog catalog;
  redo::Replayer replayer(&catalog);
  wal::Lsn lsn = 0;
  auto add = [&](wal::RecordType type, std::string_view payload) {
    wal::LogRecord record;
    record.lsn = lsn;
    record.txn = 1;
    record.type = type;
    record.payload = payload;
    lsn = record.end_lsn();
    return replayer.Add(record).ok();
  };
  size_t pos = 0;
  while (pos + 3 <= in.size()) {
    auto type = static_cast<wal::RecordType>(static_cast<uint8_t>(in[pos]));
    size_t length = static_cast<uint8_t>(in[pos + 1]) | size_t{static_cast<uint8_t>(in[pos + 2])}
                                                            << 8;
    pos += 3;
    std::string_view payload = in.substr(pos, length);
    pos += payload.size();
    if (!add(type, payload)) return 0;  // recovery stops at the first failure
  }
  if (add(wal::RecordType::kCommit, {})) replayer.Finish();
  return 0;
}
