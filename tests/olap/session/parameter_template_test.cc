// Parameter templates (olap/session/statement/parameter_template.h): a
// prepared statement bound once and executed with other values by putting
// them into the marked constants of that binding. The one thing that must
// hold: what a template gives for some values is what binding the
// statement with those values gives. Checked by printing both, for many
// values of every parameter type, for every statement a template is made
// of; and through a session, with DDL, time zones, NULLs, bad values,
// blocks and FOR UPDATE between executions.
#include "olap/session/statement/parameter_template.h"

#include <random>

#include "olap/parser/parser.h"
#include "olap/plan/logical.h"
#include "tests/olap/session/session_test_util.h"

namespace forktail::testing {
namespace {

using ::testing::ElementsAre;

// Everything a bound statement means, as text.
std::string Printed(const PreBoundStatement& pre) {
  const BoundStatement& b = pre.bound;
  std::string out =
      "kind " + std::to_string(static_cast<int>(b.kind)) + " table " + b.table_name + "\n";
  if (b.plan) out += PlanToString(*b.plan, false) + "\n";
  if (b.where) out += "where " + ExprToString(*b.where) + "\n";
  for (const auto& [column, value] : b.set) {
    out += "set " + std::to_string(column) + " = " + ExprToString(*value) + " : " +
           value->type.ToString() + "\n";
  }
  for (const Row& row : b.insert_rows) {
    out += "row";
    for (const Value& v : row)
      out += " " + (v.is_null() ? "NULL" : v.ToString()) + ":" + v.type().ToString();
    out += "\n";
  }
  for (const ExprPtr& e : b.returning) out += "returning " + ExprToString(*e) + "\n";
  out += "point " + std::string(pre.point_select ? "yes" : "no");
  if (pre.point_select) {
    for (const Value& v : pre.point_select->key()) out += " " + v.ToString();
  }
  return out;
}

// Text forms of values to try for a parameter of each type; those that do
// not cast to it are skipped.
std::vector<std::string> Candidates(const Type& t) {
  switch (t.id) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kBigInt:
      return {"0",          "1",          "-1",          "7",
              "42",         "2147483647", "-2147483648", "9223372036854775807",
              "99999999999"};
    case TypeId::kDecimal:
    case TypeId::kDouble:
      return {"0", "0.01", "-3.5", "12.34", "9999999999.99", "1.005", "100000"};
    case TypeId::kBoolean:
      return {"true", "false"};
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return {"2020-01-01 00:00:00", "1999-12-31 23:59:59.5", "2026-12-07 13:00:00+05"};
    default:
      return {"", "a", "a'b", "hello", "0123456789abcdefXYZ", "  x  "};
  }
}

class ParameterTemplateTest : public EngineFixture {
 protected:
  void SetUp() override {
    Open(InProcess());
    Run("CREATE TABLE item (id int PRIMARY KEY, w bigint, price decimal(12,2), "
        "name varchar(16), since timestamp, flag boolean, note text)");
    Run("CREATE TABLE line (o int, n int, qty int, amount decimal(6,2), PRIMARY KEY (o, n))");
    Run("CREATE TABLE dflt (id int PRIMARY KEY, made timestamp DEFAULT now(), v int)");
    Run("CREATE TABLE ts (id int PRIMARY KEY, at timestamptz)");
    Run("CREATE VIEW cheap AS SELECT id, price FROM item WHERE price < 10");
    Run("CREATE SEQUENCE s");
    Run("INSERT INTO item VALUES (1, 10, 5.00, 'one', '2020-01-01', true, 'n1'), "
        "(2, 20, 15.50, 'two', '2021-06-01', false, NULL), "
        "(3, 30, NULL, 'three', '2022-01-01', true, 'n3')");
    Run("INSERT INTO line VALUES (1, 1, 3, 1.50), (1, 2, 4, 2.50), (2, 1, 5, 3.00)");
    Run("INSERT INTO ts VALUES (1, '2020-01-01 12:00:00+00'), (2, '2020-01-02 00:30:00+00')");
    schemas_ = engine_->database().schemas();
  }

  // The first binding (types inferred unless `declared`) and its template.
  struct Made {
    sql::StatementPtr statement;
    std::optional<PreBoundStatement> first;
    std::unique_ptr<ParameterTemplate> made;
    std::vector<Type> types;
  };
  Made Template(const std::string& text, const std::vector<Value>& values,
                const std::vector<std::optional<Type>>& declared = {}) {
    Made m;
    std::vector<sql::StatementPtr> parsed = sql::Parse(text);
    m.statement = std::move(parsed.at(0));
    BindOptions options;
    options.parameter_types = declared;
    options.parameters = values;
    options.tag_parameters = true;
    m.first = PreBind(*m.statement, options, *schemas_);
    if (!m.first) return m;
    m.types = m.first->bound.parameter_types;
    m.made = ParameterTemplate::Make(*m.statement, *m.first, *schemas_);
    return m;
  }

  // For many value combinations: the template's binding prints as a fresh
  // one. Returns how many combinations were compared.
  int Differential(const std::string& text, const std::vector<Value>& first_values,
                   const std::vector<std::optional<Type>>& declared = {}) {
    Made m = Template(text, first_values, declared);
    EXPECT_TRUE(m.first) << text;
    if (!m.made) return 0;
    std::mt19937 rng(7);
    int compared = 0;
    for (int round = 0; round < 1000 && compared < 200; round++) {
      std::vector<Value> values;
      bool castable = true;
      for (const Type& t : m.types) {
        std::vector<std::string> c = Candidates(t);
        try {
          values.push_back(Value::String(Type::Text(), c[rng() % c.size()]).CastTo(t));
        } catch (const DbError&) {
          castable = false;
        }
      }
      if (!castable) continue;
      BindOptions options;
      options.parameter_types = declared;
      options.parameters = values;
      std::optional<PreBoundStatement> fresh = PreBind(*m.statement, options, *schemas_);
      std::optional<PreBoundStatement> from_template = m.made->Instantiate(values, *schemas_);
      if (!fresh) {
        EXPECT_FALSE(from_template) << text;  // the binder's error comes from binding
        continue;
      }
      if (!from_template) {
        // Only a value that does not fit its INSERT column goes back.
        EXPECT_EQ(fresh->bound.kind, BoundStatementKind::kInsert) << text;
        continue;
      }
      EXPECT_EQ(Printed(*from_template), Printed(*fresh)) << text;
      compared++;
    }
    return compared;
  }

  std::shared_ptr<const Catalog> schemas_;
};

TEST_F(ParameterTemplateTest, BindsAsTheBinderForEveryValue) {
  const Value i1 = Value::Integer(1), i2 = Value::Integer(2);
  struct Case {
    const char* text;
    std::vector<Value> first;
  };
  const std::vector<Case> cases = {
      {"SELECT name, price FROM item WHERE id = $1", {i1}},
      {"SELECT name FROM item WHERE id = $1 AND flag = $2", {i1, Value::Boolean(true)}},
      {"SELECT id FROM item WHERE w >= $1 AND w < $2 ORDER BY id LIMIT 5",
       {Value::BigInt(1), Value::BigInt(50)}},
      {"SELECT count(*), sum(amount) FROM line WHERE o = $1", {i1}},
      {"SELECT count(DISTINCT qty) FROM line, item WHERE line.o = $1 AND item.id = line.n AND "
       "item.w < $2",
       {i1, Value::BigInt(100)}},
      {"SELECT id FROM item WHERE since BETWEEN $1 AND $2",
       {Value::String(Type::Text(), "2020-01-01").CastTo(Type::Timestamp()),
        Value::String(Type::Text(), "2021-01-01").CastTo(Type::Timestamp())}},
      {"SELECT id FROM item WHERE price > $1 FOR UPDATE",
       {Value::String(Type::Text(), "1.5").CastTo(Type::Decimal(12, 2))}},
      {"SELECT id, at FROM ts WHERE at < $1",
       {Value::String(Type::Text(), "2020-01-02").CastTo(Type::TimestampTz())}},
      {"SELECT id FROM item WHERE name = $1 OR note = $2",
       {Value::String(Type::Varchar(16), "one"), Value::String(Type::Text(), "n3")}},
      {"UPDATE item SET price = price - $1, w = w + 1 WHERE id = $2",
       {Value::String(Type::Text(), "1.25").CastTo(Type::Decimal(12, 2)), i2}},
      {"UPDATE item SET name = $1, since = $2 WHERE id = $3",
       {Value::String(Type::Varchar(16), "x"),
        Value::String(Type::Text(), "2020-01-01").CastTo(Type::Timestamp()), i1}},
      {"UPDATE line SET qty = qty * $1 WHERE o = $2 RETURNING qty", {i2, i1}},
      {"DELETE FROM line WHERE o = $1 AND n = $2", {i1, i2}},
      {"INSERT INTO line (o, n, qty, amount) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
       {Value::Integer(9), i1, i2, Value::String(Type::Text(), "1").CastTo(Type::Decimal(6, 2)),
        Value::Integer(9), i2, i2, Value::String(Type::Text(), "2").CastTo(Type::Decimal(6, 2))}},
      {"INSERT INTO item VALUES ($1, $2, $3, $4, $5, $6, $7)",
       {Value::Integer(9), Value::BigInt(1),
        Value::String(Type::Text(), "1").CastTo(Type::Decimal(12, 2)),
        Value::String(Type::Varchar(16), "n"),
        Value::String(Type::Text(), "2020-01-01").CastTo(Type::Timestamp()), Value::Boolean(false),
        Value::String(Type::Text(), "t")}},
      {"INSERT INTO dflt (id, made, v) VALUES ($1, $2, 5)",
       {i1, Value::String(Type::Text(), "2020-01-01").CastTo(Type::Timestamp())}},
  };
  for (const Case& c : cases) {
    Made m = Template(c.text, c.first);
    EXPECT_TRUE(m.made) << c.text;
    EXPECT_GT(Differential(c.text, c.first), 100) << c.text;
  }
  // Declared types other than the columns': a template, if one is made,
  // still binds as the binder does.
  Differential("SELECT name FROM item WHERE w = $1", {i1}, {Type::Integer()});
  Differential("SELECT name FROM item WHERE id = $1", {Value::BigInt(1)}, {Type::BigInt()});
  Differential("SELECT name FROM item WHERE price = $1", {i1}, {Type::Integer()});
  Differential("UPDATE item SET w = $1 WHERE id = $2", {i1, i1}, {Type::Integer(), Type::BigInt()});
  Differential("SELECT id FROM item WHERE since > $1",
               {Value::String(Type::Text(), "2020-01-01").CastTo(Type::Date())}, {Type::Date()});
}

TEST_F(ParameterTemplateTest, NoTemplateWhereAValueDecidesTheBinding) {
  const Value i1 = Value::Integer(1);
  const Value text = Value::String(Type::Text(), "o%");
  struct Case {
    const char* text;
    std::vector<Value> first;
  };
  const std::vector<Case> cases = {
      {"SELECT now(), name FROM item WHERE id = $1", {i1}},              // the clock
      {"SELECT name FROM item WHERE name LIKE $1", {text}},              // a compiled pattern
      {"SELECT id FROM item ORDER BY id LIMIT $1", {Value::BigInt(1)}},  // read at bind time
      {"SELECT id FROM item WHERE id IN ($1, $2)", {i1, i1}},            // a list of values
      {"SELECT id FROM item WHERE $1 + $2 = id", {i1, i1}},              // folded
      {"SELECT id FROM item WHERE id = $1 AND name = 'one'", {i1}},      // a string literal
      {"SELECT id FROM item WHERE id = $1::int", {i1}},                  // a cast
      {"SELECT id FROM item WHERE $1 IS NULL OR id = $2", {i1, i1}},
      {"SELECT id, price FROM cheap WHERE id = $1", {i1}},         // a view
      {"SELECT relname FROM pg_class WHERE relnatts = $1", {i1}},  // a system relation
      {"INSERT INTO dflt (id, v) VALUES ($1, $2)", {i1, i1}},      // DEFAULT now()
      {"SELECT nextval('s'), id FROM item WHERE id = $1", {i1}},   // a sequence
      {"UPDATE item SET w = (SELECT max(o) FROM line) WHERE id = $1", {i1}},
      {"SELECT CASE WHEN id = $1 THEN 1 ELSE 0 END FROM item", {i1}},
      {"SELECT id FROM item WHERE id = -$1", {i1}},
      {"SELECT lower(name) FROM item WHERE id = $1", {i1}},
      {"SELECT $1, id FROM item", {i1}},
      {"INSERT INTO line SELECT $1, 1, 1, 1", {i1}},
      {"WITH x AS (SELECT 1) SELECT id FROM item WHERE id = $1", {i1}},
  };
  for (const Case& c : cases) {
    Made m = Template(c.text, c.first);
    EXPECT_FALSE(m.made) << c.text;
  }
}

TEST_F(ParameterTemplateTest, NullsAndBadValuesBindAgain) {
  Made m = Template("INSERT INTO item (id, name) VALUES ($1, $2)",
                    {Value::Integer(8), Value::String(Type::Varchar(16), "ok")});
  ASSERT_TRUE(m.made);
  EXPECT_FALSE(m.made->Instantiate({Value::Integer(8), Value::Null(Type::Varchar(16))}, *schemas_));
  EXPECT_FALSE(m.made->Instantiate(
      {Value::Integer(8), Value::String(Type::Text(), "far too long for sixteen")}, *schemas_));
  EXPECT_TRUE(
      m.made->Instantiate({Value::Integer(8), Value::String(Type::Varchar(16), "b")}, *schemas_));
  EXPECT_FALSE(m.made->Instantiate({Value::Integer(8)}, *schemas_));  // a value short
}

// Through a session: prepared statements executed again and again give the
// general path's answers, from templates, also across DDL, SET TIME ZONE,
// NULLs, failures, blocks and FOR UPDATE.
TEST_F(ParameterTemplateTest, PreparedStatementsAnswerAsBound) {
  auto prepare = [&](const std::string& text) { return session_->Prepare(text); };
  auto exec = [&](const std::shared_ptr<const PreparedStatement>& p, std::vector<Value> v) {
    return Lines(session_->ExecutePrepared(*p, v));
  };
  auto select = prepare("SELECT name, price FROM item WHERE id = $1");
  auto update = prepare("UPDATE item SET price = price + $1 WHERE id = $2");
  auto insert = prepare("INSERT INTO line (o, n, qty, amount) VALUES ($1, $2, $3, $4)");
  auto sum = prepare("SELECT count(*), sum(amount) FROM line WHERE o = $1");
  auto lock = prepare("SELECT id, w FROM item WHERE id = $1 FOR UPDATE");

  const uint64_t before = ParameterTemplateExecutions();
  EXPECT_THAT(exec(select, {Value::Integer(1)}), ElementsAre("one|5.00"));
  EXPECT_THAT(exec(select, {Value::Integer(2)}), ElementsAre("two|15.50"));
  EXPECT_THAT(exec(select, {Value::Integer(5)}), ElementsAre());
  EXPECT_THAT(exec(select, {Value::Null(Type::Integer())}), ElementsAre());
  EXPECT_EQ(ParameterTemplateExecutions() - before, 2u);  // not the first, nor the NULL

  for (int i = 1; i <= 3; i++) {
    Value delta = Value::String(Type::Text(), "0.25").CastTo(Type::Decimal(12, 2));
    session_->ExecutePrepared(*update, {delta, Value::Integer(1)});
  }
  EXPECT_THAT(exec(select, {Value::Integer(1)}), ElementsAre("one|5.75"));

  for (int n = 1; n <= 4; n++) {
    session_->ExecutePrepared(*insert,
                              {Value::Integer(7), Value::Integer(n), Value::Integer(n),
                               Value::String(Type::Text(), "1.10").CastTo(Type::Decimal(6, 2))});
  }
  EXPECT_THAT(exec(sum, {Value::Integer(7)}), ElementsAre("4|4.40"));
  // A key taken: the template's INSERT fails as the binder's does.
  ExpectDbError(
      [&] {
        session_->ExecutePrepared(*insert, {Value::Integer(7), Value::Integer(1), Value::Integer(1),
                                            Value::Null(Type::Decimal(6, 2))});
      },
      "23505",
      "duplicate key value violates unique constraint \"line_pkey\"\nDETAIL:  Key (o, n)=(7, "
      "1) already exists.");

  // DDL: the next execution binds against the new schema.
  Run("ALTER TABLE item ADD COLUMN extra int");
  Run("UPDATE item SET name = 'uno' WHERE id = 1");
  EXPECT_THAT(exec(select, {Value::Integer(1)}), ElementsAre("uno|5.75"));
  Run("DROP TABLE line");
  Run("CREATE TABLE line (o int, n int, qty int, amount decimal(6,2), PRIMARY KEY (o, n))");
  EXPECT_THAT(exec(sum, {Value::Integer(7)}), ElementsAre("0|"));
  session_->ExecutePrepared(*insert,
                            {Value::Integer(7), Value::Integer(1), Value::Integer(1),
                             Value::String(Type::Text(), "2").CastTo(Type::Decimal(6, 2))});
  EXPECT_THAT(exec(sum, {Value::Integer(7)}), ElementsAre("1|2.00"));

  // A timestamp compared with a timestamptz column depends on the session's
  // zone, which changes between executions.
  auto local = session_->Prepare("SELECT id FROM ts WHERE at < $1 ORDER BY id",
                                 {std::optional<Type>(Type::Timestamp())});
  auto moment = [](const char* text) {
    return Value::String(Type::Text(), text).CastTo(Type::Timestamp());
  };
  Run("SET TIME ZONE 'UTC'");
  EXPECT_THAT(exec(local, {moment("2020-01-01 18:00:00")}), ElementsAre("1"));
  EXPECT_THAT(exec(local, {moment("2020-01-03 00:00:00")}), ElementsAre("1", "2"));
  Run("SET TIME ZONE 'Asia/Tokyo'");
  EXPECT_THAT(exec(local, {moment("2020-01-01 18:00:00")}), ElementsAre());
  EXPECT_THAT(exec(local, {moment("2020-01-02 10:00:00")}), ElementsAre("1", "2"));
  EXPECT_THAT(exec(local, {moment("2020-01-02 09:00:00")}), ElementsAre("1"));

  // In a block, and locking: the block commits what the template bound.
  Run("BEGIN");
  EXPECT_THAT(exec(lock, {Value::Integer(2)}), ElementsAre("2|20"));
  EXPECT_THAT(exec(lock, {Value::Integer(3)}), ElementsAre("3|30"));
  session_->ExecutePrepared(
      *update, {Value::String(Type::Text(), "1").CastTo(Type::Decimal(12, 2)), Value::Integer(2)});
  EXPECT_THAT(exec(select, {Value::Integer(2)}), ElementsAre("two|16.50"));
  Run("COMMIT");
  EXPECT_THAT(Query("SELECT price FROM item WHERE id = 2"), ElementsAre("16.50"));
  EXPECT_GT(ParameterTemplateExecutions() - before, 8u);
}

}  // namespace
}  // namespace forktail::testing
