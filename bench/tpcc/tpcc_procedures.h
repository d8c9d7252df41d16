// The five TPC-C transactions as C++ stored procedures of the embedded API
// (include/forktail/procedure.h), for tpcc_inproc: the same work as the SQL
// of tpcc_transactions.cc (clauses 2.4-2.8), done through Transaction's key
// lookups, ordered-index probes, in-place updates and inserts on the
// transaction thread, so a transaction costs what the engine costs and
// nothing of a protocol or a parser.
//
// The tables are those tpcc_load.cc creates (go-tpc's DDL). Register after
// the load: column and index positions are resolved then, by name.
#pragma once

#include <vector>

#include "forktail/database.h"
#include "tpcc.h"

namespace tpcc {

// Registers "new_order", "payment", "order_status", "delivery" and
// "stock_level". Throws std::runtime_error if a table, column or index of
// the TPC-C schema is missing.
void register_procedures(forktail::Database& db);

// The procedure's name and arguments for a drawn transaction. New-Order's
// unused item (clause 2.4.1.4) makes it abort with SQLSTATE 40000 and the
// spec's message "Item number is not valid"; it counts as a New-Order.
const char* procedure_name(TxnType type);
std::vector<forktail::Value> procedure_args(TxnType type, const TxnInputs& in);

}  // namespace tpcc
