// The FunctionRegistry API as another module uses it: registering a
// function (fixed result type, bound state, non-strict), overload
// resolution, and calls through SQL.
#include <map>

#include "olap/expression/expression_executor.h"
#include "olap/expression/scalar_function.h"
#include "tests/olap/expression/functions_testing.h"

namespace forktail {
namespace {

using Registry = FunctionsSql;

void RegisterTestFunctions(FunctionRegistry& r) {
  // Strict, fixed result type: never sees NULLs.
  r.Register("test_twice", {TypeId::kBigInt}, Type::BigInt(),
             [](const ScalarArgs& a, Rows rows, Vector* out) {
               const int64_t* x = a[0]->data<int64_t>();
               int64_t* o = out->mutable_data<int64_t>();
               ForEachRow(rows, [&](uint32_t i) { o[i] = 2 * x[i]; });
             });
  // Non-strict: NULL in, 'null' out.
  r.Register(
      "test_show", {TypeId::kText}, Type::Text(),
      [](const ScalarArgs& a, Rows rows, Vector* out) {
        auto* o = out->mutable_data<std::string_view>();
        ForEachRow(rows, [&](uint32_t i) {
          o[i] = a[0]->IsNull(i) ? std::string_view("null") : a[0]->data<std::string_view>()[i];
        });
        out->ShareAuxiliary(*a[0]);
      },
      /*strict=*/false);
  // Bound state: a map captured at bind time; unknown keys are NULL.
  FunctionOverload lookup;
  lookup.params = {TypeId::kInteger};
  lookup.bind = [](const FunctionBindContext& ctx, std::vector<ExprPtr>&) {
    EXPECT_NE(ctx.catalog, nullptr);
    auto names = std::make_shared<const std::map<int32_t, std::string>>(
        std::map<int32_t, std::string>{{5, "five"}, {-7, "minus seven"}});
    return MakeScalarFunction("test_lookup", Type::Text(),
                              [names](const ScalarArgs& a, Rows rows, Vector* out) {
                                const int32_t* x = a[0]->data<int32_t>();
                                auto* o = out->mutable_data<std::string_view>();
                                ForEachRow(rows, [&](uint32_t i) {
                                  auto it = names->find(x[i]);
                                  if (it == names->end()) {
                                    out->SetNull(i, true);
                                  } else {
                                    o[i] = it->second;  // lives as long as the plan
                                  }
                                });
                              });
  };
  r.Register("test_lookup", std::move(lookup));
  // Two overloads equally far from an integer argument: ambiguous.
  r.Register("test_amb", {TypeId::kBigInt}, Type::BigInt(),
             [](const ScalarArgs&, Rows, Vector*) {});
  r.Register("test_amb", {TypeId::kSmallInt, TypeId::kSmallInt}, Type::BigInt(),
             [](const ScalarArgs&, Rows, Vector*) {});
}

TEST_F(Registry, RegisteredFromOutside) {
  static bool once = (RegisterTestFunctions(FunctionRegistry::Global()), true);
  ASSERT_TRUE(once);
  EXPECT_TRUE(FunctionRegistry::Global().Contains("test_twice"));
  EXPECT_EQ(Query("SELECT test_twice(i), test_show(s), test_lookup(i) FROM t ORDER BY id"),
            "10|Hello|five;NULL|null|NULL;-14|w\xc3\xb6rld  |minus seven;");
  EXPECT_EQ(TypeOf("test_twice(1::smallint)"), "bigint");  // promoted
  EXPECT_EQ(Eval("test_twice('21')"), "42");               // unknown takes the parameter type
  EXPECT_EQ(Error("SELECT test_twice(1.5)"), "42883 function test_twice(numeric) does not exist");
  // Same name twice in GROUP BY / select list matches.
  EXPECT_EQ(Query("SELECT test_lookup(i), count(*) FROM t GROUP BY test_lookup(i) ORDER BY 1"),
            "five|1;minus seven|1;NULL|1;");
}

TEST_F(Registry, Resolution) {
  FunctionRegistry r;
  RegisterTestFunctions(r);
  auto res = r.Resolve("test_twice", {Type::Integer()});
  ASSERT_TRUE(res.has_value());
  EXPECT_EQ(res->param_types, std::vector<TypeId>{TypeId::kBigInt});
  EXPECT_FALSE(r.Resolve("test_twice", {Type::Text()}).has_value());
  EXPECT_FALSE(r.Resolve("no_such", {}).has_value());
  EXPECT_TRUE(r.Resolve("test_amb", {Type::Integer()}).has_value());
  try {
    r.Register("test_amb", {TypeId::kDouble}, Type::Double(),
               [](const ScalarArgs&, Rows, Vector*) {});
    r.Register("test_amb", {TypeId::kDecimal}, Type::Double(),
               [](const ScalarArgs&, Rows, Vector*) {});
    r.Resolve("test_amb", {std::nullopt});  // unknown: double preferred over numeric
    r.Register("test_amb2", {TypeId::kInteger}, Type::Double(),
               [](const ScalarArgs&, Rows, Vector*) {});
    r.Register("test_amb2", {TypeId::kBigInt}, Type::Double(),
               [](const ScalarArgs&, Rows, Vector*) {});
    r.Resolve("test_amb2", {std::nullopt});
    FAIL() << "expected 42725";
  } catch (const DbError& e) {
    EXPECT_STREQ(e.sqlstate(), "42725");
    EXPECT_STREQ(e.what(), "function test_amb2(unknown) is not unique");
  }
}

// A kFunction expression straight through the executor: strict NULLs and a
// selection vector.
TEST_F(Registry, ExecutorStrictness) {
  std::vector<ExprPtr> args;
  args.push_back(ColumnRef(0, Type::Integer()));
  ExprPtr call = FunctionRegistry::Global().Call("abs", std::move(args), FunctionBindContext{});
  ASSERT_NE(call, nullptr);
  DataChunk chunk(std::vector<Type>{Type::Integer()});
  chunk.set_size(4);
  int32_t* x = chunk.column(0).mutable_data<int32_t>();
  x[0] = -1;
  x[1] = 0;
  x[2] = -3;
  x[3] = 4;
  chunk.column(0).SetNull(1, true);
  ExpressionExecutor exec(*call);
  uint32_t sel[] = {1, 2};
  const Vector& v = exec.Execute(chunk, Rows{sel, 2});
  EXPECT_TRUE(v.IsNull(1));
  EXPECT_FALSE(v.IsNull(2));
  EXPECT_EQ(v.data<int32_t>()[2], 3);
}

}  // namespace
}  // namespace forktail
