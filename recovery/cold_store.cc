#include "recovery/cold_store.h"

#include <fmt/format.h>
#include <lz4.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/transaction_log.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "recovery/rocksdb_info_log.h"

namespace forktail::ckpt {
namespace {

constexpr char kBlockPrefix = 'B';
constexpr char kManifestKey[] = "M";

void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

std::string EncodeKey(const BlockKey& k) {
  std::string out(1, kBlockPrefix);
  PutBigEndian(&out, k.table, 4);
  PutBigEndian(&out, k.block, 4);
  PutBigEndian(&out, k.version, 8);
  return out;
}

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  if (s.IsNotFound()) return Status::NotFound(what + ": not found");
  if (s.IsCorruption()) return Status::Corruption(what + ": " + s.ToString());
  if (s.IsNoSpace()) return Status::NoSpace(what + ": " + s.ToString());
  return Status::IoError(what + ": " + s.ToString());
}

constexpr uint64_t kInfoLogMaxBytes = 64 << 20;

rocksdb::Options StoreOptions() {
  rocksdb::Options options;
  options.compression = rocksdb::kNoCompression;  // images are LZ4-compressed already
  // The MANIFEST does not list WAL files, so an obsolete empty WAL may be
  // removed by RemoveEmptyObsoleteWals (with tracking on, a missing WAL fails
  // the next open).
  options.track_and_verify_wals_in_manifest = false;
  return options;
}

// RocksDB 7.8 (Debian's) creates a new WAL at every open, and when the
// recovered WALs hold nothing it never advances the minimum log number to
// keep (no memtable flush happens), so each open of a store nobody wrote to
// since leaves one empty NNNNNN.log behind for ever: one file per restart.
// RocksDB 8.3 deletes such WALs itself (facebook/rocksdb#11409); until then
// we do what that change does. An empty WAL older than the live one holds
// no record to replay, so removing it loses nothing. Called with the DB open
// (its LOCK held), so no other process is using these files.
Status RemoveEmptyObsoleteWals(rocksdb::DB* db, const std::string& dir) {
  std::unique_ptr<rocksdb::LogFile> live;
  rocksdb::Status rs = db->GetCurrentWalFile(&live);
  if (!rs.ok()) return FromRocks(rs, "finding the live log of the cold store " + dir);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".log") != 0) continue;
    const std::string digits = name.substr(0, name.size() - 4);
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::stoull(digits) >= live->LogNumber()) continue;
    std::error_code size_ec;
    if (std::filesystem::file_size(entry.path(), size_ec) != 0 || size_ec) continue;
    if (!std::filesystem::remove(entry.path(), ec) && ec) break;
  }
  if (ec) {
    return Status::IoError(
        fmt::format("removing empty logs of the cold store {}: {}", dir, ec.message()));
  }
  return Status::Ok();
}

// value = raw size u32 LE | LZ4 bytes
Status CompressImage(std::string_view image, std::string* value) {
  int bound = LZ4_compressBound(static_cast<int>(image.size()));
  value->resize(4 + static_cast<size_t>(bound));
  uint32_t raw = static_cast<uint32_t>(image.size());
  for (int i = 0; i < 4; i++) (*value)[i] = static_cast<char>((raw >> (8 * i)) & 0xff);
  int n =
      LZ4_compress_default(image.data(), value->data() + 4, static_cast<int>(image.size()), bound);
  if (n <= 0) return Status::IoError("LZ4 compression of a block image failed");
  value->resize(4 + static_cast<size_t>(n));
  return Status::Ok();
}

}  // namespace

Status ColdStore::Open(const std::string& dir, bool read_only, std::unique_ptr<ColdStore>* out) {
  rocksdb::Options options = StoreOptions();
  options.create_if_missing = !read_only;
  if (read_only) {
    options.info_log = RocksDbInfoLog::Discarding();
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return Status::IoError(
          fmt::format("could not create the cold store directory {}: {}", dir, ec.message()));
    }
    options.info_log = RocksDbInfoLog::Open(dir, kInfoLogMaxBytes);
  }
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = read_only ? rocksdb::DB::OpenForReadOnly(options, dir, &db)
                                : rocksdb::DB::Open(options, dir, &db);
  if (!s.ok()) {
    if (read_only && (s.IsNotFound() || s.IsInvalidArgument() || s.IsIOError())) {
      return Status::NotFound(fmt::format("no cold store in {}: {}", dir, s.ToString()));
    }
    return FromRocks(s, "opening the cold store " + dir);
  }
  std::unique_ptr<ColdStore> store(new ColdStore(db));
  if (!read_only) {
    Status removed = RemoveEmptyObsoleteWals(db, dir);
    if (!removed.ok()) return removed;
  }
  *out = std::move(store);
  return Status::Ok();
}

ColdStore::ColdStore(rocksdb::DB* db) : db_(db) {}
ColdStore::~ColdStore() = default;

Status ColdStore::PutBlockImage(const BlockKey& key, std::string_view image) {
  std::string value;
  Status s = CompressImage(image, &value);
  if (!s.ok()) return s;
  return FromRocks(db_->Put(rocksdb::WriteOptions(), EncodeKey(key), value),
                   fmt::format("writing block image {}/{}/v{}", key.table, key.block, key.version));
}

Status ColdStore::GetBlockImage(const BlockKey& key, std::string* image) {
  std::string what =
      fmt::format("block image table {} block {} version {}", key.table, key.block, key.version);
  std::string value;
  Status s = FromRocks(db_->Get(rocksdb::ReadOptions(), EncodeKey(key), &value), what);
  if (!s.ok()) return s;
  if (value.size() < 4) return Status::Corruption(what + ": value too short");
  uint32_t raw = 0;
  for (int i = 0; i < 4; i++) raw |= uint32_t{static_cast<uint8_t>(value[i])} << (8 * i);
  if (raw > (64u << 20)) return Status::Corruption(what + ": implausible size");
  image->resize(raw);
  int n = LZ4_decompress_safe(value.data() + 4, image->data(), static_cast<int>(value.size() - 4),
                              static_cast<int>(raw));
  if (n != static_cast<int>(raw)) return Status::Corruption(what + ": LZ4 data is damaged");
  return Status::Ok();
}

Status ColdStore::PutManifest(std::string_view bytes) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->Put(wo, kManifestKey, rocksdb::Slice(bytes.data(), bytes.size())),
                   "writing the checkpoint manifest");
}

Status ColdStore::GetManifest(std::string* bytes) {
  return FromRocks(db_->Get(rocksdb::ReadOptions(), kManifestKey, bytes),
                   "reading the checkpoint manifest");
}

Status ColdStore::DeleteBlocksExcept(const std::set<BlockKey>& keep, uint64_t* deleted) {
  *deleted = 0;
  std::vector<std::string> doomed;
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(std::string(1, kBlockPrefix)); it->Valid(); it->Next()) {
      rocksdb::Slice k = it->key();
      if (k.size() != 17 || k[0] != kBlockPrefix) break;
      BlockKey bk{static_cast<uint32_t>(GetBigEndian(k.data() + 1, 4)),
                  static_cast<uint32_t>(GetBigEndian(k.data() + 5, 4)),
                  GetBigEndian(k.data() + 9, 8)};
      if (!keep.count(bk)) doomed.push_back(k.ToString());
    }
    Status s = FromRocks(it->status(), "listing block images");
    if (!s.ok()) return s;
  }
  for (const std::string& k : doomed) {
    Status s = FromRocks(db_->Delete(rocksdb::WriteOptions(), k), "deleting a block image");
    if (!s.ok()) return s;
    (*deleted)++;
  }
  return Status::Ok();
}

Status ColdStore::CountBlocks(uint64_t* count) {
  *count = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(std::string(1, kBlockPrefix)); it->Valid() && it->key()[0] == kBlockPrefix;
       it->Next()) {
    (*count)++;
  }
  return FromRocks(it->status(), "listing block images");
}

Status ColdStore::IngestImageFile(const std::string& path) {
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;  // hard link when on the same file system, else copy
  io.failed_move_fall_back_to_copy = true;
  io.snapshot_consistency = false;  // no reader holds snapshots of this store
  return FromRocks(db_->IngestExternalFile({path}, io), "ingesting checkpoint images " + path);
}

ImageFileWriter::ImageFileWriter() = default;
ImageFileWriter::~ImageFileWriter() = default;

Status ImageFileWriter::Open(const std::string& path) {
  writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), StoreOptions());
  return FromRocks(writer_->Open(path), "creating checkpoint image file " + path);
}

Status ImageFileWriter::Add(const BlockKey& key, std::string_view image) {
  Status s = CompressImage(image, &value_);
  if (!s.ok()) return s;
  return FromRocks(writer_->Put(EncodeKey(key), value_),
                   fmt::format("adding block image {}/{}/v{} to the image file", key.table,
                               key.block, key.version));
}

Status ImageFileWriter::Finish(uint64_t* file_bytes) {
  rocksdb::ExternalSstFileInfo info;
  Status s = FromRocks(writer_->Finish(&info), "finishing the checkpoint image file");
  if (s.ok() && file_bytes != nullptr) *file_bytes = info.file_size;
  return s;
}

}  // namespace forktail::ckpt
