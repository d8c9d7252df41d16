// Forktail's embedded C++ API: include this one header.
#pragma once

#include "forktail/database.h"
#include "forktail/procedure.h"
#include "forktail/transaction.h"
