// Expression round trips: each expression is parsed inside `SELECT <expr>`
// and printed fully parenthesized, so the expected strings show the tree
// shape PostgreSQL's precedence gives.
#include <gtest/gtest.h>

#include <string>

#include "olap/parser/parser.h"
#include "storage/error.h"

namespace forktail::sql {
namespace {

const Expr& FirstItem(const std::vector<StatementPtr>& stmts) {
  return *stmts.at(0)->query->select_list.at(0).expr;
}

std::string E(const std::string& expr) {
  std::vector<StatementPtr> stmts = Parse("SELECT " + expr);
  return ToString(FirstItem(stmts));
}

TEST(ParserExpr, Precedence) {
  EXPECT_EQ(E("1 + 2 * 3 - 4 / 5 % 6"), "((1 + (2 * 3)) - ((4 / 5) % 6))");
  EXPECT_EQ(E("2 ^ 3 ^ 2"), "((2 ^ 3) ^ 2)");
  EXPECT_EQ(E("-2 ^ 2"), "(-2 ^ 2)");
  EXPECT_EQ(E("a OR b AND NOT c = d"), "(a OR (b AND (NOT (c = d))))");
  EXPECT_EQ(E("a AND b AND c OR d OR e"), "((a AND b AND c) OR d OR e)");
  EXPECT_EQ(E("a || b || 'x'"), "((a || b) || 'x')");
  EXPECT_EQ(E("a + b || c"), "((a + b) || c)");  // || binds looser than +
  EXPECT_EQ(E("a = b IS NULL"), "((a = b) IS NULL)");
  EXPECT_EQ(E("a < b + 1 AND c >= d"), "((a < (b + 1)) AND (c >= d))");
  EXPECT_EQ(E("NOT a IS NULL"), "(NOT (a IS NULL))");
  EXPECT_EQ(E("a & 1 = 1"), "((a & 1) = 1)");
  EXPECT_EQ(E("-x::int"), "(-CAST(x AS int4))");
  EXPECT_EQ(E("(a + b) * c"), "((a + b) * c)");
}

TEST(ParserExpr, NegativeLiteralsFold) {
  std::vector<StatementPtr> stmts = Parse("SELECT -3124, - -1, -x, +5");
  const auto& items = stmts[0]->query->select_list;
  EXPECT_EQ(items[0].expr->kind, ExprKind::kLiteral);
  EXPECT_EQ(items[0].expr->text, "-3124");
  EXPECT_EQ(items[0].expr->position, 8);
  EXPECT_EQ(ToString(*items[1].expr), "(- -1)");
  EXPECT_EQ(ToString(*items[2].expr), "(-x)");
  EXPECT_EQ(ToString(*items[3].expr), "5");
}

TEST(ParserExpr, Predicates) {
  EXPECT_EQ(E("a IS NOT NULL"), "(a IS NOT NULL)");
  EXPECT_EQ(E("a ISNULL"), "(a IS NULL)");
  EXPECT_EQ(E("a IS NOT TRUE"), "(a IS NOT TRUE)");
  EXPECT_EQ(E("a IS FALSE"), "(a IS FALSE)");
  EXPECT_EQ(E("a IS NOT DISTINCT FROM b + 1"), "(a IS NOT DISTINCT FROM (b + 1))");
  EXPECT_EQ(E("a NOT BETWEEN 1 AND 2 + 3"), "(a NOT BETWEEN 1 AND (2 + 3))");
  EXPECT_EQ(E("a BETWEEN SYMMETRIC 1 AND 2 AND b"), "((a BETWEEN SYMMETRIC 1 AND 2) AND b)");
  EXPECT_EQ(E("a IN (1, 2, 3)"), "(a IN (1, 2, 3))");
  EXPECT_EQ(E("a NOT IN (SELECT b FROM t)"), "(a NOT IN (SELECT b FROM t))");
  EXPECT_EQ(E("(a, b) IN ((1, 2), (3, 4))"), "(ROW(a, b) IN (ROW(1, 2), ROW(3, 4)))");
  EXPECT_EQ(E("a LIKE 'x%' ESCAPE '!'"), "(a LIKE 'x%' ESCAPE '!')");
  EXPECT_EQ(E("a NOT ILIKE 'x'"), "(a NOT ILIKE 'x')");
  EXPECT_EQ(E("a !~~ 'x'"), "(a NOT LIKE 'x')");
  EXPECT_EQ(E("a NOT SIMILAR TO 'x'"), "(a NOT SIMILAR TO 'x')");
  EXPECT_EQ(E("a ~ 'x' AND b !~* 'y'"), "((a ~ 'x') AND (b !~* 'y'))");
  EXPECT_EQ(E("c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default"),
            "(c.relname OPERATOR(pg_catalog.~) '^(t)$')");
  EXPECT_EQ(E("EXISTS (SELECT 1)"), "EXISTS (SELECT 1)");
  EXPECT_EQ(E("NOT EXISTS (SELECT 1 FROM t WHERE t.a = u.a)"),
            "(NOT EXISTS (SELECT 1 FROM t WHERE (t.a = u.a)))");
  EXPECT_EQ(E("a = ANY (SELECT b FROM t)"), "(a = ANY (SELECT b FROM t))");
  EXPECT_EQ(E("a > ALL (SELECT b FROM t)"), "(a > ALL (SELECT b FROM t))");
  EXPECT_EQ(E("a = SOME (SELECT b FROM t)"), "(a = ANY (SELECT b FROM t))");
  EXPECT_EQ(E("oid = any (pol.polroles)"), "(oid = ANY (pol.polroles))");
  EXPECT_EQ(E("'d' = any(stxkind)"), "('d' = ANY (stxkind))");
  EXPECT_EQ(E("a LIKE ANY (ARRAY['x%', 'y%'])"), "(a ~~ ANY (ARRAY['x%', 'y%']))");
  EXPECT_EQ(E("a NOT ILIKE ALL (SELECT p FROM t)"), "(a !~~* ALL (SELECT p FROM t))");
}

TEST(ParserExpr, SubqueriesAndRows) {
  EXPECT_EQ(E("(SELECT max(a) FROM t) + 1"), "((SELECT max(a) FROM t) + 1)");
  EXPECT_EQ(E("((SELECT 1) UNION (SELECT 2))"), "((SELECT 1) UNION (SELECT 2))");
  EXPECT_EQ(E("ROW(1, 'a')"), "ROW(1, 'a')");
  EXPECT_EQ(E("ARRAY[1, 2]"), "ARRAY[1, 2]");
  EXPECT_EQ(E("ARRAY[[1, 2], [3]]"), "ARRAY[ARRAY[1, 2], ARRAY[3]]");
  EXPECT_EQ(E("ARRAY(SELECT a FROM t ORDER BY 1)"), "ARRAY(SELECT a FROM t ORDER BY 1)");
  EXPECT_EQ(E("a[1] + b[1:2][3]"), "(a[1] + b[1:2][3])");
  EXPECT_EQ(E("(f(x)).n"), "(f(x)).n");
  EXPECT_EQ(E("(x).y.z"), "((x).y).z");
}

TEST(ParserExpr, CaseAndCasts) {
  EXPECT_EQ(E("CASE WHEN a > 1 THEN 'x' WHEN b THEN 'y' ELSE NULL END"),
            "CASE WHEN (a > 1) THEN 'x' WHEN b THEN 'y' ELSE NULL END");
  EXPECT_EQ(E("CASE a WHEN 1 THEN 2 END"), "CASE a WHEN 1 THEN 2 END");
  EXPECT_EQ(E("CAST(a AS numeric(15, 2))"), "CAST(a AS numeric(15,2))");
  EXPECT_EQ(E("a::pg_catalog.regtype::pg_catalog.text"),
            "CAST(CAST(a AS pg_catalog.regtype) AS pg_catalog.text)");
  EXPECT_EQ(E("x::pg_catalog.int2[]"), "CAST(x AS pg_catalog.int2[])");
  EXPECT_EQ(E("x::double precision"), "CAST(x AS float8)");
  EXPECT_EQ(E("x::character varying(10)"), "CAST(x AS varchar(10))");
  EXPECT_EQ(E("x::char"), "CAST(x AS bpchar(1))");
  EXPECT_EQ(E("x::int"), "CAST(x AS int4)");
  EXPECT_EQ(E("x::bigint"), "CAST(x AS int8)");
  EXPECT_EQ(E("x::smallint"), "CAST(x AS int2)");
  EXPECT_EQ(E("x::real + x::float(10) + x::float"),
            "((CAST(x AS float4) + CAST(x AS float4)) + CAST(x AS float8))");
  EXPECT_EQ(E("x::boolean"), "CAST(x AS bool)");
  EXPECT_EQ(E("x::decimal(5)"), "CAST(x AS numeric(5))");
  EXPECT_EQ(E("x::timestamp with time zone"), "CAST(x AS timestamptz)");
  EXPECT_EQ(E("x::timestamp without time zone"), "CAST(x AS timestamp)");
  EXPECT_EQ(E("x::time(3)"), "CAST(x AS time(3))");
  EXPECT_EQ(E("x::\"MyType\""), "CAST(x AS MyType)");
}

TEST(ParserExpr, TypedLiterals) {
  EXPECT_EQ(E("DATE '1998-12-01'"), "date '1998-12-01'");
  EXPECT_EQ(E("TIMESTAMP '2024-01-02 03:04:05'"), "timestamp '2024-01-02 03:04:05'");
  EXPECT_EQ(E("INTERVAL '3' MONTH"), "interval '3' month");
  EXPECT_EQ(E("INTERVAL '90' DAY (3)"), "interval '90' day(3)");
  EXPECT_EQ(E("interval '1 year 2 days'"), "interval '1 year 2 days'");
  EXPECT_EQ(E("INTERVAL '1-2' YEAR TO MONTH"), "interval '1-2' year to month");
  EXPECT_EQ(E("date '1998-12-01' - interval '90' day (3)"),
            "(date '1998-12-01' - interval '90' day(3))");
  EXPECT_EQ(E("int4 '1'"), "int4 '1'");
  EXPECT_EQ(E("pg_catalog.date '2020-01-01'"), "pg_catalog.date '2020-01-01'");
  EXPECT_EQ(E("numeric(10, 2) '1.5'"), "numeric(10,2) '1.5'");
  EXPECT_EQ(E("char 'abc'"), "bpchar 'abc'");  // no implicit (1) in a literal

  std::vector<StatementPtr> stmts = Parse("SELECT INTERVAL '90' DAY (3)");
  const Expr& lit = FirstItem(stmts);
  EXPECT_EQ(lit.literal_kind, LiteralKind::kTyped);
  EXPECT_EQ(lit.type.name, "interval");
  EXPECT_EQ(lit.type.interval_fields, "day");
  EXPECT_EQ(lit.type.modifiers, std::vector<int64_t>{3});
  EXPECT_EQ(lit.text, "90");
}

TEST(ParserExpr, SpecialFunctions) {
  EXPECT_EQ(E("EXTRACT(YEAR FROM o_orderdate)"), "EXTRACT(year FROM o_orderdate)");
  EXPECT_EQ(E("extract('epoch' from ts)"), "EXTRACT(epoch FROM ts)");
  EXPECT_EQ(E("SUBSTRING(c_phone FROM 1 FOR 2)"), "substring(c_phone, 1, 2)");
  EXPECT_EQ(E("substring(c_phone, 1, 2)"), "substring(c_phone, 1, 2)");
  EXPECT_EQ(E("substring(x FOR 3)"), "substring(x, 1, 3)");
  EXPECT_EQ(E("POSITION('a' IN s)"), "position('a', s)");
  EXPECT_EQ(E("TRIM(s)"), "btrim(s)");
  EXPECT_EQ(E("TRIM(LEADING 'x' FROM s)"), "ltrim(s, 'x')");
  EXPECT_EQ(E("trim(both '\"' from f(a))"), "btrim(f(a), '\"')");
  EXPECT_EQ(E("TRIM(TRAILING FROM s)"), "rtrim(s)");
  EXPECT_EQ(E("COALESCE(a, b, 0)"), "coalesce(a, b, 0)");
  EXPECT_EQ(E("NULLIF(a, '')"), "nullif(a, '')");
  EXPECT_EQ(E("GREATEST(a, 1) + LEAST(b, 2)"), "(greatest(a, 1) + least(b, 2))");
  EXPECT_EQ(E("CURRENT_TIMESTAMP"), "current_timestamp");
  EXPECT_EQ(E("current_date + 1"), "(current_date + 1)");
  EXPECT_EQ(E("current_schema()"), "current_schema()");
  EXPECT_EQ(E("now()"), "now()");
  EXPECT_EQ(E("ts AT TIME ZONE 'UTC'"), "timezone('UTC', ts)");
}

TEST(ParserExpr, FunctionCalls) {
  EXPECT_EQ(E("count(*)"), "count(*)");
  EXPECT_EQ(E("COUNT(DISTINCT ps_suppkey)"), "count(DISTINCT ps_suppkey)");
  EXPECT_EQ(E("sum(x) FILTER (WHERE y > 0)"), "sum(x) FILTER (WHERE (y > 0))");
  EXPECT_EQ(E("pg_catalog.format_type(a.atttypid, a.atttypmod)"),
            "pg_catalog.format_type(a.atttypid, a.atttypmod)");
  EXPECT_EQ(E("string_agg(attname, ', ' ORDER BY attnum DESC)"),
            "string_agg(attname, ', ' ORDER BY attnum DESC)");
  EXPECT_EQ(E("percentile_cont(0.5) within group (order by x desc)"),
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)");
  EXPECT_EQ(E("mode() WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 0)"),
            "mode() WITHIN GROUP (ORDER BY x) FILTER (WHERE (x > 0))");
  EXPECT_THROW(E("string_agg(a, ',' ORDER BY a) WITHIN GROUP (ORDER BY b)"), forktail::DbError);
  EXPECT_EQ(E("row_number() OVER (PARTITION BY a ORDER BY b)"),
            "row_number() OVER (PARTITION BY a ORDER BY b)");
  EXPECT_EQ(E("sum(x) OVER w"), "sum(x) OVER w");
  EXPECT_EQ(E("sum(x) OVER (w ORDER BY y)"), "sum(x) OVER (w ORDER BY y)");
  EXPECT_EQ(E("left(s, 2)"), "left(s, 2)");
  // Named arguments keep their names (the binder matches or refuses them).
  EXPECT_EQ(E("make_interval(1, days => 3, secs := 1.5)"),
            "make_interval(1, days => 3, secs => 1.5)");

  std::vector<StatementPtr> stmts = Parse("SELECT count(*), pg_catalog.count(DISTINCT x)");
  const Expr& count = *stmts[0]->query->select_list[0].expr;
  EXPECT_EQ(count.kind, ExprKind::kFunction);
  EXPECT_TRUE(count.star);
  EXPECT_TRUE(count.children.empty());
  const Expr& qualified = *stmts[0]->query->select_list[1].expr;
  EXPECT_EQ(qualified.names, (QualifiedName{"pg_catalog", "count"}));
  EXPECT_TRUE(qualified.distinct);
}

TEST(ParserExpr, NamesAndParameters) {
  EXPECT_EQ(E("t.c + s.t.c + \"Mixed\".\"Case\""), "((t.c + s.t.c) + Mixed.Case)");
  EXPECT_EQ(E("t.*"), "t.*");
  std::vector<StatementPtr> stmts = Parse("SELECT $1 + $3, $2");
  EXPECT_EQ(stmts[0]->max_parameter, 3);
  const Expr& sum = FirstItem(stmts);
  EXPECT_EQ(sum.children[0]->kind, ExprKind::kParameter);
  EXPECT_EQ(sum.children[0]->param_index, 1);
}

TEST(ParserExpr, LiteralKinds) {
  std::vector<StatementPtr> stmts =
      Parse("SELECT 1, 1.5, 1e10, 'x', NULL, TRUE, false, B'10', 99999999999999999999");
  const auto& items = stmts[0]->query->select_list;
  const LiteralKind kinds[] = {
      LiteralKind::kInteger, LiteralKind::kNumeric,   LiteralKind::kNumeric,
      LiteralKind::kString,  LiteralKind::kNull,      LiteralKind::kBoolean,
      LiteralKind::kBoolean, LiteralKind::kBitString, LiteralKind::kInteger};
  ASSERT_EQ(items.size(), std::size(kinds));
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].expr->kind, ExprKind::kLiteral) << i;
    EXPECT_EQ(items[i].expr->literal_kind, kinds[i]) << i;
  }
  EXPECT_EQ(items[2].expr->text, "1e10");
  EXPECT_EQ(items[6].expr->text, "false");
}

TEST(ParserExpr, PositionsPointWherePostgresPoints) {
  //                                    1234567890123456789012345678901234
  std::vector<StatementPtr> stmts = Parse("SELECT a + f(b), x IS NULL, é.c");
  const auto& items = stmts[0]->query->select_list;
  const Expr& plus = *items[0].expr;
  EXPECT_EQ(plus.position, 10);  // the operator
  EXPECT_EQ(plus.children[0]->position, 8);
  EXPECT_EQ(plus.children[1]->position, 12);               // function name
  EXPECT_EQ(plus.children[1]->children[0]->position, 14);  // argument
  EXPECT_EQ(items[1].expr->position, 20);                  // IS
  EXPECT_EQ(items[2].expr->position, 29);
  EXPECT_EQ(items[2].expr->names, (QualifiedName{"é", "c"}));
}

}  // namespace
}  // namespace forktail::sql
