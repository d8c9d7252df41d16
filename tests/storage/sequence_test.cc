// Sequence rules (storage/table/sequence.h): the option checks, nextval and
// setval, with the messages PostgreSQL 15 gives for the same statements.
#include <gtest/gtest.h>

#include "storage/storage.h"

namespace forktail {
namespace {

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const DbError& e) {
    return std::string(e.sqlstate()) + " " + e.what();
  }
  return "no error";
}

struct Made {
  SequenceDef def;
  SequenceState state;
};

Made Create(const SequenceOptions& options) {
  Made m;
  m.def.name = "s";
  ApplySequenceOptions(options, /*init=*/true, /*for_identity=*/false, &m.def, &m.state);
  return m;
}

TEST(Sequence, DefaultsBySignAndType) {
  Made up = Create({});
  EXPECT_EQ(up.def.type, TypeId::kBigInt);
  EXPECT_EQ(up.def.min, 1);
  EXPECT_EQ(up.def.max, INT64_MAX);
  EXPECT_EQ(up.def.start, 1);
  EXPECT_EQ(up.def.cache, 1);
  EXPECT_EQ(up.state, (SequenceState{1, false}));
  SequenceOptions o;
  o.increment = -1;
  Made down = Create(o);  // CREATE SEQUENCE s6 INCREMENT -1
  EXPECT_EQ(down.def.min, INT64_MIN);
  EXPECT_EQ(down.def.max, -1);
  EXPECT_EQ(down.def.start, -1);
  o = {};
  o.type = TypeId::kSmallInt;
  Made small = Create(o);
  EXPECT_EQ(small.def.max, 32767);
  o.increment = -2;
  EXPECT_EQ(Create(o).def.min, -32768);
}

TEST(Sequence, OptionErrorsAsPostgres) {
  auto error = [](SequenceOptions o) { return ErrorOf([&] { Create(o); }); };
  SequenceOptions o;
  o.increment = 0;
  EXPECT_EQ(error(o), "22023 INCREMENT must not be zero");
  o = {};
  o.type = TypeId::kText;
  EXPECT_EQ(error(o), "22023 sequence type must be smallint, integer, or bigint");
  o = {};
  o.start = 0;
  EXPECT_EQ(error(o), "22023 START value (0) cannot be less than MINVALUE (1)");
  o = {};
  o.min = 5;
  o.max = 3;
  EXPECT_EQ(error(o), "22023 MINVALUE (5) must be less than MAXVALUE (3)");
  o = {};
  o.start = 100;
  o.max = 10;
  EXPECT_EQ(error(o), "22023 START value (100) cannot be greater than MAXVALUE (10)");
  o = {};
  o.type = TypeId::kSmallInt;
  o.max = 100000;
  EXPECT_EQ(error(o), "22023 MAXVALUE (100000) is out of range for sequence data type smallint");
  o.max = std::nullopt;
  o.min = -100000;
  EXPECT_EQ(error(o), "22023 MINVALUE (-100000) is out of range for sequence data type smallint");
  o = {};
  o.cache = 0;
  EXPECT_EQ(error(o), "22023 CACHE (0) must be greater than zero");
  Made m = Create({});
  SequenceDef def = m.def;
  o = {};
  o.type = TypeId::kText;
  EXPECT_EQ(ErrorOf([&] { ApplySequenceOptions(o, true, true, &def, &m.state); }),
            "22023 identity column type must be smallint, integer, or bigint");
  EXPECT_EQ(def, m.def);  // nothing changed
}

TEST(Sequence, AlterKeepsWhatIsNotGiven) {
  SequenceOptions o;
  o.max = 100;
  o.start = 5;
  Made m = Create(o);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 5);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 6);
  // ALTER SEQUENCE s INCREMENT 10: the value stays, the bounds stay.
  o = {};
  o.increment = 10;
  ApplySequenceOptions(o, false, false, &m.def, &m.state);
  EXPECT_EQ(m.def.max, 100);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 16);
  // RESTART: back to START, not called; RESTART WITH n.
  o = {};
  o.restart = std::optional<int64_t>();
  ApplySequenceOptions(o, false, false, &m.def, &m.state);
  EXPECT_EQ(m.state, (SequenceState{5, false}));
  o.restart = 50;
  ApplySequenceOptions(o, false, false, &m.def, &m.state);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 50);
  // MAXVALUE below the current value.
  o = {};
  o.max = 40;
  EXPECT_EQ(ErrorOf([&] { ApplySequenceOptions(o, false, false, &m.def, &m.state); }),
            "22023 RESTART value (50) cannot be greater than MAXVALUE (40)");
  // AS integer moves a bound that was the old type's limit only.
  Made big = Create({});
  o = {};
  o.type = TypeId::kInteger;
  ApplySequenceOptions(o, false, false, &big.def, &big.state);
  EXPECT_EQ(big.def.max, INT32_MAX);
  EXPECT_EQ(big.def.min, 1);
}

TEST(Sequence, NextvalLimitsAndCycle) {
  SequenceOptions o;
  o.max = 2;
  Made m = Create(o);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 1);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 2);
  EXPECT_EQ(ErrorOf([&] { NextSequenceValue(m.def, &m.state); }),
            "2200H nextval: reached maximum value of sequence \"s\" (2)");
  EXPECT_EQ(m.state, (SequenceState{2, true}));  // unchanged by the failure
  o = {};
  o.increment = -1;
  o.min = -2;
  Made down = Create(o);
  EXPECT_EQ(NextSequenceValue(down.def, &down.state), -1);
  EXPECT_EQ(NextSequenceValue(down.def, &down.state), -2);
  EXPECT_EQ(ErrorOf([&] { NextSequenceValue(down.def, &down.state); }),
            "2200H nextval: reached minimum value of sequence \"s\" (-2)");
  o = {};
  o.max = 3;
  o.cycle = true;
  Made cyc = Create(o);
  for (int64_t want : {1, 2, 3, 1, 2}) EXPECT_EQ(NextSequenceValue(cyc.def, &cyc.state), want);
  // No overflow near the type's limit.
  Made top = Create({});
  top.state = CheckedSequenceValue(top.def, INT64_MAX, true);
  EXPECT_EQ(ErrorOf([&] { NextSequenceValue(top.def, &top.state); }),
            "2200H nextval: reached maximum value of sequence \"s\" (9223372036854775807)");
}

TEST(Sequence, Setval) {
  Made m = Create({});
  EXPECT_EQ(ErrorOf([&] { CheckedSequenceValue(m.def, 0, true); }),
            "22003 setval: value 0 is out of bounds for sequence \"s\" (1..9223372036854775807)");
  m.state = CheckedSequenceValue(m.def, 20, false);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 20);
  m.state = CheckedSequenceValue(m.def, 20, true);
  EXPECT_EQ(NextSequenceValue(m.def, &m.state), 21);
}

}  // namespace
}  // namespace forktail
