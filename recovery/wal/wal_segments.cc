#include "recovery/wal/wal_segments.h"

#include <algorithm>

#include "recovery/wal/log_reader.h"

namespace forktail::wal {

std::string WalDir(const std::string& data_dir) { return data_dir + "/wal"; }

Status ListSegments(LogFileSystem* fs, const std::string& data_dir,
                    std::vector<SegmentInfo>* segments) {
  segments->clear();
  std::string dir = WalDir(data_dir);
  std::vector<std::string> names;
  Status s = fs->ListDir(dir, &names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    Lsn lsn;
    if (ParseSegmentName(name, &lsn)) segments->push_back({lsn, dir + "/" + name});
  }
  std::sort(segments->begin(), segments->end(),
            [](const SegmentInfo& a, const SegmentInfo& b) { return a.first_lsn < b.first_lsn; });
  return Status::Ok();
}

Status TruncateTail(LogFileSystem* fs, const LogEnd& end) {
  if (end.kind != LogEnd::Kind::kTornTail && end.preallocated == 0) return Status::Ok();
  std::string dir = end.segment.substr(0, end.segment.rfind('/'));
  if (end.remove_segment) {
    Status s = fs->Remove(end.segment);
    if (!s.ok()) return s;
    return fs->SyncDir(dir);
  }
  std::unique_ptr<LogFile> file;
  Status s = fs->OpenForAppend(end.segment, &file);
  if (!s.ok()) return s;
  s = file->Truncate(end.offset);
  if (s.ok()) s = file->Sync();
  Status c = file->Close();
  if (s.ok()) s = c;
  return s;
}

Status RemoveSegmentsBefore(LogFileSystem* fs, const std::string& data_dir, Lsn lsn, int* removed) {
  *removed = 0;
  std::vector<SegmentInfo> segments;
  Status s = ListSegments(fs, data_dir, &segments);
  if (!s.ok()) return s;
  for (size_t i = 0; i + 1 < segments.size() && segments[i + 1].first_lsn <= lsn; i++) {
    s = fs->Remove(segments[i].path);
    if (!s.ok()) return s;
    (*removed)++;
  }
  if (*removed > 0) return fs->SyncDir(WalDir(data_dir));
  return Status::Ok();
}

}  // namespace forktail::wal
