// txn — the public door of the transaction module: the transaction thread
// (TxnEngine), the Transaction context stored procedures use, typed
// procedures, and the embedded Database API (include/forktail/).
// See docs/transactions.md for the model and its guarantees.
#pragma once

#include "forktail/database.h"
#include "forktail/procedure.h"
#include "forktail/transaction.h"
#include "txn/txn_engine.h"
