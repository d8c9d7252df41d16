// PostgreSQL 15's sequence rules (commands/sequence.c: init_params,
// nextval_internal, do_setval), with its messages.
#include "storage/table/sequence.h"

#include <fmt/format.h>

#include "storage/error.h"

namespace forktail {

int64_t SequenceTypeMin(TypeId type) {
  return type == TypeId::kSmallInt ? INT16_MIN : type == TypeId::kInteger ? INT32_MIN : INT64_MIN;
}

int64_t SequenceTypeMax(TypeId type) {
  return type == TypeId::kSmallInt ? INT16_MAX : type == TypeId::kInteger ? INT32_MAX : INT64_MAX;
}

const char* SequenceTypeName(TypeId type) {
  return type == TypeId::kSmallInt ? "smallint" : type == TypeId::kInteger ? "integer" : "bigint";
}

std::string QuoteIdent(const std::string& s) {
  bool plain = !s.empty() && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_');
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$')) plain = false;
  }
  if (plain) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string NextvalDefault(const std::string& sequence_name) {
  std::string literal;
  for (char c : QuoteIdent(sequence_name)) {
    if (c == '\'') literal += '\'';
    literal += c;
  }
  return "nextval('" + literal + "'::regclass)";
}

namespace {

[[noreturn]] void Invalid(std::string message) {
  throw DbError(sqlstate::kInvalidParameterValue, std::move(message));
}

}  // namespace

void ApplySequenceOptions(const SequenceOptions& o, bool init, bool for_identity,
                          SequenceDef* out_def, SequenceState* out_state) {
  SequenceDef def = *out_def;
  SequenceState state = *out_state;
  bool reset_max = false;
  bool reset_min = false;
  if (o.type) {
    if (*o.type != TypeId::kSmallInt && *o.type != TypeId::kInteger && *o.type != TypeId::kBigInt) {
      Invalid(for_identity ? "identity column type must be smallint, integer, or bigint"
                           : "sequence type must be smallint, integer, or bigint");
    }
    // A bound that was the old type's limit follows the new type; one the
    // user chose stays.
    if (!init) {
      reset_max = def.max == SequenceTypeMax(def.type);
      reset_min = def.min == SequenceTypeMin(def.type);
    }
    def.type = *o.type;
  } else if (init) {
    def.type = TypeId::kBigInt;
  }
  if (o.increment) {
    if (*o.increment == 0) Invalid("INCREMENT must not be zero");
    def.increment = *o.increment;
  } else if (init) {
    def.increment = 1;
  }
  if (o.cycle) {
    def.cycle = *o.cycle;
  } else if (init) {
    def.cycle = false;
  }
  if (o.max && *o.max) {
    def.max = **o.max;
  } else if (init || o.max || reset_max) {
    def.max = def.increment > 0 || reset_max ? SequenceTypeMax(def.type) : -1;
  }
  if (def.max < SequenceTypeMin(def.type) || def.max > SequenceTypeMax(def.type)) {
    Invalid(fmt::format("MAXVALUE ({}) is out of range for sequence data type {}", def.max,
                        SequenceTypeName(def.type)));
  }
  if (o.min && *o.min) {
    def.min = **o.min;
  } else if (init || o.min || reset_min) {
    def.min = def.increment < 0 || reset_min ? SequenceTypeMin(def.type) : 1;
  }
  if (def.min < SequenceTypeMin(def.type) || def.min > SequenceTypeMax(def.type)) {
    Invalid(fmt::format("MINVALUE ({}) is out of range for sequence data type {}", def.min,
                        SequenceTypeName(def.type)));
  }
  if (def.min >= def.max) {
    Invalid(fmt::format("MINVALUE ({}) must be less than MAXVALUE ({})", def.min, def.max));
  }
  if (o.start) {
    def.start = *o.start;
  } else if (init) {
    def.start = def.increment > 0 ? def.min : def.max;
  }
  if (def.start < def.min) {
    Invalid(fmt::format("START value ({}) cannot be less than MINVALUE ({})", def.start, def.min));
  }
  if (def.start > def.max) {
    Invalid(
        fmt::format("START value ({}) cannot be greater than MAXVALUE ({})", def.start, def.max));
  }
  if (o.restart) {
    state.last_value = *o.restart ? **o.restart : def.start;
    state.is_called = false;
  } else if (init) {
    state.last_value = def.start;
    state.is_called = false;
  }
  // RESTART, or the current value when MINVALUE / MAXVALUE moved.
  if (state.last_value < def.min) {
    Invalid(fmt::format("RESTART value ({}) cannot be less than MINVALUE ({})", state.last_value,
                        def.min));
  }
  if (state.last_value > def.max) {
    Invalid(fmt::format("RESTART value ({}) cannot be greater than MAXVALUE ({})", state.last_value,
                        def.max));
  }
  if (o.cache) {
    if (*o.cache <= 0) Invalid(fmt::format("CACHE ({}) must be greater than zero", *o.cache));
    def.cache = *o.cache;
  } else if (init) {
    def.cache = 1;
  }
  *out_def = std::move(def);
  *out_state = state;
}

int64_t NextSequenceValue(const SequenceDef& def, SequenceState* state) {
  if (!state->is_called) {
    // The value RESTART or setval(.., false) put there, unchecked as in
    // PostgreSQL (it was checked when it was set).
    state->is_called = true;
    return state->last_value;
  }
  const int64_t last = state->last_value;
  const int64_t inc = def.increment;
  int64_t next;
  // The overflow-free tests of nextval_internal.
  if (inc > 0) {
    if ((def.max >= 0 && last > def.max - inc) || (def.max < 0 && last + inc > def.max)) {
      if (!def.cycle) {
        throw DbError("2200H", fmt::format("nextval: reached maximum value of sequence \"{}\" ({})",
                                           def.name, def.max));
      }
      next = def.min;
    } else {
      next = last + inc;
    }
  } else {
    if ((def.min < 0 && last < def.min - inc) || (def.min >= 0 && last + inc < def.min)) {
      if (!def.cycle) {
        throw DbError("2200H", fmt::format("nextval: reached minimum value of sequence \"{}\" ({})",
                                           def.name, def.min));
      }
      next = def.max;
    } else {
      next = last + inc;
    }
  }
  state->last_value = next;
  return next;
}

SequenceState CheckedSequenceValue(const SequenceDef& def, int64_t value, bool is_called) {
  if (value < def.min || value > def.max) {
    throw DbError(sqlstate::kNumericValueOutOfRange,
                  fmt::format("setval: value {} is out of bounds for sequence \"{}\" ({}..{})",
                              value, def.name, def.min, def.max));
  }
  return SequenceState{value, is_called};
}

}  // namespace forktail
