// Internal to SqlSession's .cc files: one statement to run.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "olap/engine/copy_reader.h"
#include "olap/engine/sql_session.h"
#include "olap/plan/binder.h"

namespace forktail {

struct SqlSession::Request {
  const sql::Statement* statement = nullptr;
  std::string_view text;  // the string the statement's positions refer to
  std::vector<std::optional<Type>> parameter_types;
  std::vector<Value> parameters;

  BindOptions Bind() const {
    BindOptions options;
    options.parameter_types = parameter_types;
    options.parameters = parameters;
    return options;
  }
};

struct SqlSession::CopyState {
  std::string table;
  std::vector<std::string> columns;
  CopyOptions options;
  std::unique_ptr<CopyLoader> loader;  // outside a block: over the Database
  bool in_block = false;               // inside: created on the transaction thread
};

}  // namespace forktail
