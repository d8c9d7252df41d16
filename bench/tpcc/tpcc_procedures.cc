#include "tpcc_procedures.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace tpcc {
namespace {

using forktail::ColumnId;
using forktail::IndexBound;
using forktail::IndexRange;
using forktail::Table;
using forktail::Transaction;
using forktail::TupleId;
using forktail::Type;
using forktail::Value;

Value Int(int64_t v) { return Value::Integer(static_cast<int32_t>(v)); }

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Column and index positions of one table, resolved by name at registration.
class Columns {
 public:
  Columns(const forktail::Catalog& catalog, const char* table) : table_(table) {
    const Table* t = catalog.FindTable(table);
    if (t == nullptr) throw std::runtime_error(std::string("tpcc: no table ") + table);
    schema_ = &t->schema();
  }
  ColumnId operator[](const char* name) const {
    std::optional<ColumnId> c = schema_->FindColumn(name);
    if (!c) throw std::runtime_error(std::string("tpcc: no column ") + table_ + "." + name);
    return *c;
  }
  int index(const char* name) const {
    for (size_t i = 0; i < schema_->indexes.size(); i++) {
      if (schema_->indexes[i].name == name) return static_cast<int>(i);
    }
    throw std::runtime_error(std::string("tpcc: no index ") + name);
  }
  const forktail::Type& type(const char* name) const { return schema_->column((*this)[name]).type; }

 private:
  const char* table_;
  const forktail::TableSchema* schema_;
};

// What the procedures need to know of the schema, resolved in the schemas
// published at registration (which it keeps alive: Columns points into
// them). The tables' column and index positions do not change while the
// benchmark runs.
struct Schema {
  explicit Schema(std::shared_ptr<const forktail::Catalog> schemas)
      : Schema(Published(schemas), schemas) {}
  static const forktail::Catalog& Published(const std::shared_ptr<const forktail::Catalog>& c) {
    if (!c) throw std::runtime_error("tpcc: no schemas published yet (load first)");
    return *c;
  }
  Schema(const forktail::Catalog& c, std::shared_ptr<const forktail::Catalog> schemas)
      : catalog(std::move(schemas)),
        w(c, "warehouse"),
        d(c, "district"),
        cu(c, "customer"),
        o(c, "orders"),
        ol(c, "order_line"),
        s(c, "stock"),
        i(c, "item"),
        no(c, "new_order"),
        customer_by_name(cu.index("idx_customer")),
        order_by_customer(o.index("idx_order")),
        c_last_type(cu.type("c_last")),
        w_tax(w["w_tax"]),
        w_ytd(w["w_ytd"]),
        w_name(w["w_name"]),
        d_tax(d["d_tax"]),
        d_ytd(d["d_ytd"]),
        d_name(d["d_name"]),
        d_next_o_id(d["d_next_o_id"]),
        c_id(cu["c_id"]),
        c_discount(cu["c_discount"]),
        c_credit(cu["c_credit"]),
        c_balance(cu["c_balance"]),
        c_ytd_payment(cu["c_ytd_payment"]),
        c_payment_cnt(cu["c_payment_cnt"]),
        c_delivery_cnt(cu["c_delivery_cnt"]),
        c_data(cu["c_data"]),
        o_id(o["o_id"]),
        o_c_id(o["o_c_id"]),
        o_carrier_id(o["o_carrier_id"]),
        o_entry_d(o["o_entry_d"]),
        ol_i_id(ol["ol_i_id"]),
        ol_amount(ol["ol_amount"]),
        ol_delivery_d(ol["ol_delivery_d"]),
        ol_quantity(ol["ol_quantity"]),
        ol_o_id(ol["ol_o_id"]),
        s_quantity(s["s_quantity"]),
        s_dist_01(s["s_dist_01"]),
        s_data(s["s_data"]),
        s_ytd(s["s_ytd"]),
        s_order_cnt(s["s_order_cnt"]),
        s_remote_cnt(s["s_remote_cnt"]),
        i_price(i["i_price"]),
        i_name(i["i_name"]),
        i_data(i["i_data"]),
        no_o_id(no["no_o_id"]) {
    // New-Order reads s_dist_<district> as s_dist_01 + district - 1.
    if (s["s_dist_10"].value() != s_dist_01.value() + 9) {
      throw std::runtime_error("tpcc: stock's s_dist_01 .. s_dist_10 are not consecutive");
    }
  }

  std::shared_ptr<const forktail::Catalog> catalog;
  Columns w, d, cu, o, ol, s, i, no;
  int customer_by_name, order_by_customer;
  forktail::Type c_last_type;
  ColumnId w_tax, w_ytd, w_name;
  ColumnId d_tax, d_ytd, d_name, d_next_o_id;
  ColumnId c_id, c_discount, c_credit, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt,
      c_data;
  ColumnId o_id, o_c_id, o_carrier_id, o_entry_d;
  ColumnId ol_i_id, ol_amount, ol_delivery_d, ol_quantity, ol_o_id;
  ColumnId s_quantity, s_dist_01, s_data, s_ytd, s_order_cnt, s_remote_cnt;
  ColumnId i_price, i_name, i_data;
  ColumnId no_o_id;
};

// A column of a row the procedure found by key (so it is live).
Value Column(const Table& t, TupleId tid, ColumnId c) { return *t.ReadColumn(tid, c); }

TupleId FindOrFail(Transaction& txn, const char* table, const Transaction::Key& key) {
  std::optional<TupleId> tid = txn.Find(table, key);
  if (!tid) throw forktail::DbError("P0002", std::string("tpcc: missing row in ") + table);
  return *tid;
}

// The live rows of an index range, in key order.
std::vector<TupleId> Probe(const Table& t, const IndexRange& range) {
  return *t.ProbeIndex(range, SIZE_MAX);
}

// Decimal column plus an unscaled delta, as a value of that column's type.
Value AddDecimal(const Value& v, int64_t delta) {
  return Value::Decimal(v.GetInt() + delta, v.type().precision, v.type().scale);
}

// Clause 2.5.2.2: the customer at position ceil(n / 2) of those named
// `last` in district (w, d), in c_first order (the index's order after c_last).
TupleId CustomerByName(Transaction& txn, const Schema& s, int64_t w, int64_t d,
                       const std::string& last) {
  IndexRange range;
  range.index = s.customer_by_name;
  range.equal = {Int(w), Int(d), Value::String(s.c_last_type, last)};
  std::vector<TupleId> tids = Probe(txn.GetTable("customer"), range);
  if (tids.empty()) throw forktail::DbError("P0002", "tpcc: no customer named " + last);
  return tids[(tids.size() + 1) / 2 - 1];
}

void NewOrder(Transaction& txn, const Schema& s, const std::vector<Value>& args) {
  int64_t w = args[0].GetInt(), d = args[1].GetInt(), c = args[2].GetInt();
  size_t n = (args.size() - 3) / 3;
  const Table& warehouse = txn.GetTable("warehouse");
  const Table& district = txn.GetTable("district");
  const Table& customer = txn.GetTable("customer");
  const Table& item = txn.GetTable("item");
  const Table& stock = txn.GetTable("stock");

  int64_t w_tax = Column(warehouse, FindOrFail(txn, "warehouse", {Int(w)}), s.w_tax).GetInt();
  TupleId d_tid = FindOrFail(txn, "district", {Int(w), Int(d)});
  int64_t o_id = Column(district, d_tid, s.d_next_o_id).GetInt();
  int64_t d_tax = Column(district, d_tid, s.d_tax).GetInt();
  txn.Update("district", d_tid, Table::ColumnUpdates{{s.d_next_o_id, Int(o_id + 1)}});
  TupleId c_tid = FindOrFail(txn, "customer", {Int(w), Int(d), Int(c)});
  int64_t discount = Column(customer, c_tid, s.c_discount).GetInt();
  (void)Column(customer, c_tid, s.c_credit);

  bool all_local = true;
  for (size_t k = 0; k < n; k++) all_local = all_local && args[3 + 3 * k + 1].GetInt() == w;
  Value entry = Value::Timestamp(now_micros());
  txn.Insert("orders", {Int(o_id), Int(d), Int(w), Int(c), entry, Value::Null(Type::Integer()),
                        Int(static_cast<int64_t>(n)), Int(all_local ? 1 : 0)});
  txn.Insert("new_order", {Int(o_id), Int(d), Int(w)});

  int64_t total = 0;  // cents
  for (size_t k = 0; k < n; k++) {
    int64_t i_id = args[3 + 3 * k].GetInt(), supply_w = args[4 + 3 * k].GetInt();
    int64_t quantity = args[5 + 3 * k].GetInt();
    std::optional<TupleId> i_tid = txn.Find("item", {Int(i_id)});
    if (!i_tid) txn.Abort("Item number is not valid");
    int64_t price = Column(item, *i_tid, s.i_price).GetInt();
    (void)Column(item, *i_tid, s.i_name);
    Value i_data = Column(item, *i_tid, s.i_data);

    TupleId s_tid = FindOrFail(txn, "stock", {Int(supply_w), Int(i_id)});
    int64_t s_quantity = Column(stock, s_tid, s.s_quantity).GetInt();
    Value dist_info =
        Column(stock, s_tid, ColumnId(static_cast<uint16_t>(s.s_dist_01.value() + d - 1)));
    Value s_data = Column(stock, s_tid, s.s_data);
    s_quantity = s_quantity >= quantity + 10 ? s_quantity - quantity : s_quantity - quantity + 91;
    txn.Update("stock", s_tid,
               Table::ColumnUpdates{
                   {s.s_quantity, Int(s_quantity)},
                   {s.s_ytd, Int(Column(stock, s_tid, s.s_ytd).GetInt() + quantity)},
                   {s.s_order_cnt, Int(Column(stock, s_tid, s.s_order_cnt).GetInt() + 1)},
                   {s.s_remote_cnt,
                    Int(Column(stock, s_tid, s.s_remote_cnt).GetInt() + (supply_w == w ? 0 : 1))}});
    // Clause 2.4.2.2: brand-generic, shown to the terminal only.
    bool brand = i_data.GetString().find("ORIGINAL") != std::string_view::npos &&
                 s_data.GetString().find("ORIGINAL") != std::string_view::npos;
    (void)brand;
    int64_t amount = quantity * price;
    total += amount;
    txn.Insert("order_line", {Int(o_id), Int(d), Int(w), Int(static_cast<int64_t>(k + 1)),
                              Int(i_id), Int(supply_w), Value::Null(Type::Timestamp()),
                              Int(quantity), Value::Decimal(amount, 6, 2), std::move(dist_info)});
  }
  // The total the terminal would display (clause 2.4.3.3), in 1e-10 units.
  total *= (10000 - discount) * (10000 + w_tax + d_tax);
  (void)total;
}

void Payment(Transaction& txn, const Schema& s, int64_t w, int64_t d, int64_t c_w, int64_t c_d,
             int64_t c_id, bool by_name, const std::string& c_last, int64_t amount) {
  const Table& warehouse = txn.GetTable("warehouse");
  const Table& district = txn.GetTable("district");
  const Table& customer = txn.GetTable("customer");
  TupleId w_tid = FindOrFail(txn, "warehouse", {Int(w)});
  txn.Update(
      "warehouse", w_tid,
      Table::ColumnUpdates{{s.w_ytd, AddDecimal(Column(warehouse, w_tid, s.w_ytd), amount)}});
  Value w_name = Column(warehouse, w_tid, s.w_name);
  TupleId d_tid = FindOrFail(txn, "district", {Int(w), Int(d)});
  txn.Update("district", d_tid,
             Table::ColumnUpdates{{s.d_ytd, AddDecimal(Column(district, d_tid, s.d_ytd), amount)}});
  Value d_name = Column(district, d_tid, s.d_name);

  TupleId c_tid = by_name ? CustomerByName(txn, s, c_w, c_d, c_last)
                          : FindOrFail(txn, "customer", {Int(c_w), Int(c_d), Int(c_id)});
  c_id = Column(customer, c_tid, s.c_id).GetInt();
  Table::ColumnUpdates updates{
      {s.c_balance, AddDecimal(Column(customer, c_tid, s.c_balance), -amount)},
      {s.c_ytd_payment, AddDecimal(Column(customer, c_tid, s.c_ytd_payment), amount)},
      {s.c_payment_cnt, Int(Column(customer, c_tid, s.c_payment_cnt).GetInt() + 1)}};
  std::string amount_text = std::to_string(amount / 100) + "." + (amount % 100 < 10 ? "0" : "") +
                            std::to_string(amount % 100);
  if (Column(customer, c_tid, s.c_credit).GetString() == "BC") {
    std::string data = std::to_string(c_id) + " " + std::to_string(c_d) + " " +
                       std::to_string(c_w) + " " + std::to_string(d) + " " + std::to_string(w) +
                       " " + amount_text + " | " +
                       std::string(Column(customer, c_tid, s.c_data).GetString());
    data.resize(std::min<size_t>(data.size(), 500));
    updates.push_back({s.c_data, Value::String(Type::Varchar(500), std::move(data))});
  }
  txn.Update("customer", c_tid, updates);
  std::string h_data = std::string(w_name.GetString()) + "    " + std::string(d_name.GetString());
  txn.Insert("history",
             {Int(c_id), Int(c_d), Int(c_w), Int(d), Int(w), Value::Timestamp(now_micros()),
              Value::Decimal(amount, 6, 2), Value::String(Type::Varchar(24), std::move(h_data))});
}

void OrderStatus(Transaction& txn, const Schema& s, int64_t w, int64_t d, int64_t c_id,
                 bool by_name, const std::string& c_last) {
  const Table& customer = txn.GetTable("customer");
  TupleId c_tid = by_name ? CustomerByName(txn, s, w, d, c_last)
                          : FindOrFail(txn, "customer", {Int(w), Int(d), Int(c_id)});
  c_id = Column(customer, c_tid, s.c_id).GetInt();
  (void)Column(customer, c_tid, s.c_balance);

  const Table& orders = txn.GetTable("orders");
  IndexRange last_order;
  last_order.index = s.order_by_customer;
  last_order.equal = {Int(w), Int(d), Int(c_id)};
  last_order.first = 1;
  last_order.descending = true;
  std::vector<TupleId> found = Probe(orders, last_order);
  if (found.empty()) return;
  int64_t o_id = Column(orders, found[0], s.o_id).GetInt();
  (void)Column(orders, found[0], s.o_carrier_id);

  const Table& lines = txn.GetTable("order_line");
  IndexRange order_lines;
  order_lines.index = IndexRange::kPrimaryKeyOrder;
  order_lines.equal = {Int(w), Int(d), Int(o_id)};
  for (TupleId tid : Probe(lines, order_lines)) {
    txn.Emit({Column(lines, tid, s.ol_i_id), Column(lines, tid, s.ol_quantity),
              Column(lines, tid, s.ol_amount), Column(lines, tid, s.ol_delivery_d)});
  }
}

void Delivery(Transaction& txn, const Schema& s, int64_t w, int64_t carrier) {
  const Table& new_orders = txn.GetTable("new_order");
  const Table& orders = txn.GetTable("orders");
  const Table& lines = txn.GetTable("order_line");
  const Table& customer = txn.GetTable("customer");
  Value now = Value::Timestamp(now_micros());
  for (int64_t d = 1; d <= kDistricts; d++) {
    IndexRange oldest;
    oldest.index = IndexRange::kPrimaryKeyOrder;
    oldest.equal = {Int(w), Int(d)};
    oldest.first = 1;
    std::vector<TupleId> found = Probe(new_orders, oldest);
    if (found.empty()) continue;  // clause 2.7.4.2: a skipped district
    int64_t o_id = Column(new_orders, found[0], s.no_o_id).GetInt();
    txn.Delete("new_order", found[0]);
    TupleId o_tid = FindOrFail(txn, "orders", {Int(w), Int(d), Int(o_id)});
    int64_t c_id = Column(orders, o_tid, s.o_c_id).GetInt();
    txn.Update("orders", o_tid, Table::ColumnUpdates{{s.o_carrier_id, Int(carrier)}});
    IndexRange order_lines;
    order_lines.index = IndexRange::kPrimaryKeyOrder;
    order_lines.equal = {Int(w), Int(d), Int(o_id)};
    int64_t sum = 0;
    for (TupleId tid : Probe(lines, order_lines)) {
      sum += Column(lines, tid, s.ol_amount).GetInt();
      txn.Update("order_line", tid, Table::ColumnUpdates{{s.ol_delivery_d, now}});
    }
    TupleId c_tid = FindOrFail(txn, "customer", {Int(w), Int(d), Int(c_id)});
    txn.Update(
        "customer", c_tid,
        Table::ColumnUpdates{
            {s.c_balance, AddDecimal(Column(customer, c_tid, s.c_balance), sum)},
            {s.c_delivery_cnt, Int(Column(customer, c_tid, s.c_delivery_cnt).GetInt() + 1)}});
  }
}

void StockLevel(Transaction& txn, const Schema& s, int64_t w, int64_t d, int64_t threshold) {
  const Table& district = txn.GetTable("district");
  int64_t next =
      Column(district, FindOrFail(txn, "district", {Int(w), Int(d)}), s.d_next_o_id).GetInt();
  const Table& lines = txn.GetTable("order_line");
  const Table& stock = txn.GetTable("stock");
  IndexRange recent;
  recent.index = IndexRange::kPrimaryKeyOrder;
  recent.equal = {Int(w), Int(d)};
  recent.lower = IndexBound{Int(next - 20), true};
  recent.upper = IndexBound{Int(next), false};
  std::unordered_set<int64_t> items;
  for (TupleId tid : Probe(lines, recent)) {
    items.insert(Column(lines, tid, s.ol_i_id).GetInt());
  }
  int64_t low = 0;
  for (int64_t i_id : items) {
    std::optional<TupleId> s_tid = txn.Find("stock", {Int(w), Int(i_id)});
    if (s_tid && Column(stock, *s_tid, s.s_quantity).GetInt() < threshold) low++;
  }
  txn.Emit({Value::BigInt(low)});
}

}  // namespace

void register_procedures(forktail::Database& db) {
  std::shared_ptr<const forktail::Catalog> schemas = db.schemas();
  auto schema = std::make_shared<const Schema>(schemas);
  // What CALL knows of them (a client's `CALL new_order($1, ...)`): bigint
  // arguments, the (item, supply_w, quantity) triples as a list.
  using forktail::ProcedureSignature;
  using forktail::Type;
  ProcedureSignature new_order_signature{
      {Type::BigInt(), Type::BigInt(), Type::BigInt()}, false, {}, Type::BigInt()};
  db.RegisterErased(
      "new_order",
      [schema](Transaction& txn, const std::vector<Value>& args) {
        if (args.size() < 6 || (args.size() - 3) % 3 != 0) {
          throw forktail::DbError(forktail::kUndefinedFunction,
                                  "new_order(w, d, c, item, supply_w, quantity, ...) expects 3 + "
                                  "3n arguments, got " +
                                      std::to_string(args.size()));
        }
        NewOrder(txn, *schema, args);
      },
      std::move(new_order_signature));
  db.RegisterProcedure("payment", [schema](Transaction& txn, int64_t w, int64_t d, int64_t c_w,
                                           int64_t c_d, int64_t c_id, bool by_name,
                                           const std::string& c_last, int64_t amount_cents) {
    Payment(txn, *schema, w, d, c_w, c_d, c_id, by_name, c_last, amount_cents);
  });
  const Columns lines(*schemas, "order_line");
  db.RegisterProcedure("order_status",
                       [schema](Transaction& txn, int64_t w, int64_t d, int64_t c_id, bool by_name,
                                const std::string& c_last) {
                         OrderStatus(txn, *schema, w, d, c_id, by_name, c_last);
                       },
                       {{"ol_i_id", lines.type("ol_i_id")},
                        {"ol_quantity", lines.type("ol_quantity")},
                        {"ol_amount", lines.type("ol_amount")},
                        {"ol_delivery_d", lines.type("ol_delivery_d")}});
  db.RegisterProcedure("delivery", [schema](Transaction& txn, int64_t w, int64_t carrier) {
    Delivery(txn, *schema, w, carrier);
  });
  db.RegisterProcedure("stock_level",
                       [schema](Transaction& txn, int64_t w, int64_t d, int64_t threshold) {
                         StockLevel(txn, *schema, w, d, threshold);
                       },
                       {{"low_stock", Type::BigInt()}});
}

const char* procedure_name(TxnType type) { return kTxnNames[type]; }

std::vector<Value> procedure_args(TxnType type, const TxnInputs& in) {
  switch (type) {
    case kNewOrder: {
      std::vector<Value> args = {Value::BigInt(in.w), Value::BigInt(in.d), Value::BigInt(in.c_id)};
      for (const OrderLine& l : in.lines) {
        args.insert(args.end(),
                    {Value::BigInt(l.item), Value::BigInt(l.supply_w), Value::BigInt(l.quantity)});
      }
      return args;
    }
    case kPayment:
      return {Value::BigInt(in.w),    Value::BigInt(in.d),           Value::BigInt(in.c_w),
              Value::BigInt(in.c_d),  Value::BigInt(in.c_id),        Value::Boolean(in.by_name),
              Value::Text(in.c_last), Value::BigInt(in.amount_cents)};
    case kOrderStatus:
      return {Value::BigInt(in.w), Value::BigInt(in.d), Value::BigInt(in.c_id),
              Value::Boolean(in.by_name), Value::Text(in.c_last)};
    case kDelivery:
      return {Value::BigInt(in.w), Value::BigInt(in.carrier)};
    case kStockLevel:
      return {Value::BigInt(in.w), Value::BigInt(in.d), Value::BigInt(in.threshold)};
    case kTxnTypes:
      break;
  }
  throw std::logic_error("procedure_args: no such transaction type");
}

}  // namespace tpcc
