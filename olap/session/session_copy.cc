// SqlSession: COPY table FROM 'file' | STDIN, through the COPY reader
// (copy_reader.h).
//
// What a failure leaves. Outside a transaction block, with
// SqlFrontendOptions::copy_batch_rows = 0 (the default) the whole input is one
// transaction: a bad line anywhere loads nothing (COPY FROM 'file' reads the
// file inside that transaction; COPY FROM STDIN holds the rows in memory
// until the end of the input). With copy_batch_rows = N > 0, each N rows
// commit on their own and a failure leaves the batches before the bad one
// committed (bounded memory for huge loads). Inside BEGIN ... COMMIT the COPY
// is one statement of the optimistic block (optimistic_block.h): FROM STDIN
// holds the input in memory until CopyDone, then loads it in one step, and
// COMMIT loads it again; a failure fails the block (state E). In the
// implicit block of a multi-statement string the rows join its transaction.
#include <algorithm>
#include <filesystem>

#include "olap/common/data_chunk.h"
#include "olap/execution/operator/physical_chunk_block.h"
#include "olap/expression/expression_executor.h"
#include "olap/parser/ast.h"
#include "olap/plan/binder/sequence_functions.h"
#include "olap/session/block/optimistic_block.h"
#include "olap/session/block/txn_block.h"
#include "olap/session/format/copy_reader.h"
#include "olap/session/session_request.h"
#include "olap/session/sql_session.h"
#include "olap/session/statement/txn_sequences.h"
#include "olap/session/statement/write_executor.h"

namespace forktail {

CopyOptions CopyOptionsOf(const sql::CopyStmt& copy, CopyDirection direction) {
  std::vector<CopyOptionItem> items;
  for (const sql::Option& o : copy.options) {
    items.push_back(
        {o.name, o.has_value ? std::optional<std::string>(o.value) : std::nullopt, o.position});
  }
  return ParseCopyOptions(items, direction);
}

// The file COPY 'name' may read or write under the engine's policy, resolved
// (symbolic links and '..' followed) so that nothing outside the allowed
// directory is reachable. 42501 otherwise, with PostgreSQL's hint.
std::string AllowedServerFile(const SqlFrontendOptions& options, const std::string& name,
                              CopyDirection direction) {
  using Files = SqlFrontendOptions::ServerFiles;
  const bool from = direction == CopyDirection::kFrom;
  const Files policy = from ? options.copy_from_files : options.copy_to_files;
  const std::string flag = from ? "--copy-from-dir" : "--copy-to-dir";
  if (policy == Files::kAnywhere) {
    if (!from && (name.empty() || name[0] != '/')) {
      throw DbError("42602", "relative path not allowed for COPY to file");  // invalid_name
    }
    return name;
  }
  // PostgreSQL gives this hint for both directions.
  auto refuse = [&](const std::string& message) {
    throw DbError(sqlstate::kInsufficientPrivilege, message)
        .WithHint(
            "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for "
            "anyone.");
  };
  if (policy == Files::kNever) {
    refuse(from ? "COPY from a file is disabled on this server (forktail serve --copy-from-dir "
                  "DIR allows the files under DIR)"
                : "COPY to a file is disabled on this server (forktail serve --copy-to-dir DIR "
                  "allows writing the files under DIR)");
  }
  std::error_code ec;
  const std::filesystem::path dir =
      std::filesystem::canonical(from ? options.copy_from_dir : options.copy_to_dir, ec);
  if (ec)
    refuse("COPY " + std::string(from ? "from" : "to") + " a file: the server's " + flag +
           " does not exist");
  const std::filesystem::path path = std::filesystem::weakly_canonical(dir / name, ec);
  const std::string prefix = dir.string() + "/";
  if (ec || path.string().compare(0, prefix.size(), prefix) != 0) {
    refuse(from ? "could not COPY from \"" + name + "\": only files under the server's " + flag +
                      " (" + dir.string() + ") may be read"
                : "could not COPY to \"" + name + "\": only files under the server's " + flag +
                      " (" + dir.string() + ") may be written");
  }
  return path.string();
}

namespace {

Lsn OrZero(wal::Lsn lsn) { return lsn == wal::kInvalidLsn ? 0 : lsn; }

// A COPY as a statement of an optimistic block: loads `input` (all of it)
// into the table in the step's transaction; it runs again at COMMIT.
struct BlockCopy {
  std::string table;
  std::vector<std::string> columns;
  CopyOptions options;
  std::string file;                          // FROM 'file' (read at every run)
  std::shared_ptr<const std::string> input;  // FROM STDIN
  CopyRowDefaults defaults;
  // The session's zone at the COPY (timestamptz input), also at COMMIT.
  datetime::TimeZonePtr time_zone;

  StatementResult operator()(Transaction& txn) const {
    datetime::ScopedTimeZone zone(time_zone);
    CopyLoader loader(txn, table, columns, options, defaults);
    if (input) {
      loader.Feed(*input);
    } else {
      ByteSource source = FileByteSource(file);
      std::string buffer(1 << 16, '\0');
      while (size_t n = source(buffer.data(), buffer.size())) loader.Feed({buffer.data(), n});
    }
    StatementResult result;
    result.command_tag = "COPY " + std::to_string(loader.Finish());
    return result;
  }
};

}  // namespace

CopyRowDefaults SqlSession::CopyDefaults() {
  // Each row's DEFAULTs bound with this session's sequence access in the
  // transaction that inserts it, and evaluated on a row of no columns.
  return [this](Transaction& txn, const TableSchema& schema, const std::vector<uint16_t>& columns) {
    auto sequences =
        std::make_shared<TxnSequences>(txn, engine_.database().frozen_catalog(), sequences_.get());
    BindOptions options;
    options.sequences = sequences.get();
    auto exprs = std::make_shared<std::vector<ExprPtr>>();
    std::vector<Type> types;
    for (uint16_t c : columns) {
      exprs->push_back(BindColumnDefault(schema, c, engine_.database().frozen_catalog(), options));
      types.push_back(schema.columns[c].type);
    }
    return std::function<void(Row&)>([sequences, exprs, columns, types](Row& row) {
      DataChunk one;  // no columns, one row
      one.set_size(1);
      for (size_t i = 0; i < columns.size(); i++) {
        ExpressionExecutor executor(*(*exprs)[i]);
        row[columns[i]] = VectorValue(executor.Execute(one, one.rows()), 0).CastTo(types[i]);
      }
    });
  };
}

StatementResult SqlSession::StartCopy(const Request& request) {
  const sql::Statement& s = *request.statement;
  const sql::CopyStmt& copy = *s.copy;
  std::string file;
  if (!copy.std_stream) {
    file = AllowedServerFile(engine_.options(), copy.file, CopyDirection::kFrom);
  }
  auto state = std::make_unique<CopyState>();
  state->table = TableNameOf(copy.table, s.position);
  state->columns = copy.columns;
  state->options = CopyOptionsOf(copy, CopyDirection::kFrom);

  // The target's columns (and a 42P01 / 42703 before any data is sent), read
  // on the transaction thread.
  std::vector<ResultColumn> columns;
  OnTxnThread([&](Transaction& txn) {
    CopyRowBuilder builder(txn.GetTable(state->table).schema(), state->columns);
    const TableSchema& schema = builder.schema();
    if (state->columns.empty()) {
      for (const ColumnDef& c : schema.columns) columns.push_back({c.name, c.type});
    } else {
      for (const std::string& name : state->columns) {
        columns.push_back({name, schema.column(*schema.FindColumn(name)).type});
      }
    }
  });

  StatementResult result;
  if (copy.std_stream) {
    if (InBlock()) {
      state->in_block = true;
    } else {
      CopyLoadOptions load;
      load.batch_rows = engine_.options().copy_batch_rows;
      load.row_defaults = CopyDefaults();
      state->loader = std::make_unique<CopyLoader>(engine_.database(), state->table, state->columns,
                                                   state->options, load);
    }
    result.binary_rows = state->options.format == CopyFormat::kBinary;  // CopyInResponse's format
    copy_ = std::move(state);
    result.command_tag = "COPY_IN";
    result.columns = std::move(columns);
    return result;
  }

  if (optimistic_) {
    return optimistic_->Run(BlockCopy{state->table,
                                      state->columns,
                                      state->options,
                                      file,
                                      {},
                                      CopyDefaults(),
                                      SessionTimeZone()},
                            /*writes=*/true);
  }
  uint64_t rows = 0;
  if (block_) {
    OnTxnThread([&](Transaction& txn) {
      CopyLoader loader(txn, state->table, state->columns, state->options, CopyDefaults());
      ByteSource source = FileByteSource(file);
      std::string buffer(1 << 16, '\0');
      while (size_t n = source(buffer.data(), buffer.size())) loader.Feed({buffer.data(), n});
      rows = loader.Finish();
    });
  } else {
    CopyLoadOptions load;
    load.batch_rows = engine_.options().copy_batch_rows;
    load.row_defaults = CopyDefaults();
    rows = CopyIntoTable(engine_.database(), state->table, state->columns, state->options,
                         FileByteSource(file), load);
    last_commit_lsn_ = std::max(last_commit_lsn_, OrZero(engine_.database().last_commit_lsn()));
  }
  result.command_tag = "COPY " + std::to_string(rows);
  return result;
}

void SqlSession::CopyIn(std::string_view bytes) {
  if (!copy_) throw DbError(sqlstate::kProtocolViolation, "no COPY FROM STDIN is in progress");
  datetime::ScopedTimeZone zone(SessionTimeZone());
  try {
    if (copy_->in_block && optimistic_) {
      copy_->input.append(bytes);  // loaded at CopyDone
    } else if (copy_->in_block) {
      CopyState* state = copy_.get();
      block_->Run([&](Transaction& txn) {
        if (!state->loader) {
          state->loader = std::make_unique<CopyLoader>(txn, state->table, state->columns,
                                                       state->options, CopyDefaults());
        }
        state->loader->Feed(bytes);
      });
    } else {
      copy_->loader->Feed(bytes);
    }
  } catch (...) {
    if (!copy_->in_block) copy_->loader->Abort();
    copy_.reset();
    OnError();
    throw;
  }
}

StatementResult SqlSession::CopyDone() {
  if (!copy_) throw DbError(sqlstate::kProtocolViolation, "no COPY FROM STDIN is in progress");
  datetime::ScopedTimeZone zone(SessionTimeZone());
  uint64_t rows = 0;
  try {
    if (copy_->in_block && optimistic_) {
      CopyState& state = *copy_;
      auto input = std::make_shared<const std::string>(std::move(state.input));
      StatementResult result = optimistic_->Run(BlockCopy{state.table,
                                                          state.columns,
                                                          state.options,
                                                          {},
                                                          std::move(input),
                                                          CopyDefaults(),
                                                          SessionTimeZone()},
                                                /*writes=*/true);
      copy_.reset();
      return result;
    } else if (copy_->in_block) {
      CopyState* state = copy_.get();
      block_->Run([&](Transaction& txn) {
        if (!state->loader) {
          state->loader = std::make_unique<CopyLoader>(txn, state->table, state->columns,
                                                       state->options, CopyDefaults());
        }
        rows = state->loader->Finish();
      });
    } else {
      rows = copy_->loader->Finish();
      last_commit_lsn_ = std::max(last_commit_lsn_, OrZero(engine_.database().last_commit_lsn()));
    }
  } catch (...) {
    if (!copy_->in_block) copy_->loader->Abort();
    copy_.reset();
    OnError();
    throw;
  }
  copy_.reset();
  StatementResult result;
  result.command_tag = "COPY " + std::to_string(rows);
  return result;
}

void SqlSession::CopyFail(std::string_view message) {
  if (!copy_) throw DbError(sqlstate::kProtocolViolation, "no COPY FROM STDIN is in progress");
  if (!copy_->in_block) copy_->loader->Abort();
  copy_.reset();
  OnError();
  throw DbError(sqlstate::kQueryCanceled, "COPY from stdin failed: " + std::string(message));
}

}  // namespace forktail
