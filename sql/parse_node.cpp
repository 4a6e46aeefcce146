#include "sql/parse_node.hpp"

namespace pgrange::sql {

std::optional<std::string> constant_text(const PgQuery__AConst* c) {
  if (c == nullptr || c->isnull) return std::nullopt;
  switch (c->val_case) {
    case PG_QUERY__A__CONST__VAL_IVAL:
      return std::to_string(c->ival->ival);
    case PG_QUERY__A__CONST__VAL_FVAL:
      return std::string(c->fval->fval);
    case PG_QUERY__A__CONST__VAL_BOOLVAL:
      return std::string(c->boolval->boolval ? "true" : "false");
    case PG_QUERY__A__CONST__VAL_SVAL:
      return std::string(c->sval->sval);
    case PG_QUERY__A__CONST__VAL_BSVAL:
      return std::string(c->bsval->bsval);
    default:
      return std::nullopt;
  }
}

}  // namespace pgrange::sql
