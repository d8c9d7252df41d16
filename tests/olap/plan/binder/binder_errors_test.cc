// The binder's errors: SQLSTATE, message and position as PostgreSQL 15
// reports them for the same statement over the same schema (checked with
// psql, \set VERBOSITY verbose, on the TPC-H tables of binder_test_catalog.h).
#include <gtest/gtest.h>

#include "tests/olap/plan/binder/binder_test_catalog.h"

namespace forktail {
namespace {

using bindertest::BindSql;
using bindertest::ExpectDbError;

class BinderErrorTest : public ::testing::Test {
 protected:
  static Catalog& Cat() {
    static bindertest::TpchCatalog* c = new bindertest::TpchCatalog(1);
    return c->catalog();
  }
  void Expect(const std::string& sql, const std::string& state, const std::string& message,
              int position) {
    SCOPED_TRACE(sql);
    ExpectDbError([&] { BindSql(sql, Cat()); }, state, message, position);
  }
};

TEST_F(BinderErrorTest, UnknownNames) {
  Expect("select x from nation", "42703", "column \"x\" does not exist", 8);
  Expect("select n.x from nation n", "42703", "column n.x does not exist", 8);
  Expect("select nope.x from nation", "42P01", "missing FROM-clause entry for table \"nope\"", 8);
  Expect("select * from nope", "42P01", "relation \"nope\" does not exist", 15);
  Expect("select x.* from nation", "42P01", "missing FROM-clause entry for table \"x\"", 8);
  Expect("select n_name from nation order by x", "42703", "column \"x\" does not exist", 36);
  // The alias hides the table name.
  Expect("select nation.n_name from nation n", "42P01",
         "missing FROM-clause entry for table \"nation\"", 8);
}

TEST_F(BinderErrorTest, Ambiguity) {
  Expect("select n_name from nation, nation n2", "42702",
         "column reference \"n_name\" is ambiguous", 8);
  Expect("select * from nation, nation", "42712", "table name \"nation\" specified more than once",
         0);
}

TEST_F(BinderErrorTest, Grouping) {
  Expect("select n_name, count(*) from nation", "42803",
         "column \"nation.n_name\" must appear in the GROUP BY clause or be used in an aggregate "
         "function",
         8);
  Expect("select n_name from nation group by n_regionkey", "42803",
         "column \"nation.n_name\" must appear in the GROUP BY clause or be used in an aggregate "
         "function",
         8);
  Expect("select 1 from nation having n_name = 'x'", "42803",
         "column \"nation.n_name\" must appear in the GROUP BY clause or be used in an aggregate "
         "function",
         29);
  Expect("select 1 from nation where count(*) > 1", "42803",
         "aggregate functions are not allowed in WHERE", 28);
  Expect("select 1 from nation group by count(*)", "42803",
         "aggregate functions are not allowed in GROUP BY", 31);
  Expect("select count(sum(n_nationkey)) from nation", "42803",
         "aggregate function calls cannot be nested", 14);
  Expect("select 1 from nation group by 5", "42P10", "GROUP BY position 5 is not in select list",
         31);
  Expect("select 1 from nation order by 5", "42P10", "ORDER BY position 5 is not in select list",
         31);
  Expect("select distinct n_name from nation order by n_nationkey", "42P10",
         "for SELECT DISTINCT, ORDER BY expressions must appear in select list", 45);
}

TEST_F(BinderErrorTest, Functions) {
  Expect("select abs(n_name) from nation", "42883", "function abs(character) does not exist", 8);
  Expect("select foo(1)", "42883", "function foo(integer) does not exist", 8);
  Expect("select sum(n_name) from nation", "42883", "function sum(character) does not exist", 8);
}

TEST_F(BinderErrorTest, Types) {
  Expect("select 1 from nation where n_nationkey", "42804",
         "argument of WHERE must be type boolean, not type integer", 28);
  Expect("select 1 from nation where n_nationkey and true", "42804",
         "argument of AND must be type boolean, not type integer", 28);
  Expect("select 1 from nation join region on 1", "42804",
         "argument of JOIN/ON must be type boolean, not type integer", 37);
  Expect("select 1 from nation where n_nationkey = 'abc'", "22P02",
         "invalid input syntax for type integer: \"abc\"", 42);
  Expect("select 1 from nation where n_nationkey = n_name", "42883",
         "operator does not exist: integer = character", 40);
  Expect("select n_nationkey + n_name from nation", "42883",
         "operator does not exist: integer + character", 20);
  Expect("select 1 from nation limit -1", "2201W", "LIMIT must not be negative", 0);
  Expect("select 1 union select 1, 2", "42601",
         "each UNION query must have the same number of columns", 23);
  // PostgreSQL's MaxAttrSize: a CHAR(2000000000) padded every value to 2 GB
  // (found through fuzz/redo_record, whose WAL records carry such types).
  Expect("select 'x'::varchar(10485761)", "22023", "length for type varchar cannot exceed 10485760",
         13);
  Expect("select 'x'::char(5000000000)", "22023", "length for type char cannot exceed 10485760",
         13);
}

TEST_F(BinderErrorTest, Subqueries) {
  Expect("select 1 from nation where n_name in (select r_name, r_regionkey from region)", "42601",
         "subquery has too many columns", 35);
}

TEST_F(BinderErrorTest, WriteStatements) {
  Expect("insert into nation values (1, 'a', 1, 'c', 5)", "42601",
         "INSERT has more expressions than target columns", 44);
  Expect("insert into nation (n_nationkey) values (date '2020-01-01')", "42804",
         "column \"n_nationkey\" is of type integer but expression is of type date",
         42);  // PostgreSQL: 47, the string of the typed literal
  Expect("update nation set nope = 1", "42703",
         "column \"nope\" of relation \"nation\" does not exist", 19);
  Expect("insert into nope values (1)", "42P01", "relation \"nope\" does not exist", 13);
  Expect("create table t2 (a foo)", "42704", "type \"foo\" does not exist", 20);
  Expect("create table t3 (a int primary key, b int, primary key (b))", "42P16",
         "multiple primary keys for table \"t3\" are not allowed", 44);
  // Foreign keys are checked as PostgreSQL's ATAddForeignKeyConstraint
  // checks them; what the engine does not enforce is refused, never
  // accepted and ignored.
  Expect("create table c (id int primary key, n int references nation (n_name))", "42830",
         "there is no unique constraint matching given keys for referenced table \"nation\"", 0);
  Expect("create table c (id int, n int, foreign key (n, id) references nation)", "42830",
         "number of referencing and referenced columns for foreign key disagree", 0);
  Expect("create table c (id int, n text references nation)", "42804",
         "foreign key constraint \"c_n_fkey\" cannot be implemented\nDETAIL:  Key columns \"n\" "
         "and \"n_nationkey\" are of incompatible types: text and integer.",
         0);
  Expect(
      "create table c (id int, n int, foreign key (n) references nation on delete set null (id))",
      "42P10", "column \"id\" referenced in ON DELETE SET action must be part of foreign key", 0);
  Expect("create table c (id int references c (x))", "42703",
         "column \"x\" referenced in foreign key constraint does not exist", 0);
  Expect("create table c (id int, x int references c)", "42704",
         "there is no primary key for referenced table \"c\"", 0);
  Expect("create table c (id int primary key, n int constraint c_pkey references nation)", "42710",
         "constraint \"c_pkey\" for relation \"c\" already exists", 0);
  Expect("create table c (id int, n int references nosuch)", "42P01",
         "relation \"nosuch\" does not exist", 0);
  Expect(
      "create table c (id int, n int references public.nation, m int references nation "
      "(n_nationkey, n_name))",
      "42830", "there is no unique constraint matching given keys for referenced table \"nation\"",
      0);
  Expect("create table c (id int, n int references nation match partial)", "0A000",
         "MATCH PARTIAL not yet implemented", 49);
  Expect("create table c (id int, n int references nation on update set default (n))", "0A000",
         "a column list with SET DEFAULT is only supported for ON DELETE actions", 49);
  Expect("create table c (id int, n int references nation deferrable)", "0A000",
         "DEFERRABLE foreign keys are not supported: Forktail checks every foreign key when its "
         "statement ends",
         49);
  // CHECK conditions are checked when the table is created.
  Expect("create table c (id int, q int, check (q > (select 1)))", "0A000",
         "cannot use subquery in check constraint", 43);
  Expect("create table c (id int, q int, check (nope > 1))", "42703",
         "column \"nope\" does not exist", 39);
}

TEST_F(BinderErrorTest, Unsupported) {
  auto state = [&](const std::string& sql) {
    try {
      BindSql(sql, Cat());
    } catch (const DbError& e) {
      return std::string(e.sqlstate());
    }
    return std::string("OK");
  };
  EXPECT_EQ(state("create table t1 (a numeric(30,2))"), "0A000");
  EXPECT_EQ(state("create table t1 (a serial)"), "OK");
  EXPECT_EQ(state("select 1::serial"), "0A000");  // a column type only
  EXPECT_EQ(state("create table t1 (a int generated always as (1) stored)"), "0A000");
  EXPECT_EQ(state("with recursive r as (select 1) select * from r"), "OK");
  EXPECT_EQ(state("with recursive r(n) as (select n from r) select * from r"), "42P19");
  EXPECT_EQ(state("with recursive r(n) as (select 1 union all select n + 1 from r) "
                  "search depth first by n set o select * from r"),
            "0A000");
  EXPECT_EQ(state("select soundex(n_name) from nation"), "42883");
}

}  // namespace
}  // namespace forktail
