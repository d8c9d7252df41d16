// Errors that end a statement or a transaction carry a PostgreSQL SQLSTATE, so
// that the wire protocol can report them unchanged. Invariant violations are
// assertions, not DbErrors; I/O layers return Status (status.h).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace forktail {

// SQLSTATE codes used by Forktail (PostgreSQL Appendix A).
namespace sqlstate {
inline constexpr const char* kFeatureNotSupported = "0A000";
inline constexpr const char* kStringDataRightTruncation = "22001";
inline constexpr const char* kNumericValueOutOfRange = "22003";
inline constexpr const char* kNullValueNotAllowed = "22004";
inline constexpr const char* kInvalidDatetimeFormat = "22007";
inline constexpr const char* kDatetimeFieldOverflow = "22008";
inline constexpr const char* kInvalidTimeZoneDisplacement = "22009";
inline constexpr const char* kDivisionByZero = "22012";
inline constexpr const char* kInvalidParameterValue = "22023";
inline constexpr const char* kCharacterNotInRepertoire = "22021";
inline constexpr const char* kInvalidTextRepresentation = "22P02";
inline constexpr const char* kNotNullViolation = "23502";
inline constexpr const char* kUniqueViolation = "23505";
inline constexpr const char* kForeignKeyViolation = "23503";
inline constexpr const char* kCheckViolation = "23514";
inline constexpr const char* kInvalidTransactionState = "25000";
inline constexpr const char* kReadOnlySqlTransaction = "25006";
inline constexpr const char* kTransactionRollback = "40000";
inline constexpr const char* kSerializationFailure = "40001";
inline constexpr const char* kDeadlockDetected = "40P01";
inline constexpr const char* kLockNotAvailable = "55P03";
inline constexpr const char* kSyntaxError = "42601";
inline constexpr const char* kUndefinedColumn = "42703";
inline constexpr const char* kUndefinedTable = "42P01";
inline constexpr const char* kDuplicateTable = "42P07";
inline constexpr const char* kDuplicateColumn = "42701";
inline constexpr const char* kInvalidTableDefinition = "42P16";
inline constexpr const char* kDatatypeMismatch = "42804";
inline constexpr const char* kInvalidColumnDefinition = "42611";
inline constexpr const char* kProgramLimitExceeded = "54000";
inline constexpr const char* kStatementTooComplex = "54001";
inline constexpr const char* kTooManyColumns = "54011";
inline constexpr const char* kTooManyArguments = "54023";
inline constexpr const char* kOutOfMemory = "53200";
inline constexpr const char* kDiskFull = "53100";
inline constexpr const char* kQueryCanceled = "57014";
inline constexpr const char* kAdminShutdown = "57P01";
inline constexpr const char* kIoError = "58030";
inline constexpr const char* kDataCorrupted = "XX001";
inline constexpr const char* kInternalError = "XX000";
inline constexpr const char* kSuccessfulCompletion = "00000";
inline constexpr const char* kWarning = "01000";
inline constexpr const char* kConnectionException = "08000";
inline constexpr const char* kProtocolViolation = "08P01";
inline constexpr const char* kCardinalityViolation = "21000";
inline constexpr const char* kStringDataLengthMismatch = "22026";
inline constexpr const char* kInvalidEscapeSequence = "22025";
inline constexpr const char* kBadCopyFileFormat = "22P04";
inline constexpr const char* kActiveSqlTransaction = "25001";
inline constexpr const char* kNoActiveSqlTransaction = "25P01";
inline constexpr const char* kInFailedSqlTransaction = "25P02";
inline constexpr const char* kInvalidAuthorizationSpecification = "28000";
inline constexpr const char* kInvalidPassword = "28P01";
inline constexpr const char* kInvalidCursorName = "34000";
inline constexpr const char* kInvalidSavepointSpecification = "3B001";
inline constexpr const char* kInvalidSqlStatementName = "26000";
inline constexpr const char* kUndefinedFunction = "42883";
inline constexpr const char* kUndefinedParameter = "42P02";
inline constexpr const char* kUndefinedObject = "42704";
inline constexpr const char* kAmbiguousColumn = "42702";
inline constexpr const char* kAmbiguousFunction = "42725";
inline constexpr const char* kGroupingError = "42803";
inline constexpr const char* kWrongObjectType = "42809";
inline constexpr const char* kInvalidColumnReference = "42P10";
inline constexpr const char* kDuplicateAlias = "42712";
inline constexpr const char* kDuplicateObject = "42710";
inline constexpr const char* kInvalidForeignKey = "42830";
inline constexpr const char* kDependentObjectsStillExist = "2BP01";
inline constexpr const char* kIndeterminateDatatype = "42P18";
inline constexpr const char* kUndefinedDatabase = "3D000";
inline constexpr const char* kInsufficientPrivilege = "42501";
inline constexpr const char* kTooManyConnections = "53300";
inline constexpr const char* kCannotConnectNow = "57P03";
}  // namespace sqlstate

// A user-visible error: SQLSTATE plus a message in PostgreSQL's wording style
// (lower case, no trailing period).
class DbError : public std::runtime_error {
 public:
  DbError(const char* sqlstate, std::string message)
      : std::runtime_error(std::move(message)), sqlstate_(sqlstate) {}
  // `position`: 1-based character offset into the statement text that the
  // error points at, as PostgreSQL's ErrorResponse 'P' field (0 = none).
  DbError(const char* sqlstate, std::string message, int position)
      : std::runtime_error(std::move(message)), sqlstate_(sqlstate), position_(position) {}

  const char* sqlstate() const { return sqlstate_; }
  int position() const { return position_; }
  // PostgreSQL's HINT (ErrorResponse 'H'): advice on the error; empty: none.
  // `throw DbError(...).WithHint("...")`.
  const std::string& hint() const { return hint_; }
  DbError& WithHint(std::string hint) {
    hint_ = std::move(hint);
    return *this;
  }
  // The object an integrity error is about, as PostgreSQL's ErrorResponse
  // names it (schema 's', table 't', column 'c', constraint 'n'; drivers
  // read them: psycopg's diag.constraint_name): a table of the public
  // schema and its constraint or column. Empty: not sent.
  const std::string& table() const { return table_; }
  const std::string& column() const { return column_; }
  const std::string& constraint() const { return constraint_; }
  DbError& WithObject(std::string table, std::string constraint, std::string column = {}) {
    table_ = std::move(table);
    constraint_ = std::move(constraint);
    column_ = std::move(column);
    return *this;
  }

 private:
  const char* sqlstate_;
  int position_ = 0;
  std::string hint_;
  std::string table_, column_, constraint_;
};

}  // namespace forktail
