// The list-append serializability checker (tests/common/serializability_checker.h): valid
// serial and concurrent histories pass; each planted anomaly fails with its kind; large random
// serial histories, and a chain far deeper than any recursion could follow, check quickly.
#include "tests/common/serializability_checker.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace forktail::testing {
namespace {

constexpr int64_t kX = 1;
constexpr int64_t kY = 2;

Op A(int64_t key, int64_t element) { return Op::Append(key, element); }
Op R(int64_t key, std::vector<int64_t> observed) { return Op::Read(key, std::move(observed)); }

Txn Committed(uint64_t id, std::vector<Op> ops) { return Txn{id, true, std::move(ops), false}; }
Txn Aborted(uint64_t id, std::vector<Op> ops) { return Txn{id, false, std::move(ops), false}; }
Txn Unknown(uint64_t id, std::vector<Op> ops) { return Txn{id, false, std::move(ops), true}; }

// The anomaly's kind: the text before the first ':'.
std::string Kind(const CheckResult& result) {
  return result.anomaly.substr(0, result.anomaly.find(':'));
}

// The first line of the anomaly: for a cycle, the kind and the cycle.
std::string FirstLine(const CheckResult& result) {
  return result.anomaly.substr(0, result.anomaly.find('\n'));
}

// Passes when the checker accepts the history; else shows the anomaly and the history.
::testing::AssertionResult Passes(const std::vector<Txn>& history) {
  const CheckResult result = CheckListAppend(history);
  if (result.ok && result.anomaly.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.anomaly << "\n" << FormatHistory(history);
}

// Generates histories by running transactions one at a time against an in-memory map of
// lists, so that every history it makes is serializable (serial, even) by construction.
class SerialRunner {
 public:
  SerialRunner(uint64_t seed, int64_t num_keys) : rng_(seed), num_keys_(num_keys) {}

  // A txn of 1 to 6 reads and appends over 1 to 3 keys. committed_percent of them commit; the
  // rest abort, or (one in two) end with an unknown outcome that did or did not take effect.
  Txn Run(uint64_t id, int committed_percent) {
    std::vector<int64_t> keys(1 + Uniform(3));
    for (int64_t& key : keys) key = Uniform(num_keys_);
    Txn txn{id, true, {}, false};
    std::unordered_map<int64_t, std::vector<int64_t>> writes;  // Buffered until commit.
    for (uint64_t i = 0, n = 1 + Uniform(6); i < n; ++i) {
      const int64_t key = keys[Uniform(keys.size())];
      if (Uniform(2) == 0) {
        txn.ops.push_back(A(key, next_element_));
        writes[key].push_back(next_element_++);
      } else {
        std::vector<int64_t> observed = db_[key];
        observed.insert(observed.end(), writes[key].begin(), writes[key].end());
        txn.ops.push_back(R(key, std::move(observed)));
      }
    }
    bool applied = true;
    if (static_cast<int>(Uniform(100)) >= committed_percent) {
      txn.committed = false;
      txn.unknown = Uniform(2) == 0;
      applied = txn.unknown && Uniform(2) == 0;
    }
    if (applied) {
      for (const auto& [key, elements] : writes) {
        db_[key].insert(db_[key].end(), elements.begin(), elements.end());
      }
    }
    return txn;
  }

  // A committed txn reading every key: puts every applied append into the version orders.
  Txn ReadAll(uint64_t id) {
    Txn txn{id, true, {}, false};
    for (int64_t key = 0; key < num_keys_; ++key) txn.ops.push_back(R(key, db_[key]));
    return txn;
  }

  std::vector<Txn> History(size_t num_txns, int committed_percent) {
    std::vector<Txn> history;
    for (size_t i = 0; i < num_txns; ++i) history.push_back(Run(i + 1, committed_percent));
    history.push_back(ReadAll(num_txns + 1));
    return history;
  }

 private:
  uint64_t Uniform(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  std::mt19937_64 rng_;
  int64_t num_keys_;
  int64_t next_element_ = 1;
  std::unordered_map<int64_t, std::vector<int64_t>> db_;
};

TEST(SerializabilityChecker, EmptyHistoryPasses) {
  EXPECT_TRUE(Passes({}));
  EXPECT_TRUE(Passes({Committed(1, {R(kX, {})}), Aborted(2, {A(kX, 1)})}));
}

TEST(SerializabilityChecker, SerialHistoryPasses) {
  // 500 committed txns over 4 keys: long lists, many reads of their own appends.
  SerialRunner runner(/*seed=*/1, /*num_keys=*/4);
  EXPECT_TRUE(Passes(runner.History(500, /*committed_percent=*/100)));
}

TEST(SerializabilityChecker, ConcurrentSerializableHistoryPasses) {
  // Listed out of order. Equivalent to the serial order T1 T4 T6 T2 T8 T7: T6 ran beside T2
  // and missed its append, T2 reads its own append, T7's append is never read (so unordered),
  // aborted T3's and unknown T5's appends never show, unknown T4's does. Reads of aborted and
  // unknown txns are ignored.
  const std::vector<Txn> history = {
      Committed(6, {R(kY, {10, 11}), R(kX, {1})}),
      Committed(2, {R(kX, {1}), A(kX, 2), R(kX, {1, 2})}),
      Committed(8, {R(kX, {1, 2}), R(kY, {10, 11})}),
      Aborted(3, {A(kX, 99), R(kY, {12345})}),
      Committed(1, {A(kX, 1), A(kY, 10)}),
      Unknown(5, {A(kX, 98), R(kX, {98, 1})}),
      Committed(7, {A(kY, 12)}),
      Unknown(4, {A(kY, 11)}),
  };
  EXPECT_TRUE(Passes(history));
}

TEST(SerializabilityChecker, G0WriteCycle) {
  // T1 and T2 append to x and y in opposite orders.
  const CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kY, 2)}),
      Committed(2, {A(kX, 3), A(kY, 4)}),
      Committed(3, {R(kX, {1, 3}), R(kY, {4, 2})}),
  });
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(FirstLine(result), "G0: T1 -ww(k=1)-> T2 -ww(k=2)-> T1") << result.anomaly;
  EXPECT_NE(result.anomaly.find("\n  T1 (committed): a(1,1) a(2,2)"), std::string::npos)
      << result.anomaly;
}

TEST(SerializabilityChecker, G0ThroughUnknownOutcome) {
  // A txn of unknown outcome whose appends were read took effect: it is in the graph.
  const CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kY, 2)}),
      Unknown(2, {A(kX, 3), A(kY, 4)}),
      Committed(3, {R(kX, {1, 3}), R(kY, {4, 2})}),
  });
  EXPECT_EQ(FirstLine(result), "G0: T1 -ww(k=1)-> T2 -ww(k=2)-> T1") << result.anomaly;
}

TEST(SerializabilityChecker, G1cCircularInformationFlow) {
  // Each reads the other's append: wr both ways.
  CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1), R(kY, {2})}),
      Committed(2, {A(kY, 2), R(kX, {1})}),
  });
  EXPECT_EQ(FirstLine(result), "G1c: T1 -wr(k=1)-> T2 -wr(k=2)-> T1") << result.anomaly;

  // T2 appends to x after T1 (ww), T1 reads T2's append to y (wr).
  result = CheckListAppend({
      Committed(1, {A(kX, 1), R(kY, {3})}),
      Committed(2, {A(kX, 2), A(kY, 3)}),
      Committed(3, {R(kX, {1, 2})}),
  });
  EXPECT_EQ(FirstLine(result), "G1c: T1 -ww(k=1)-> T2 -wr(k=2)-> T1") << result.anomaly;
}

TEST(SerializabilityChecker, G2WriteSkew) {
  // T1 and T2 both read x and y empty; T1 appends to x, T2 to y. T3's later read orders the
  // appends; without some read of them the versions, and so the cycle, would be unobservable.
  const CheckResult result = CheckListAppend({
      Committed(1, {R(kX, {}), R(kY, {}), A(kX, 1)}),
      Committed(2, {R(kX, {}), R(kY, {}), A(kY, 2)}),
      Committed(3, {R(kX, {1}), R(kY, {2})}),
  });
  EXPECT_EQ(FirstLine(result), "G2: T1 -rw(k=2)-> T2 -rw(k=1)-> T1") << result.anomaly;
}

TEST(SerializabilityChecker, G2LostUpdate) {
  // Both read x empty and append to it: T3 sees both, so T2 appended after T1 without seeing
  // T1's append.
  const CheckResult result = CheckListAppend({
      Committed(1, {R(kX, {}), A(kX, 1)}),
      Committed(2, {R(kX, {}), A(kX, 2)}),
      Committed(3, {R(kX, {1, 2})}),
  });
  EXPECT_EQ(FirstLine(result), "G2: T1 -ww(k=1)-> T2 -rw(k=1)-> T1") << result.anomaly;
}

TEST(SerializabilityChecker, G2LongFork) {
  // T3 sees T1's append but not T2's, T4 sees T2's but not T1's (allowed by snapshot
  // isolation, not by serializability).
  const CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1)}),
      Committed(2, {A(kY, 2)}),
      Committed(3, {R(kX, {1}), R(kY, {})}),
      Committed(4, {R(kX, {}), R(kY, {2})}),
  });
  EXPECT_EQ(FirstLine(result), "G2: T1 -wr(k=1)-> T3 -rw(k=2)-> T2 -wr(k=2)-> T4 -rw(k=1)-> T1")
      << result.anomaly;
}

TEST(SerializabilityChecker, G1aAbortedRead) {
  CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1)}),
      Aborted(2, {A(kX, 2)}),
      Committed(3, {R(kX, {1, 2})}),
  });
  EXPECT_EQ(FirstLine(result), "G1a: T3 read key 1 = [1, 2]: element 2 was appended by aborted T2")
      << result.anomaly;

  // Seen only by a read that fits no order with the others.
  result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kX, 3)}),
      Aborted(2, {A(kX, 2)}),
      Committed(3, {R(kX, {1, 3})}),
      Committed(4, {R(kX, {2})}),
  });
  EXPECT_EQ(Kind(result), "G1a") << result.anomaly;
}

TEST(SerializabilityChecker, G1bIntermediateRead) {
  // T2 sees T1's first append to x but not its second.
  const CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kX, 2)}),
      Committed(2, {R(kX, {1})}),
      Committed(3, {R(kX, {1, 2})}),
  });
  EXPECT_EQ(Kind(result), "G1b") << result.anomaly;
}

TEST(SerializabilityChecker, IncompatibleOrder) {
  CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1)}),
      Committed(2, {A(kX, 2)}),
      Committed(3, {R(kX, {1, 2})}),
      Committed(4, {R(kX, {2, 1})}),
  });
  EXPECT_EQ(result.anomaly,
            "incompatible order: key 1: T3 read [1, ...1 later] but T4 read [2, ...1 later] "
            "(differ at index 0)");

  // Lists of different lengths, neither a prefix of the other.
  result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kY, 5)}),
      Committed(2, {A(kX, 2)}),
      Committed(3, {A(kX, 3)}),
      Committed(4, {R(kX, {1, 2, 3})}),
      Committed(5, {R(kX, {1, 3})}),
  });
  EXPECT_EQ(Kind(result), "incompatible order") << result.anomaly;
}

TEST(SerializabilityChecker, InternalInconsistency) {
  const std::vector<std::vector<Txn>> histories = {
      // The read misses the txn's own earlier append.
      {Committed(1, {A(kX, 1), R(kX, {})})},
      // Its own appends are not at the end, or not in order.
      {Committed(1, {A(kX, 1), R(kX, {1, 2})}), Committed(2, {A(kX, 2)})},
      {Committed(1, {A(kX, 1), A(kX, 2), R(kX, {2, 1})})},
      // Non-repeatable read: the second read of x differs from the first.
      {Committed(1, {R(kX, {}), R(kX, {2})}), Committed(2, {A(kX, 2)})},
      // The second read is not the first plus the appends in between.
      {Committed(1, {R(kX, {}), A(kX, 1), R(kX, {2, 1})}), Committed(2, {A(kX, 2)})},
      // A read shows an append the txn makes only later.
      {Committed(1, {R(kX, {1}), A(kX, 1)})},
  };
  for (const std::vector<Txn>& history : histories) {
    const CheckResult result = CheckListAppend(history);
    EXPECT_EQ(Kind(result), "internal") << result.anomaly << "\n" << FormatHistory(history);
  }
}

TEST(SerializabilityChecker, GarbageRead) {
  CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1)}),
      Committed(2, {R(kX, {1, 42})}),
  });
  EXPECT_EQ(result.anomaly, "garbage read: T2 read key 1 = [1, 42]: element 42 was never appended");

  // Appended, but to another key.
  result = CheckListAppend({
      Committed(1, {A(kY, 1)}),
      Committed(2, {R(kX, {1})}),
  });
  EXPECT_EQ(Kind(result), "garbage read") << result.anomaly;
}

TEST(SerializabilityChecker, DuplicateElementAndAppend) {
  CheckResult result = CheckListAppend({
      Committed(1, {A(kX, 1)}),
      Committed(2, {R(kX, {1, 1})}),
  });
  EXPECT_EQ(Kind(result), "duplicate element") << result.anomaly;

  // In a read shorter than the key's longest, so checked apart from the version order.
  result = CheckListAppend({
      Committed(1, {A(kX, 1), A(kY, 2)}),
      Committed(2, {R(kX, {1, 1})}),
      Committed(3, {R(kX, {1}), R(kY, {2})}),
  });
  EXPECT_EQ(Kind(result), "duplicate element") << result.anomaly;

  result = CheckListAppend({Committed(1, {A(kX, 1)}), Committed(2, {A(kY, 1)})});
  EXPECT_EQ(Kind(result), "duplicate append") << result.anomaly;
}

TEST(SerializabilityChecker, LargeRandomSerialHistory) {
  // 20,000 txns over 400 keys, a tenth of them aborted or of unknown outcome, and a final read
  // of every key.
  SerialRunner runner(/*seed=*/42, /*num_keys=*/400);
  std::vector<Txn> history = runner.History(20000, /*committed_percent=*/90);
  EXPECT_TRUE(Passes(history));

  // Plant one stale read: a committed txn T that read key k as L, then appended e to k (and
  // did not read k again) now reads L without its last element, written by W. W's append came
  // right before e (ww W -> T), and T missed it (rw T -> W). Skip any L whose last two
  // elements have one writer: without the last, the read would be intermediate (G1b).
  std::unordered_map<int64_t, uint64_t> writer;
  for (const Txn& txn : history) {
    for (const Op& op : txn.ops) {
      if (op.kind == Op::kAppend) writer[op.element] = txn.id;
    }
  }
  auto plantable = [&](const Txn& txn, size_t read) {
    const Op& op = txn.ops[read];
    const std::vector<int64_t>& list = op.observed;
    if (!txn.committed || op.kind != Op::kRead || list.empty()) return false;
    if (list.size() >= 2 && writer[list[list.size() - 2]] == writer[list.back()]) return false;
    bool appends_after = false;
    for (size_t i = 0; i < txn.ops.size(); ++i) {
      if (txn.ops[i].key != op.key || i == read) continue;
      if (i < read && txn.ops[i].kind == Op::kAppend) return false;  // Read shows its own.
      if (i > read && txn.ops[i].kind == Op::kRead) return false;    // Would be internal.
      if (i > read) appends_after = true;
    }
    return appends_after;
  };
  Txn* stale = nullptr;
  Op* stale_read = nullptr;
  for (size_t t = history.size() / 2; t < history.size() && stale == nullptr; ++t) {
    for (size_t i = 0; i < history[t].ops.size(); ++i) {
      if (plantable(history[t], i)) {
        stale = &history[t];
        stale_read = &history[t].ops[i];
        break;
      }
    }
  }
  ASSERT_NE(stale, nullptr);
  const uint64_t w = writer[stale_read->observed.back()];
  stale_read->observed.pop_back();
  const CheckResult result = CheckListAppend(history);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(Kind(result), "G2") << result.anomaly;
  const std::string step = "T" + std::to_string(stale->id) +
                           " -rw(k=" + std::to_string(stale_read->key) + ")-> T" +
                           std::to_string(w);
  EXPECT_NE(result.anomaly.find(step), std::string::npos) << step << "\n" << result.anomaly;
}

TEST(SerializabilityChecker, LongChainNeedsNoRecursion) {
  // T_i appends to keys i and i + 1, so T_i -ww-> T_i+1 for 200,000 txns: a search as deep as
  // the chain. Then close it into one cycle: the last txn also appends to key 0, before T_1.
  constexpr int64_t kTxns = 200000;
  std::vector<Txn> history;
  std::vector<std::vector<int64_t>> lists(kTxns + 1);
  int64_t element = 1;
  for (int64_t i = 0; i < kTxns; ++i) {
    history.push_back(Committed(i + 1, {A(i, element), A(i + 1, element + 1)}));
    lists[i].push_back(element++);
    lists[i + 1].push_back(element++);
  }
  Txn reader = Committed(kTxns + 1, {});
  for (int64_t key = 0; key <= kTxns; ++key) reader.ops.push_back(R(key, lists[key]));
  history.push_back(reader);
  EXPECT_TRUE(Passes(history));

  std::vector<int64_t>& key0 = history.back().ops.front().observed;
  key0.insert(key0.begin(), element);
  history[kTxns - 1].ops.push_back(A(0, element));
  const CheckResult result = CheckListAppend(history);
  EXPECT_EQ(Kind(result), "G0") << result.anomaly.substr(0, 2000);
  EXPECT_NE(result.anomaly.find("G0: T1 -ww(k=1)-> T2 -ww(k=2)-> T3"), std::string::npos)
      << result.anomaly.substr(0, 2000);
  EXPECT_NE(result.anomaly.find("(199984 more steps)"), std::string::npos)
      << result.anomaly.substr(0, 2000);
  EXPECT_NE(result.anomaly.find("-ww(k=0)-> T1\n"), std::string::npos)
      << result.anomaly.substr(0, 2000);
}

}  // namespace
}  // namespace forktail::testing
