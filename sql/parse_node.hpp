#pragma once

#include <pg_query/pg_query.pb-c.h>
#include <protobuf-c/protobuf-c.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace pgrange::sql {

/// libpg_query's parse tree of a statement text, unpacked (freed with it).
using ParseTree = std::unique_ptr<PgQuery__ParseResult, void (*)(PgQuery__ParseResult*)>;

/// Parses `sql` with PostgreSQL's grammar. A syntax error is an Error with SQLSTATE 42601 and
/// PostgreSQL's message, followed by " at character N" when the position is known.
Result<ParseTree> parse_tree(std::string_view sql);

/// The SQL text of a (possibly modified) parse tree, as libpg_query's deparser writes it; the
/// tree's `x AT TIME ZONE z` become calls pg_catalog.timezone(z, x) first (written back as
/// they are, they lose the parentheses around them).
Result<std::string> deparse_tree(PgQuery__ParseResult* tree);

/// The SQL text of one statement node of `tree` (a query inside a larger statement, say) on
/// its own.
Result<std::string> deparse_node(const PgQuery__ParseResult* tree, PgQuery__Node* node);

/// The text of a non-NULL constant in libpg_query's parse tree as PostgreSQL's grammar gives it:
/// integers from their value, other numbers and strings as written, booleans "true"/"false";
/// nullopt for a NULL or a kind of constant pgrange does not read.
std::optional<std::string> constant_text(const PgQuery__AConst* c);

/// The text of a String node, or nullptr when `n` is something else.
const char* string_of(const PgQuery__Node* n);

/// The names of the built-in aggregate functions (a call with *, DISTINCT, ORDER BY, FILTER or
/// WITHIN GROUP is an aggregate whatever its name).
bool is_builtin_aggregate(std::string_view name);

/// The last component of a function call's name ("count" for pg_catalog.count).
const char* func_name(const PgQuery__FuncCall* fc);

/// A call of an aggregate function (not as a window function).
bool is_aggregate_call(const PgQuery__FuncCall* fc);

/// Two expressions that are the same but for where they were written (every field but the
/// `location`s equal), as PostgreSQL matches a select-list expression with a GROUP BY one.
bool same_tree(const ProtobufCMessage* a, const ProtobufCMessage* b);

/// The C pointer to the sub-message stored at `offset` in `m`.
inline const ProtobufCMessage* message_at(const ProtobufCMessage* m, unsigned offset) {
  const char* base = reinterpret_cast<const char*>(m);
  return *reinterpret_cast<const ProtobufCMessage* const*>(base + offset);
}

/// Calls `f` on every direct sub-message of `m` (a Node is looked through to its one member),
/// except the fields numbered `skip_a`, `skip_b` and `skip_c`.
template <typename F>
void for_each_child(const ProtobufCMessage* m, F&& f, uint32_t skip_a = 0, uint32_t skip_b = 0,
                    uint32_t skip_c = 0) {
  const ProtobufCMessageDescriptor* d = m->descriptor;
  if (d == &pg_query__node__descriptor) {
    const auto* n = reinterpret_cast<const PgQuery__Node*>(m);
    if (n->node_case == PG_QUERY__NODE__NODE__NOT_SET) return;
    const ProtobufCFieldDescriptor* fd =
        protobuf_c_message_descriptor_get_field(d, static_cast<unsigned>(n->node_case));
    if (fd == nullptr) return;
    if (const ProtobufCMessage* child = message_at(m, fd->offset)) f(child);
    return;
  }
  const char* base = reinterpret_cast<const char*>(m);
  for (unsigned i = 0; i < d->n_fields; ++i) {
    const ProtobufCFieldDescriptor& fd = d->fields[i];
    if (fd.type != PROTOBUF_C_TYPE_MESSAGE || fd.id == skip_a || fd.id == skip_b ||
        fd.id == skip_c) {
      continue;
    }
    if (fd.label == PROTOBUF_C_LABEL_REPEATED) {
      size_t count = *reinterpret_cast<const size_t*>(base + fd.quantifier_offset);
      const auto* items =
          *reinterpret_cast<const ProtobufCMessage* const* const*>(base + fd.offset);
      for (size_t j = 0; j < count; ++j) {
        if (items[j] != nullptr) f(items[j]);
      }
      continue;
    }
    if ((fd.flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0 &&
        *reinterpret_cast<const uint32_t*>(base + fd.quantifier_offset) != fd.id) {
      continue;
    }
    if (const ProtobufCMessage* child = message_at(m, fd.offset)) f(child);
  }
}

/// The first function call found under `m` for which `pred` is true (not looking into subqueries).
template <typename P>
const PgQuery__FuncCall* find_call(const ProtobufCMessage* m, const P& pred) {
  if (m == nullptr) return nullptr;
  if (m->descriptor == &pg_query__sub_link__descriptor) return nullptr;
  if (m->descriptor == &pg_query__func_call__descriptor) {
    const auto* fc = reinterpret_cast<const PgQuery__FuncCall*>(m);
    if (pred(fc)) return fc;
  }
  const PgQuery__FuncCall* found = nullptr;
  for_each_child(m, [&](const ProtobufCMessage* child) {
    if (found == nullptr) found = find_call(child, pred);
  });
  return found;
}

}  // namespace pgrange::sql
