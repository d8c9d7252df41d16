// Point templates: a simple-query SELECT by integer primary key, bound once
// and then answered for other key values without the parser or the binder.
//
// Why: pgbench -S (and every ORM's `SELECT ... WHERE id = 42` sent as text)
// sends each lookup as a new query string. Parsing and binding it took a
// quarter of the server's CPU per lookup, as much as reading the row
// (perf, pgbench -S -c 4). The strings differ only in the key's digits, so a
// session keeps, per text with those digits taken out, the PointSelect the
// first one bound, and a later string with the same text gets a copy that
// reads its own key.
//
// When that is exact: the integer literals taken out are exactly those that
// stand as `column = <digits>` in the text (the digits then end the
// comparison: AND, ) or the end follow), there are as many as the key has
// columns, and the bound WHERE is exactly `key column = constant` for each
// key column, each constant equal to one of those literals (all distinct),
// over integer key columns. Then the statement means "the row whose key is
// these literals", whatever their values: the copy reads the row of the new
// literals (each cast to its constant's type; one that does not fit goes the
// general way) and evaluates nothing of the WHERE, which the key lookup
// decides. Every other literal stays in the text the template is found by,
// so the select list is the same. A text with anything the binder folds into
// a constant that must not outlive its statement (now(), CURRENT_TIMESTAMP,
// 'now'::timestamp; any function call or cast) gets none either. Anything
// else is no template.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olap/session/statement/point_statement.h"

namespace forktail {

// A SELECT's text with its `column = <integer>` literals taken out: `key` is
// the text's tokens with those literals as placeholders (the lookup key of
// a template), `literals` their values in text order. nullopt for anything
// that is not one SELECT with at least one such literal.
struct PointQueryText {
  std::string key;
  std::vector<int64_t> literals;
};
std::optional<PointQueryText> PointQueryTextOf(std::string_view sql);

class PointTemplate {
 public:
  // The template of `pre` (bound from the query whose literals are
  // `literals`), or nullptr when it is not exact as above.
  static std::unique_ptr<PointTemplate> Make(const PreBoundStatement& pre, const Catalog& schemas,
                                             const std::vector<int64_t>& literals);

  // The SELECT for `literals` (in text order); nullptr when one does not
  // fit its key column's type.
  std::unique_ptr<PointSelect> Instantiate(const std::vector<int64_t>& literals) const;
  // The schema version it was bound against (PreBoundStatement::Current).
  uint64_t schema_version() const { return schema_version_; }

 private:
  uint64_t schema_version_ = 0;
  std::unique_ptr<PointSelect> prototype_;
  std::vector<size_t> literal_of_key_;  // per key column, the literal it takes
};

// Process-wide count of SELECTs answered from a template (tests check that
// the cache is taken, and that it is not where it must not be).
uint64_t PointTemplateExecutions();
void CountPointTemplateExecution();

}  // namespace forktail
