// Utility statements: transaction control, SET / SHOW / RESET, VACUUM /
// ANALYZE, COPY (both the parenthesized option list and the pre-9.0 syntax,
// normalized to one option list), EXPLAIN, DISCARD, DEALLOCATE, CALL.
#include "olap/parser/parser.h"

#include <utility>

#include "storage/error.h"

namespace forktail::sql {
void Parser::ParseTransactionModes(std::string& isolation, int& read_only) {
  bool first = true;
  while (true) {
    if (!first && IsPunct(',') &&
        (IsKw("isolation", 1) || IsKw("read", 1) || IsKw("deferrable", 1) || IsKw("not", 1))) {
      ++pos_;
    }
    first = false;
    if (AcceptKw("isolation")) {
      ExpectKw("level");
      if (AcceptKw("serializable")) {
        isolation = "serializable";
      } else if (AcceptKw("repeatable")) {
        ExpectKw("read");
        isolation = "repeatable read";
      } else if (AcceptKw("read")) {
        if (AcceptKw("committed")) {
          isolation = "read committed";
        } else {
          ExpectKw("uncommitted");
          isolation = "read uncommitted";
        }
      } else {
        ErrorAtCurrent();
      }
    } else if (IsKw("read") && (IsKw("only", 1) || IsKw("write", 1))) {
      ++pos_;
      read_only = Advance().text == "only" ? 1 : 0;
    } else if (AcceptKw("deferrable")) {
    } else if (IsKw("not") && IsKw("deferrable", 1)) {
      pos_ += 2;
    } else {
      return;
    }
  }
}

StatementPtr Parser::ParseTransaction() {
  auto txn = std::make_unique<TransactionStmt>();
  const std::string& w = Advance().text;
  if (w == "begin" || w == "start") {
    txn->kind = TransactionKind::kBegin;
    if (w == "start") {
      ExpectKw("transaction");
    } else if (!AcceptKw("work")) {
      AcceptKw("transaction");
    }
    ParseTransactionModes(txn->isolation_level, txn->read_only);
  } else if (w == "savepoint") {
    txn->kind = TransactionKind::kSavepoint;
    txn->savepoint = ParseColId();
  } else if (w == "release") {
    txn->kind = TransactionKind::kRelease;
    AcceptKw("savepoint");
    txn->savepoint = ParseColId();
  } else {
    txn->kind =
        (w == "commit" || w == "end") ? TransactionKind::kCommit : TransactionKind::kRollback;
    if (!AcceptKw("work")) AcceptKw("transaction");
    if (w == "rollback" && AcceptKw("to")) {
      txn->kind = TransactionKind::kRollbackTo;
      AcceptKw("savepoint");
      txn->savepoint = ParseColId();
    } else if (w != "end" && AcceptKw("and")) {
      txn->chain = !AcceptKw("no");
      ExpectKw("chain");
    }
  }
  StatementPtr stmt = MakeStatement(StatementKind::kTransaction);
  stmt->transaction = std::move(txn);
  return stmt;
}

StatementPtr Parser::ParseSet() {
  ExpectKw("set");
  auto set = std::make_unique<SetStmt>();
  auto is_scope = [&](const char* kw) { return IsKw(kw) && !IsOp("=", 1) && !IsKw("to", 1); };
  if (is_scope("session") && !IsKw("characteristics", 1)) {
    ++pos_;
  } else if (is_scope("local")) {
    ++pos_;
    set->local = true;
  }
  if (IsKw("session") && IsKw("characteristics", 1)) {
    pos_ += 2;
    ExpectKw("as");
    ExpectKw("transaction");
    set->name = "default_transaction_isolation";
    std::string isolation;
    ParseTransactionModes(isolation, set->read_only);
    if (!isolation.empty()) set->values.push_back(isolation);
  } else if (IsKw("transaction") && !IsOp("=", 1) && !IsKw("to", 1)) {
    ++pos_;
    set->name = "transaction_isolation";
    std::string isolation;
    ParseTransactionModes(isolation, set->read_only);
    if (!isolation.empty()) set->values.push_back(isolation);
  } else if (IsKw("time") && IsKw("zone", 1)) {
    pos_ += 2;
    set->name = "timezone";
    if (AcceptKw("local") || AcceptKw("default")) {
      set->is_default = true;
    } else {
      set->values.push_back(ParseOptionValue());
    }
  } else if (IsKw("constraints") && !IsOp("=", 1) && !IsKw("to", 1)) {
    ++pos_;
    set->name = "constraints";
    set->constraints = true;
    if (!AcceptKw("all")) {
      do {
        std::string name = ParseColId();
        while (AcceptPunct('.')) name += "." + ParseColLabel();
        set->values.push_back(std::move(name));
      } while (AcceptPunct(','));
    }
    if (AcceptKw("deferred")) {
      set->deferred = true;
    } else {
      ExpectKw("immediate");
    }
  } else if (IsKw("names") && !IsOp("=", 1) && !IsKw("to", 1)) {
    ++pos_;
    set->name = "client_encoding";
    if (AcceptKw("default")) {
      set->is_default = true;
    } else {
      set->values.push_back(ParseOptionValue());
    }
  } else {
    set->name = ParseColId();
    while (AcceptPunct('.')) set->name += "." + ParseColLabel();
    if (!AcceptOp("=")) ExpectKw("to");
    if (AcceptKw("default")) {
      set->is_default = true;
    } else {
      do {
        set->values.push_back(ParseOptionValue());
      } while (AcceptPunct(','));
    }
  }
  StatementPtr stmt = MakeStatement(StatementKind::kSet);
  stmt->set = std::move(set);
  return stmt;
}

StatementPtr Parser::ParseShow() {
  ExpectKw("show");
  auto show = std::make_unique<ShowStmt>();
  if (IsKw("time") && IsKw("zone", 1)) {
    pos_ += 2;
    show->name = "timezone";
  } else if (IsKw("transaction") && IsKw("isolation", 1)) {
    pos_ += 2;
    ExpectKw("level");
    show->name = "transaction_isolation";
  } else if (IsKw("session") && IsKw("authorization", 1)) {
    pos_ += 2;
    show->name = "session_authorization";
  } else if (AcceptKw("all")) {
    show->name = "all";
  } else {
    show->name = ParseColId();
    while (AcceptPunct('.')) show->name += "." + ParseColLabel();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kShow);
  stmt->show = std::move(show);
  return stmt;
}

StatementPtr Parser::ParseReset() {
  ExpectKw("reset");
  auto reset = std::make_unique<ResetStmt>();
  if (IsKw("time") && IsKw("zone", 1)) {
    pos_ += 2;
    reset->name = "timezone";
  } else if (IsKw("session") && IsKw("authorization", 1)) {
    pos_ += 2;
    reset->name = "session_authorization";
  } else if (AcceptKw("all")) {
    reset->name = "all";
  } else {
    reset->name = ParseColId();
    while (AcceptPunct('.')) reset->name += "." + ParseColLabel();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kReset);
  stmt->reset = std::move(reset);
  return stmt;
}

StatementPtr Parser::ParseVacuum() {
  auto vacuum = std::make_unique<VacuumStmt>();
  const std::string& w = Advance().text;
  vacuum->vacuum = w == "vacuum";
  vacuum->analyze = !vacuum->vacuum;
  if (IsPunct('(')) {
    vacuum->options = ParseParenOptions();
    for (const Option& o : vacuum->options) {
      bool off = o.value == "false" || o.value == "off" || o.value == "0";
      if (o.name == "analyze" || o.name == "analyse") vacuum->analyze = !off;
      if (o.name == "full") vacuum->full = !off;
      if (o.name == "verbose") vacuum->verbose = !off;
    }
  } else {
    while (true) {
      if (vacuum->vacuum && AcceptKw("full")) {
        vacuum->full = true;
      } else if (vacuum->vacuum && AcceptKw("freeze")) {
      } else if (AcceptKw("verbose")) {
        vacuum->verbose = true;
      } else if (vacuum->vacuum && (AcceptKw("analyze") || AcceptKw("analyse"))) {
        vacuum->analyze = true;
      } else {
        break;
      }
    }
  }
  if (!AtStatementEnd()) {
    do {
      vacuum->tables.push_back(ParseQualifiedName());
      if (IsPunct('(')) ParseColumnList();
    } while (AcceptPunct(','));
  }
  StatementPtr stmt = MakeStatement(StatementKind::kVacuum);
  stmt->vacuum = std::move(vacuum);
  return stmt;
}

StatementPtr Parser::ParseCopy() {
  ExpectKw("copy");
  auto copy = std::make_unique<CopyStmt>();
  if (AcceptPunct('(')) {
    // PostgreSQL also copies the rows of INSERT / UPDATE / DELETE ... RETURNING.
    if (IsKw("insert") || IsKw("update") || IsKw("delete")) {
      NotSupportedAt(Peek(), "COPY (INSERT / UPDATE / DELETE ... RETURNING) TO");
    }
    copy->query = ParseInnerQuery();
    ExpectPunct(')');
  } else {
    copy->table = ParseQualifiedName();
    if (IsPunct('(')) copy->columns = ParseColumnList();
  }
  // COPY (query) copies only TO.
  if (!copy->query && AcceptKw("from")) {
    copy->from = true;
  } else {
    ExpectKw("to");
    copy->from = false;
  }
  if (AcceptKw("stdin") || AcceptKw("stdout")) {
    copy->std_stream = true;
  } else if (IsKw("program")) {
    NotSupportedAt(Peek(), "COPY ... PROGRAM");
  } else {
    if (Peek().kind != TokenKind::kString) ErrorAtCurrent();
    copy->file = Advance().text;
  }
  bool with = AcceptKw("with");
  if (IsPunct('(')) {
    copy->options = ParseParenOptions();
  } else {
    // Pre-9.0 syntax: BINARY, CSV, HEADER, DELIMITER [AS] 'x', NULL [AS] 'x',
    // QUOTE [AS] 'x', ESCAPE [AS] 'x', FORCE QUOTE cols|*, FORCE NOT NULL cols.
    while (!AtStatementEnd()) {
      Option option;
      option.position = Peek().position;
      auto value_of = [&](const char* name) {
        option.name = name;
        AcceptKw("as");
        if (Peek().kind != TokenKind::kString) ErrorAtCurrent();
        option.value = Advance().text;
        option.has_value = true;
      };
      auto columns_of = [&](const char* name) {
        option.name = name;
        option.has_value = true;
        if (IsOp("*")) {
          option.value = Advance().text;
          return;
        }
        do {
          if (!option.value.empty()) option.value += ',';
          option.value += ParseColId();
        } while (AcceptPunct(','));
      };
      if (AcceptKw("binary")) {
        option = {"format", "binary", true, option.position};
      } else if (AcceptKw("csv")) {
        option = {"format", "csv", true, option.position};
      } else if (AcceptKw("header")) {
        option.name = "header";
      } else if (AcceptKw("freeze")) {
        option.name = "freeze";
      } else if (AcceptKw("oids")) {
        option.name = "oids";
      } else if (AcceptKw("delimiter")) {
        value_of("delimiter");
      } else if (AcceptKw("null")) {
        value_of("null");
      } else if (AcceptKw("quote")) {
        value_of("quote");
      } else if (AcceptKw("escape")) {
        value_of("escape");
      } else if (AcceptKw("encoding")) {
        value_of("encoding");
      } else if (AcceptKw("force")) {
        if (AcceptKw("quote")) {
          columns_of("force_quote");
        } else if (AcceptKw("not")) {
          ExpectKw("null");
          columns_of("force_not_null");
        } else {
          ExpectKw("null");
          columns_of("force_null");
        }
      } else {
        ErrorAtCurrent();
      }
      copy->options.push_back(std::move(option));
    }
    if (with && copy->options.empty()) ErrorAtCurrent();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kCopy);
  stmt->copy = std::move(copy);
  return stmt;
}

StatementPtr Parser::ParseExplain() {
  ExpectKw("explain");
  auto explain = std::make_unique<ExplainStmt>();
  if (IsPunct('(')) {
    explain->options = ParseParenOptions();
    for (const Option& o : explain->options) {
      bool off = o.value == "false" || o.value == "off" || o.value == "0";
      if (o.name == "analyze" || o.name == "analyse") explain->analyze = !off;
      if (o.name == "verbose") explain->verbose = !off;
    }
  } else {
    if (AcceptKw("analyze") || AcceptKw("analyse")) explain->analyze = true;
    if (AcceptKw("verbose")) explain->verbose = true;
  }
  const Token& first = Peek();
  if (!(IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table") || IsPunct('(') ||
        IsKw("insert") || IsKw("update") || IsKw("delete"))) {
    ErrorAt(first);
  }
  explain->statement = ParseStatement();
  explain->statement->position = first.position;
  explain->statement->begin = first.begin;
  explain->statement->end = tokens_[pos_ - 1].end;
  StatementPtr stmt = MakeStatement(StatementKind::kExplain);
  stmt->explain = std::move(explain);
  return stmt;
}

StatementPtr Parser::ParseDiscard() {
  ExpectKw("discard");
  auto discard = std::make_unique<DiscardStmt>();
  if (AcceptKw("all")) {
    discard->what = "all";
  } else if (AcceptKw("plans")) {
    discard->what = "plans";
  } else if (AcceptKw("sequences")) {
    discard->what = "sequences";
  } else if (AcceptKw("temp") || AcceptKw("temporary")) {
    discard->what = "temp";
  } else {
    ErrorAtCurrent();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kDiscard);
  stmt->discard = std::move(discard);
  return stmt;
}

StatementPtr Parser::ParseDeallocate() {
  ExpectKw("deallocate");
  auto deallocate = std::make_unique<DeallocateStmt>();
  // DEALLOCATE PREPARE alone names a statement "prepare", as PostgreSQL reads it.
  const bool named_prepare = Peek(1).kind == TokenKind::kEnd || IsPunct(';', 1);
  if (IsKw("prepare") && !named_prepare) AcceptKw("prepare");
  if (AcceptKw("all")) {
    deallocate->all = true;
  } else {
    deallocate->name = ParseColId();
  }
  StatementPtr stmt = MakeStatement(StatementKind::kDeallocate);
  stmt->deallocate = std::move(deallocate);
  return stmt;
}

StatementPtr Parser::ParsePrepare() {
  ExpectKw("prepare");
  auto prepare = std::make_unique<PrepareStmt>();
  prepare->name = ParseColId();
  if (AcceptPunct('(')) {
    do {
      prepare->types.push_back(ParseTypeName());
    } while (AcceptPunct(','));
    ExpectPunct(')');
  }
  ExpectKw("as");
  // PostgreSQL's PreparableStmt: a query, INSERT, UPDATE or DELETE.
  const Token& first = Peek();
  const bool query =
      IsKw("select") || IsKw("values") || IsKw("with") || IsKw("table") || IsPunct('(');
  if (!query && !IsKw("insert") && !IsKw("update") && !IsKw("delete")) ErrorAt(first);
  const size_t first_index = pos_;
  const int outer_parameters = max_parameter_;
  max_parameter_ = 0;
  StatementPtr statement = ParseStatement();
  statement->position = first.position;
  statement->begin = first.begin;
  statement->end = pos_ > first_index ? tokens_[pos_ - 1].end : first.end;
  statement->max_parameter = max_parameter_;
  max_parameter_ = outer_parameters;
  prepare->statement = std::move(statement);
  StatementPtr stmt = MakeStatement(StatementKind::kPrepare);
  stmt->prepare = std::move(prepare);
  return stmt;
}

StatementPtr Parser::ParseExecute() {
  ExpectKw("execute");
  auto execute = std::make_unique<ExecuteStmt>();
  execute->name = ParseColId();
  if (AcceptPunct('(')) {
    do {
      execute->arguments.push_back(ParseExpr());
    } while (AcceptPunct(','));
    ExpectPunct(')');
  }
  StatementPtr stmt = MakeStatement(StatementKind::kExecute);
  stmt->execute = std::move(execute);
  return stmt;
}

StatementPtr Parser::ParseCall() {
  ExpectKw("call");
  auto call = std::make_unique<CallStmt>();
  const Token& name = Peek();
  call->name = ParseColId();
  if (AcceptPunct('.')) {
    std::string schema = std::exchange(call->name, ParseColId());
    // Procedures live in the one schema there is.
    if (schema != "public") {
      throw DbError("3F000", "schema \"" + schema + "\" does not exist", name.position);
    }
  }
  ExpectPunct('(');
  if (!AcceptPunct(')')) {
    do {
      call->arguments.push_back(ParseExpr());
    } while (AcceptPunct(','));
    ExpectPunct(')');
  }
  StatementPtr stmt = MakeStatement(StatementKind::kCall);
  stmt->call = std::move(call);
  return stmt;
}

}  // namespace forktail::sql
