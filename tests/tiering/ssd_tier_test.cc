// The SSD tier (tiering/ssd_tier.h): slot records, admission and reads,
// replacement by temperature, pins, and invariant 3 - after any crash or
// failed step a block read from the tier is the right version or is not used.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "recovery/recovery.h"
#include "storage/crc32c.h"
#include "tiering/tiering.h"

namespace forktail::tier {
namespace {

class TierDir {
 public:
  TierDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "forktail_tier_XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    path_ = tmpl;
  }
  ~TierDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string tier() const { return path_ + "/tier"; }

 private:
  std::string path_;
};

std::string Image(const BlockKey& key, size_t size) {
  std::string s(size, '\0');
  std::mt19937_64 rng(key.table * 1000003u + key.block * 7919u + key.version);
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::unique_ptr<SsdTier> OpenTier(const std::string& dir, uint32_t slots,
                                  std::function<Status(TierStep)> hook = nullptr) {
  SsdTierOptions o;
  o.slots = slots;
  o.before_step = std::move(hook);
  std::unique_ptr<SsdTier> tier;
  Status s = SsdTier::Open(dir, o, &tier);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return tier;
}

void ExpectAdmit(SsdTier& tier, const std::vector<BlockKey>& keys,
                 const std::vector<std::string>& images, uint64_t temperature, uint64_t want) {
  std::vector<std::string_view> views(images.begin(), images.end());
  uint64_t admitted = 0;
  Status s = tier.Admit(keys, views, std::vector<uint64_t>(keys.size(), temperature), &admitted);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(admitted, want);
}

// The tier's answer for one key: found and its bytes.
std::pair<bool, std::string> ReadOne(SsdTier& tier, const BlockKey& key) {
  std::vector<std::string> images;
  std::vector<bool> found;
  Status s = tier.Read({key}, &images, &found);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return {found[0], images[0]};
}

void FlipByte(const std::string& path, uint64_t offset) {
  int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c = 0;
  ASSERT_EQ(pread(fd, &c, 1, static_cast<off_t>(offset)), 1);
  c = static_cast<char>(c ^ 0x5a);
  ASSERT_EQ(pwrite(fd, &c, 1, static_cast<off_t>(offset)), 1);
  close(fd);
}

TEST(SlotRecordTest, RoundTripsAndRejectsDamagedSectors) {
  SlotRecord r;
  r.valid = true;
  r.key = {7, 3, 42};
  r.length = 123456;
  r.image_crc = 0xdeadbeef;
  r.temperature = 99;
  char sector[kSectorBytes];
  r.EncodeSector(sector);
  SlotRecord back;
  ASSERT_TRUE(SlotRecord::DecodeSector(sector, &back));
  EXPECT_TRUE(back.valid);
  EXPECT_EQ(back.key, r.key);
  EXPECT_EQ(back.length, r.length);
  EXPECT_EQ(back.image_crc, r.image_crc);
  EXPECT_EQ(back.temperature, r.temperature);
  for (size_t at : {0, 4, 8, 20, 30, 40}) {
    char damaged[kSectorBytes];
    std::memcpy(damaged, sector, kSectorBytes);
    damaged[at] ^= 1;
    EXPECT_FALSE(SlotRecord::DecodeSector(damaged, &back)) << "byte " << at;
    EXPECT_FALSE(back.valid);
  }
  std::memset(sector, 0, kSectorBytes);  // a never-written sector
  EXPECT_FALSE(SlotRecord::DecodeSector(sector, &back));
  SlotRecord{}.EncodeSector(sector);
  ASSERT_TRUE(SlotRecord::DecodeSector(sector, &back));
  EXPECT_FALSE(back.valid);
}

TEST(SsdTierTest, AdmittedImagesReadBackAcrossReopen) {
  TierDir d;
  std::vector<BlockKey> keys = {{1, 0, 1}, {1, 1, 4}, {2, 0, 9}, {3, 5, 2}};
  std::vector<size_t> sizes = {1, 4095, 4097, kSlotBytes};
  std::vector<std::string> images;
  for (size_t i = 0; i < keys.size(); i++) images.push_back(Image(keys[i], sizes[i]));
  {
    auto tier = OpenTier(d.tier(), 8);
    EXPECT_TRUE(tier->created());
    ExpectAdmit(*tier, keys, images, 1, 4);
    ExpectAdmit(*tier, keys, images, 1, 0);  // already held
    for (size_t i = 0; i < keys.size(); i++) EXPECT_EQ(ReadOne(*tier, keys[i]).second, images[i]);
    EXPECT_FALSE(ReadOne(*tier, BlockKey{1, 0, 2}).first);  // another version is a miss
  }
  auto tier = OpenTier(d.tier(), 8);
  EXPECT_FALSE(tier->created());
  EXPECT_EQ(tier->valid_count(), 4u);
  std::vector<std::string> got;
  std::vector<bool> found;
  ASSERT_TRUE(tier->Read(keys, &got, &found).ok());
  for (size_t i = 0; i < keys.size(); i++) {
    EXPECT_TRUE(found[i]);
    EXPECT_EQ(got[i], images[i]) << i;
  }
  EXPECT_EQ(tier->stats().hits, 4u);
}

TEST(SsdTierTest, ImagesLargerThanASlotAreNotAdmitted) {
  TierDir d;
  auto tier = OpenTier(d.tier(), 2);
  BlockKey k{1, 0, 1};
  ExpectAdmit(*tier, {k}, {std::string(kSlotBytes + 1, 'x')}, 1, 0);
  EXPECT_EQ(tier->stats().not_admitted, 1u);
  EXPECT_FALSE(ReadOne(*tier, k).first);
}

TEST(SsdTierTest, AnotherSlotCountStartsEmpty) {
  TierDir d;
  BlockKey k{1, 0, 1};
  ExpectAdmit(*OpenTier(d.tier(), 4), {k}, {Image(k, 5000)}, 1, 1);
  auto tier = OpenTier(d.tier(), 6);
  EXPECT_EQ(tier->slot_count(), 6u);
  EXPECT_EQ(tier->valid_count(), 0u);
  EXPECT_FALSE(ReadOne(*tier, k).first);
}

TEST(SsdTierTest, FlippedSlotBytesAreDroppedNotRead) {
  TierDir d;
  BlockKey a{1, 0, 1}, b{1, 1, 1};
  {
    auto tier = OpenTier(d.tier(), 4);
    ExpectAdmit(*tier, {a, b}, {Image(a, 9000), Image(b, 9000)}, 1, 2);
  }
  // Which slot holds a: the lowest free one, slot 0.
  FlipByte(SlotFile::PathIn(d.tier()), 100);
  {
    auto tier = OpenTier(d.tier(), 4);
    EXPECT_FALSE(ReadOne(*tier, a).first);
    EXPECT_EQ(tier->stats().dropped_corrupt, 1u);
    EXPECT_EQ(ReadOne(*tier, b).second, Image(b, 9000));
  }
  auto tier = OpenTier(d.tier(), 4);
  EXPECT_EQ(tier->valid_count(), 1u);  // the drop was durable
}

TEST(SsdTierTest, TornRecordReadsAsEmpty) {
  TierDir d;
  BlockKey a{1, 0, 1}, b{1, 1, 1};
  ExpectAdmit(*OpenTier(d.tier(), 4), {a, b}, {Image(a, 100), Image(b, 100)}, 1, 2);
  FlipByte(SlotTableFile::PathIn(d.tier()), kSectorBytes + 12);  // slot 0's record
  auto tier = OpenTier(d.tier(), 4);
  EXPECT_EQ(tier->torn_at_open(), 1u);
  EXPECT_EQ(tier->valid_count(), 1u);
  EXPECT_FALSE(ReadOne(*tier, a).first);
  EXPECT_TRUE(ReadOne(*tier, b).first);
  // The torn slot is reused safely: invalidated before its bytes change.
  BlockKey c{2, 0, 1};
  ExpectAdmit(*tier, {c}, {Image(c, 300)}, 1, 1);
  EXPECT_EQ(ReadOne(*tier, c).second, Image(c, 300));
}

TEST(SsdTierTest, ColderSlotsMakeRoomPinnedOnesDoNot) {
  TierDir d;
  auto tier = OpenTier(d.tier(), 2);
  BlockKey hot{1, 0, 1}, cold{1, 1, 1}, warm{1, 2, 1}, tepid{1, 3, 1};
  ExpectAdmit(*tier, {hot}, {Image(hot, 64)}, 5, 1);
  ExpectAdmit(*tier, {cold}, {Image(cold, 64)}, 1, 1);
  ExpectAdmit(*tier, {tepid}, {Image(tepid, 64)}, 1, 0);  // not colder than anyone
  ExpectAdmit(*tier, {warm}, {Image(warm, 64)}, 3, 1);    // replaces cold
  EXPECT_FALSE(ReadOne(*tier, cold).first);
  EXPECT_TRUE(ReadOne(*tier, hot).first);
  EXPECT_EQ(tier->stats().evicted, 1u);
  EXPECT_EQ(tier->HottestFirst().front(), hot);
  // A pinned version is neither replaced nor dropped as stale: warm (3) is
  // colder than hot (6 after one read), yet the newcomer replaces hot.
  tier->Pin(warm);
  ExpectAdmit(*tier, {tepid}, {Image(tepid, 64)}, 10, 1);
  EXPECT_FALSE(ReadOne(*tier, hot).first);
  EXPECT_TRUE(ReadOne(*tier, warm).first);
  uint64_t dropped = 0;
  ASSERT_TRUE(tier->DropStale({}, &dropped).ok());
  EXPECT_EQ(dropped, 1u);  // tepid
  EXPECT_TRUE(ReadOne(*tier, warm).first);
  tier->Unpin(warm);
  ASSERT_TRUE(tier->DropStale({}, &dropped).ok());
  EXPECT_EQ(dropped, 1u);
  EXPECT_FALSE(ReadOne(*tier, warm).first);
}

// Every step of a replacement fails once in turn: the tier then holds the old
// image, the new one or nothing for each key - never the other's bytes - and
// a reopened tier agrees.
TEST(SsdTierTest, AFailedStepNeverYieldsWrongBytes) {
  for (int fail = 0; fail < kTierStepCount; fail++) {
    SCOPED_TRACE(TierStepName(static_cast<TierStep>(fail)));
    TierDir d;
    BlockKey old_key{1, 0, 1}, new_key{1, 0, 2};
    bool armed = false;
    auto tier = OpenTier(d.tier(), 1, [&](TierStep step) {
      if (armed && static_cast<int>(step) == fail) return Status::IoError("injected");
      return Status::Ok();
    });
    ExpectAdmit(*tier, {old_key}, {Image(old_key, 70000)}, 1, 1);
    armed = true;
    uint64_t admitted = 0;
    std::string image = Image(new_key, 80000);
    Status s = tier->Admit({new_key}, {image}, {9}, &admitted);
    EXPECT_FALSE(s.ok());
    armed = false;
    for (SsdTier* t : {tier.get(), OpenTier(d.tier(), 1).release()}) {
      auto [found_old, old_bytes] = ReadOne(*t, old_key);
      auto [found_new, new_bytes] = ReadOne(*t, new_key);
      if (found_old) {
        EXPECT_EQ(old_bytes, Image(old_key, 70000));
      }
      if (found_new) {
        EXPECT_EQ(new_bytes, image);
      }
      EXPECT_FALSE(found_old && found_new);
      if (t != tier.get()) delete t;
    }
    // And the slot is usable again.
    ExpectAdmit(*tier, {new_key}, {image}, 9, 1);
    EXPECT_EQ(ReadOne(*tier, new_key).second, image);
  }
}

// kill -9 at each step of a replacement (before it, i.e. after the previous
// one completed): after the restart the slot holds the old version, the new
// one or nothing, and its bytes are that version's.
TEST(SsdTierTest, KillAtEachStepOfAReplacementNeverYieldsATornOrStaleBlock) {
  for (int crash = 0; crash <= kTierStepCount; crash++) {
    SCOPED_TRACE(crash < kTierStepCount ? TierStepName(static_cast<TierStep>(crash)) : "after");
    TierDir d;
    BlockKey old_key{4, 2, 7}, new_key{4, 2, 8};
    const std::string old_image = Image(old_key, kSlotBytes);
    const std::string new_image = Image(new_key, 1234567);
    ExpectAdmit(*OpenTier(d.tier(), 1), {old_key}, {old_image}, 1, 1);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto tier = OpenTier(d.tier(), 1, [&](TierStep step) {
        if (static_cast<int>(step) == crash) raise(SIGKILL);
        return Status::Ok();
      });
      uint64_t admitted = 0;
      tier->Admit({new_key}, {new_image}, {5}, &admitted).PermitUnchecked();
      raise(SIGKILL);  // crash == kTierStepCount: after the last step
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
    auto tier = OpenTier(d.tier(), 1);
    auto [found_old, old_bytes] = ReadOne(*tier, old_key);
    auto [found_new, new_bytes] = ReadOne(*tier, new_key);
    if (found_old) {
      EXPECT_EQ(old_bytes, old_image);
    }
    if (found_new) {
      EXPECT_EQ(new_bytes, new_image);
    }
    // Until the invalid record is written the old version stays; from then
    // on it is gone (a kill -9 keeps written, unsynced bytes: the page cache
    // survives it). Once the new record is written it is the new one; between,
    // nothing.
    if (crash <= static_cast<int>(TierStep::kInvalidateWrite)) {
      EXPECT_TRUE(found_old);
    } else {
      EXPECT_FALSE(found_old);
    }
    if (crash >= static_cast<int>(TierStep::kValidateSync)) {
      EXPECT_TRUE(found_new);
    }
    if (crash < static_cast<int>(TierStep::kValidateWrite)) {
      EXPECT_FALSE(found_new);
    }
    EXPECT_EQ(tier->stats().dropped_corrupt, 0u);
  }
}

class TierWithColdStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = ckpt::ColdStore::Open(redo::ColdStoreDir(d_.path()), false, &cold_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // A checkpoint of one table whose blocks have `versions`.
  ckpt::Manifest Checkpoint(const std::vector<uint64_t>& versions) {
    ckpt::Manifest m;
    m.sequence = ++sequence_;
    m.tables[1] = versions;
    for (const BlockKey& k : m.Keys()) {
      Status s = cold_->PutBlockImage(k, Image(k, 30000 + k.block));
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    EXPECT_TRUE(cold_->PutManifest(m.Encode()).ok());
    return m;
  }

  TierDir d_;
  std::unique_ptr<ckpt::ColdStore> cold_;
  uint64_t sequence_ = 0;
};

// The slot table names versions; the manifest decides which one is current.
// An SSD copy of a version newer than the checkpoint (written before a crash
// that lost the manifest) and one older than it (the block changed since the
// tier was filled) are both dropped and never read.
TEST_F(TierWithColdStoreTest, SsdCopyNewerThanColdStoreIsDropped) {
  ckpt::Manifest m = Checkpoint({5});
  auto tier = OpenTier(d_.tier(), 4);
  BlockKey newer{1, 0, 6};
  ExpectAdmit(*tier, {newer}, {Image(newer, 100)}, 3, 1);
  TieredImageSource source(cold_.get(), tier.get());
  ASSERT_TRUE(source.Start(m).ok());
  EXPECT_EQ(source.dropped_stale(), 1u);
  std::vector<std::string> images;
  ASSERT_TRUE(source.ReadImages({BlockKey{1, 0, 5}}, &images).ok());
  EXPECT_EQ(images[0], Image(BlockKey{1, 0, 5}, 30000));
  EXPECT_EQ(source.from_cold(), 1u);
  EXPECT_FALSE(ReadOne(*tier, newer).first);
  EXPECT_TRUE(ReadOne(*tier, BlockKey{1, 0, 5}).first);  // admitted on the way
}

TEST_F(TierWithColdStoreTest, SsdCopyOlderThanColdStoreIsDropped) {
  ckpt::Manifest m1 = Checkpoint({1, 1});
  auto tier = OpenTier(d_.tier(), 4);
  {
    TieredImageSource source(cold_.get(), tier.get());
    ASSERT_TRUE(source.Start(m1).ok());
    std::vector<std::string> images;
    ASSERT_TRUE(source.ReadImages({{1, 0, 1}, {1, 1, 1}}, &images).ok());
    EXPECT_EQ(source.from_cold(), 2u);
  }
  ckpt::Manifest m2 = Checkpoint({1, 2});  // block 1 changed: the tier's v1 is older
  TieredImageSource source(cold_.get(), tier.get());
  ASSERT_TRUE(source.Start(m2).ok());
  EXPECT_EQ(source.dropped_stale(), 1u);
  std::vector<std::string> images;
  ASSERT_TRUE(source.ReadImages({{1, 0, 1}, {1, 1, 2}}, &images).ok());
  EXPECT_EQ(source.from_tier(), 1u);
  EXPECT_EQ(source.from_cold(), 1u);
  EXPECT_EQ(images[1], Image(BlockKey{1, 1, 2}, 30001));
}

TEST_F(TierWithColdStoreTest, CheckpointImagesInheritTheirPredecessorsHeat) {
  ckpt::Manifest m1 = Checkpoint({1, 1});
  auto tier = OpenTier(d_.tier(), 2);
  uint64_t admitted = 0;
  ASSERT_TRUE(
      AdmitCheckpointImages(cold_.get(), tier.get(), m1, {{1, 0, 1}, {1, 1, 1}}, {}, &admitted)
          .ok());
  EXPECT_EQ(admitted, 2u);
  for (int i = 0; i < 5; i++) ReadOne(*tier, {1, 1, 1});
  ckpt::Manifest m2 = Checkpoint({1, 2});
  ASSERT_TRUE(AdmitCheckpointImages(cold_.get(), tier.get(), m2, {{1, 1, 2}}, {}, &admitted).ok());
  EXPECT_EQ(admitted, 1u);
  EXPECT_EQ(tier->HottestFirst().front(), (BlockKey{1, 1, 2}));
  EXPECT_FALSE(ReadOne(*tier, {1, 1, 1}).first);
}

// A block hot in memory is never read from the tier; the use epochs a
// checkpoint hands over make it hot there too, durably, whether its slot
// stays (block 2) or its new version is admitted (block 1, with no slot
// before: its uses are its temperature).
TEST_F(TierWithColdStoreTest, UsesInMemoryWarmTheirSlotsAndSurviveAReopen) {
  ckpt::Manifest m1 = Checkpoint({1, 1, 1});
  {
    auto tier = OpenTier(d_.tier(), 3);
    uint64_t admitted = 0;
    ASSERT_TRUE(
        AdmitCheckpointImages(cold_.get(), tier.get(), m1, {{1, 0, 1}, {1, 2, 1}}, {}, &admitted)
            .ok());
    for (int i = 0; i < 3; i++) ReadOne(*tier, {1, 0, 1});  // block 0: read from the tier
    ckpt::Manifest m2 = Checkpoint({1, 2, 1});
    ASSERT_TRUE(AdmitCheckpointImages(cold_.get(), tier.get(), m2, {{1, 1, 2}},
                                      {{{1, 1, 2}, 7}, {{1, 2, 1}, 40}}, &admitted)
                    .ok());
    EXPECT_EQ(admitted, 1u);
  }
  // The 47 uses and 3 reads passed 8 x 3 slots: the temperatures halved
  // once, before block 1's new version came in with its 7.
  auto tier = OpenTier(d_.tier(), 3);
  EXPECT_EQ(tier->BlockTemperatures({{1, 0, 1}, {1, 1, 2}, {1, 2, 1}}),
            (std::vector<uint64_t>{(1 + 3) / 2, 7, (1 + 40) / 2}));
  EXPECT_EQ(tier->HottestFirst(), (std::vector<BlockKey>{{1, 2, 1}, {1, 1, 2}, {1, 0, 1}}));
}

TEST_F(TierWithColdStoreTest, VerifyPassesThenFailsOnAFlippedSlot) {
  ckpt::Manifest m = Checkpoint({1, 1, 1});
  {
    auto tier = OpenTier(d_.tier(), 4);
    uint64_t admitted = 0;
    ASSERT_TRUE(AdmitCheckpointImages(cold_.get(), tier.get(), m, {{1, 0, 1}, {1, 1, 1}, {1, 2, 1}},
                                      {}, &admitted)
                    .ok());
  }
  cold_.reset();  // as a stopped server
  std::ostringstream out, err;
  EXPECT_EQ(TierVerify(d_.path(), "", out, err), kTierClean) << out.str() << err.str();
  EXPECT_NE(out.str().find("OK: 3 valid slots: 3 intact, 0 stale, 0 corrupt"), std::string::npos)
      << out.str();
  std::ostringstream iout;
  EXPECT_EQ(TierInspect(d_.path(), "", true, iout, err), kTierClean);
  EXPECT_NE(iout.str().find("valid         3"), std::string::npos) << iout.str();
  EXPECT_NE(iout.str().find("table 1 block 2 version 1"), std::string::npos) << iout.str();

  FlipByte(SlotFile::PathIn(d_.tier()), kSlotBytes + 77);  // slot 1
  std::ostringstream out2;
  EXPECT_EQ(TierVerify(d_.path(), "", out2, err), kTierCorrupt) << out2.str();
  EXPECT_NE(out2.str().find("corrupt: table 1 block 1 version 1"), std::string::npos) << out2.str();
  // Verify changed nothing: a second run says the same.
  std::ostringstream out3;
  EXPECT_EQ(TierVerify(d_.path(), "", out3, err), kTierCorrupt);

  std::ostringstream none_out, none_err;
  EXPECT_EQ(TierVerify(d_.path() + "/nope", "", none_out, none_err), kTierUsageError);
  EXPECT_NE(none_err.str().find("no SSD tier"), std::string::npos) << none_err.str();
}

}  // namespace
}  // namespace forktail::tier
