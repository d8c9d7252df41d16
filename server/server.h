// The server module's door: the PostgreSQL v3 wire protocol in front of a
// QueryBackend (the SQL engine's sessions).
#pragma once

#include "server/backend.h"         // IWYU pragma: export
#include "server/connection.h"      // IWYU pragma: export
#include "server/messages.h"        // IWYU pragma: export
#include "server/pg_types.h"        // IWYU pragma: export
#include "server/scram.h"           // IWYU pragma: export
#include "server/server_options.h"  // IWYU pragma: export
#include "server/socket_stream.h"   // IWYU pragma: export
#include "server/sql_backend.h"     // IWYU pragma: export
#include "server/wire_format.h"     // IWYU pragma: export
#include "server/wire_server.h"     // IWYU pragma: export
