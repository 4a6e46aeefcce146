#include "sql/parse_node.hpp"

#include <pg_query.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>
#include <vector>

namespace pgrange::sql {

Result<ParseTree> parse_tree(std::string_view sql) {
  std::string owned(sql);
  PgQueryProtobufParseResult r = pg_query_parse_protobuf(owned.c_str());
  std::unique_ptr<PgQueryProtobufParseResult, void (*)(PgQueryProtobufParseResult*)> guard(
      new PgQueryProtobufParseResult(r), [](PgQueryProtobufParseResult* p) {
        pg_query_free_protobuf_parse_result(*p);
        delete p;
      });
  if (r.error) {
    std::string msg = r.error->message != nullptr ? r.error->message : "syntax error";
    if (r.error->cursorpos > 0) msg += " at character " + std::to_string(r.error->cursorpos);
    return fail(sqlstate::kSyntaxError, std::move(msg));
  }
  PgQuery__ParseResult* pr = pg_query__parse_result__unpack(
      nullptr, r.parse_tree.len, reinterpret_cast<const uint8_t*>(r.parse_tree.data));
  if (pr == nullptr) return fail(sqlstate::kInternalError, "cannot decode the parse tree");
  return ParseTree(
      pr, [](PgQuery__ParseResult* p) { pg_query__parse_result__free_unpacked(p, nullptr); });
}

Result<std::string> deparse_node(const PgQuery__ParseResult* tree, PgQuery__Node* node) {
  PgQuery__RawStmt raw = PG_QUERY__RAW_STMT__INIT;
  raw.stmt = node;
  PgQuery__RawStmt* raws[] = {&raw};
  PgQuery__ParseResult alone = PG_QUERY__PARSE_RESULT__INIT;
  alone.version = tree->version;
  alone.n_stmts = 1;
  alone.stmts = raws;
  return deparse_tree(&alone);
}

namespace {

/// `x AT TIME ZONE z` (a call of pg_catalog.timezone in SQL syntax) is written back without the
/// parentheses its operands need: `(ts AT TIME ZONE 'UTC')::time` would come back as
/// `ts AT TIME ZONE 'UTC'::time`, `(a + b) AT TIME ZONE z` as `a + b AT TIME ZONE z`, other
/// statements. Written as the call it is, pg_catalog.timezone(z, x), it reads back the same.
void spell_time_zone_calls(ProtobufCMessage* m) {
  if (m->descriptor == &pg_query__func_call__descriptor) {
    auto* fc = reinterpret_cast<PgQuery__FuncCall*>(m);
    if (fc->funcformat == PG_QUERY__COERCION_FORM__COERCE_SQL_SYNTAX && fc->n_funcname == 2 &&
        std::strcmp(func_name(fc), "timezone") == 0) {
      fc->funcformat = PG_QUERY__COERCION_FORM__COERCE_EXPLICIT_CALL;
    }
  }
  for_each_child(m, [](const ProtobufCMessage* child) {
    spell_time_zone_calls(const_cast<ProtobufCMessage*>(child));
  });
}

}  // namespace

Result<std::string> deparse_tree(PgQuery__ParseResult* tree) {
  for (size_t i = 0; i < tree->n_stmts; ++i) {
    if (tree->stmts[i]->stmt != nullptr) spell_time_zone_calls(&tree->stmts[i]->stmt->base);
  }
  // Locations would point into the original text: the deparser must not use them.
  std::vector<std::pair<int32_t, int32_t>> saved;
  for (size_t i = 0; i < tree->n_stmts; ++i) {
    saved.emplace_back(tree->stmts[i]->stmt_location, tree->stmts[i]->stmt_len);
    tree->stmts[i]->stmt_location = 0;
    tree->stmts[i]->stmt_len = 0;
  }
  std::string packed(pg_query__parse_result__get_packed_size(tree), '\0');
  pg_query__parse_result__pack(tree, reinterpret_cast<uint8_t*>(packed.data()));
  for (size_t i = 0; i < tree->n_stmts; ++i) {
    tree->stmts[i]->stmt_location = saved[i].first;
    tree->stmts[i]->stmt_len = saved[i].second;
  }
  PgQueryProtobuf pb{packed.size(), packed.data()};
  PgQueryDeparseResult d = pg_query_deparse_protobuf(pb);
  std::unique_ptr<PgQueryDeparseResult, void (*)(PgQueryDeparseResult*)> guard(
      new PgQueryDeparseResult(d), [](PgQueryDeparseResult* p) {
        pg_query_free_deparse_result(*p);
        delete p;
      });
  if (d.error != nullptr) {
    return fail(sqlstate::kInternalError,
                std::string("cannot write the statement: ") +
                    (d.error->message != nullptr ? d.error->message : "deparse failed"));
  }
  return std::string(d.query);
}

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

const char* string_of(const PgQuery__Node* n) {
  if (n == nullptr || n->node_case != PG_QUERY__NODE__NODE_STRING) return nullptr;
  return n->string->sval;
}

bool is_builtin_aggregate(std::string_view name) {
  // clang-format off
  static constexpr std::string_view kNames[] = {
      "any_value", "array_agg", "avg", "bit_and", "bit_or", "bit_xor", "bool_and", "bool_or",
      "corr", "count", "covar_pop", "covar_samp", "every", "json_agg", "json_object_agg",
      "jsonb_agg", "jsonb_object_agg", "max", "min", "mode", "percentile_cont", "percentile_disc",
      "range_agg", "range_intersect_agg", "regr_avgx", "regr_avgy", "regr_count",
      "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "stddev",
      "stddev_pop", "stddev_samp", "string_agg", "sum", "var_pop", "var_samp", "variance",
      "xmlagg"};
  // clang-format on
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

const char* func_name(const PgQuery__FuncCall* fc) {
  if (fc->n_funcname == 0) return "";
  const char* s = string_of(fc->funcname[fc->n_funcname - 1]);
  return s == nullptr ? "" : s;
}

bool is_aggregate_call(const PgQuery__FuncCall* fc) {
  if (fc->over != nullptr) return false;
  return fc->agg_star || fc->agg_distinct || fc->agg_within_group || fc->n_agg_order > 0 ||
         fc->agg_filter != nullptr || is_builtin_aggregate(func_name(fc));
}

namespace {

bool same_field(const ProtobufCFieldDescriptor& fd, const char* a, const char* b) {
  switch (fd.type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char* x = *reinterpret_cast<const char* const*>(a);
      const char* y = *reinterpret_cast<const char* const*>(b);
      if (x == nullptr || y == nullptr) return x == y;
      return std::strcmp(x, y) == 0;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
      return same_tree(*reinterpret_cast<const ProtobufCMessage* const*>(a),
                       *reinterpret_cast<const ProtobufCMessage* const*>(b));
    case PROTOBUF_C_TYPE_BYTES: {
      const auto* x = reinterpret_cast<const ProtobufCBinaryData*>(a);
      const auto* y = reinterpret_cast<const ProtobufCBinaryData*>(b);
      return x->len == y->len && (x->len == 0 || std::memcmp(x->data, y->data, x->len) == 0);
    }
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return std::memcmp(a, b, 8) == 0;
    case PROTOBUF_C_TYPE_BOOL:
      return *reinterpret_cast<const protobuf_c_boolean*>(a) ==
             *reinterpret_cast<const protobuf_c_boolean*>(b);
    default:  // 32-bit integers, enums, float
      return std::memcmp(a, b, 4) == 0;
  }
}

size_t field_size(const ProtobufCFieldDescriptor& fd) {
  switch (fd.type) {
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof(void*);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof(protobuf_c_boolean);
    default:
      return 4;
  }
}

}  // namespace

bool same_tree(const ProtobufCMessage* a, const ProtobufCMessage* b) {
  if (a == nullptr || b == nullptr) return a == b;
  if (a->descriptor != b->descriptor) return false;
  const ProtobufCMessageDescriptor* d = a->descriptor;
  const char* pa = reinterpret_cast<const char*>(a);
  const char* pb = reinterpret_cast<const char*>(b);
  for (unsigned i = 0; i < d->n_fields; ++i) {
    const ProtobufCFieldDescriptor& fd = d->fields[i];
    if (std::strcmp(fd.name, "location") == 0) continue;
    if (fd.label == PROTOBUF_C_LABEL_REPEATED) {
      size_t na = *reinterpret_cast<const size_t*>(pa + fd.quantifier_offset);
      size_t nb = *reinterpret_cast<const size_t*>(pb + fd.quantifier_offset);
      if (na != nb) return false;
      const char* xa = *reinterpret_cast<const char* const*>(pa + fd.offset);
      const char* xb = *reinterpret_cast<const char* const*>(pb + fd.offset);
      size_t step = field_size(fd);
      for (size_t j = 0; j < na; ++j) {
        if (!same_field(fd, xa + j * step, xb + j * step)) return false;
      }
      continue;
    }
    if ((fd.flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0) {
      uint32_t ca = *reinterpret_cast<const uint32_t*>(pa + fd.quantifier_offset);
      uint32_t cb = *reinterpret_cast<const uint32_t*>(pb + fd.quantifier_offset);
      if (ca != cb) return false;
      if (ca != fd.id) continue;
    }
    if (!same_field(fd, pa + fd.offset, pb + fd.offset)) return false;
  }
  return true;
}

}  // namespace pgrange::sql
