// The SQL door: everything the SQL front end offers other modules (server,
// tools, tests). SQL text -> sql::Parse (AST, olap/sql/) -> binder / optimizer
// (logical plan, olap/plan/) -> planner / executor -> rows; olap/engine/'s
// SqlSession ties them to a Database. Each owner appends its headers here.
#pragma once

#include "olap/engine/copy_reader.h"
#include "olap/engine/sql_session.h"
#include "olap/plan/binder.h"
#include "olap/plan/executor.h"
#include "olap/plan/explain.h"
#include "olap/plan/optimizer.h"
#include "olap/plan/planner.h"
#include "olap/plan/system_catalog.h"
#include "olap/sql/ast.h"
