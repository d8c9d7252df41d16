// The SQL door: everything the SQL front end offers other modules (server,
// tools, tests). SQL text -> sql::Parse (AST, olap/parser/) -> binder / optimizer
// (logical plan, olap/plan/) -> planner / executor -> rows; olap/session/'s
// SqlSession ties them to a Database. Each owner appends its headers here.
#pragma once

#include "olap/parser/ast.h"
#include "olap/plan/binder/binder.h"
#include "olap/plan/catalog/system_catalog.h"
#include "olap/plan/optimizer/optimizer.h"
#include "olap/plan/planner/executor.h"
#include "olap/plan/planner/explain.h"
#include "olap/plan/planner/planner.h"
#include "olap/session/format/copy_reader.h"
#include "olap/session/sql_session.h"
