#include "sql/modifying_with.hpp"

#include <algorithm>
#include <cctype>

#include "sql/parse_node.hpp"
#include "sql/quoting.hpp"
#include "sql/sql_tokens.hpp"

namespace pgrange::sql {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// A name token as PostgreSQL folds it: a quoted one as written (its doubled quotes single).
std::string folded(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < token.size(); ++i) {
      out += token[i];
      if (token[i] == '"') ++i;
    }
    return out;
  }
  return lower(token);
}

/// The index of the parenthesis that closes the one at `open`, or tokens.size().
size_t closing(const std::vector<SqlToken>& tokens, size_t open) {
  int depth = 0;
  for (size_t k = open; k < tokens.size(); ++k) {
    if (tokens[k].text == "(") ++depth;
    if (tokens[k].text == ")" && --depth == 0) return k;
  }
  return tokens.size();
}

const PgQuery__WithClause* with_clause_of(const PgQuery__Node* stmt) {
  switch (stmt->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
      return stmt->select_stmt->with_clause;
    case PG_QUERY__NODE__NODE_INSERT_STMT:
      return stmt->insert_stmt->with_clause;
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
      return stmt->update_stmt->with_clause;
    case PG_QUERY__NODE__NODE_DELETE_STMT:
      return stmt->delete_stmt->with_clause;
    default:
      return nullptr;
  }
}

}  // namespace

std::vector<std::string> ModifyingWith::bodies() const {
  std::vector<std::string> out;
  for (const Cte& c : ctes) out.push_back(text.substr(c.body, c.body_end - c.body));
  return out;
}

bool ModifyingWith::names_cte(std::string_view sql, size_t i) const {
  const std::string text(sql);  // the tokens point into it
  auto tokens = scan_tokens(text);
  if (!tokens) return true;  // unknown: counted as read
  return std::any_of(tokens->begin(), tokens->end(),
                     [&](const SqlToken& t) { return folded(t.text) == ctes[i].name; });
}

Result<std::string> ModifyingWith::cte_statement(size_t i,
                                                 const std::vector<std::string>& bodies) const {
  // The CTEs before it that it reads, and those they read.
  std::vector<bool> needed(i, false);
  std::vector<size_t> readers{i};
  while (!readers.empty()) {
    size_t r = readers.back();
    readers.pop_back();
    for (size_t j = 0; j < r; ++j) {
      if (!needed[j] && names_cte(bodies[r], j)) {
        needed[j] = true;
        readers.push_back(j);
      }
    }
  }
  std::string prefix;
  for (size_t j = 0; j < i; ++j) {
    if (!needed[j]) continue;
    if (!prefix.empty()) prefix += ", ";
    prefix += text.substr(ctes[j].head, ctes[j].body - ctes[j].head) + bodies[j] + ")";
  }
  const std::string& body = bodies[i];
  if (prefix.empty()) return body;
  std::string with = recursive ? "WITH RECURSIVE " : "WITH ";
  auto tokens = scan_tokens(body);
  if (tokens && !tokens->empty() && lower((*tokens)[0].text) == "with") {
    // Its own WITH: the CTEs it reads go first in it.
    if (recursive || (tokens->size() > 1 && lower((*tokens)[1].text) == "recursive")) {
      return tl::unexpected(not_supported(
          "a data-modifying WITH over several shards whose statement has a WITH RECURSIVE of "
          "its own is not supported"));
    }
    return with + prefix + ", " + body.substr((*tokens)[1].start);
  }
  return with + prefix + " " + body;
}

std::string ModifyingWith::with_bodies(const std::vector<std::string>& bodies) const {
  std::string out;
  size_t at = 0;
  for (size_t i = 0; i < ctes.size(); ++i) {
    out += text.substr(at, ctes[i].body - at);
    out += bodies[i];
    at = ctes[i].body_end;
  }
  out += text.substr(at);
  return out;
}

Result<std::optional<ModifyingWith>> modifying_with(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr) {
    return std::optional<ModifyingWith>();
  }
  const PgQuery__RawStmt* raw = (*tree)->stmts[0];
  const PgQuery__WithClause* with = with_clause_of(raw->stmt);
  if (with == nullptr) return std::optional<ModifyingWith>();
  ModifyingWith m;
  m.text = std::string(sql);
  m.recursive = with->recursive;
  bool any = false;
  auto tokens = scan_tokens(m.text);
  if (!tokens) return std::optional<ModifyingWith>();
  for (size_t i = 0; i < with->n_ctes; ++i) {
    const PgQuery__Node* n = with->ctes[i];
    if (n->node_case != PG_QUERY__NODE__NODE_COMMON_TABLE_EXPR) {
      return std::optional<ModifyingWith>();
    }
    const PgQuery__CommonTableExpr* cte = n->common_table_expr;
    if (cte->search_clause != nullptr || cte->cycle_clause != nullptr) {
      return tl::unexpected(not_supported(
          "SEARCH or CYCLE in a data-modifying WITH over several shards is not supported"));
    }
    ModifyingWith::Cte c;
    c.name = cte->ctename;
    const PgQuery__Node* q = cte->ctequery;
    if (q != nullptr) {
      switch (q->node_case) {
        case PG_QUERY__NODE__NODE_INSERT_STMT:
          c.writes = true;
          c.returning = q->insert_stmt->n_returning_list > 0;
          break;
        case PG_QUERY__NODE__NODE_UPDATE_STMT:
          c.writes = true;
          c.returning = q->update_stmt->n_returning_list > 0;
          break;
        case PG_QUERY__NODE__NODE_DELETE_STMT:
          c.writes = true;
          c.returning = q->delete_stmt->n_returning_list > 0;
          break;
        default:
          break;
      }
    }
    any = any || c.writes;
    // Its text: name [(columns)] AS [[NOT] MATERIALIZED] ( body )
    size_t k = 0;
    while (k < tokens->size() && (*tokens)[k].start < static_cast<size_t>(cte->location)) ++k;
    if (k >= tokens->size() || (*tokens)[k].start != static_cast<size_t>(cte->location)) {
      return std::optional<ModifyingWith>();
    }
    c.head = (*tokens)[k].start;
    ++k;
    if (k < tokens->size() && (*tokens)[k].text == "(") k = closing(*tokens, k) + 1;
    while (k < tokens->size() && (*tokens)[k].text != "(") ++k;  // AS [NOT] MATERIALIZED
    size_t end = k < tokens->size() ? closing(*tokens, k) : tokens->size();
    if (end >= tokens->size()) return std::optional<ModifyingWith>();
    c.body = (*tokens)[k].end;
    c.body_end = (*tokens)[end].start;
    m.ctes.push_back(std::move(c));
  }
  if (!any) return std::optional<ModifyingWith>();
  return std::optional<ModifyingWith>(std::move(m));
}

std::optional<std::string> with_inside_insert(std::string_view sql) {
  auto tree = parse_tree(sql);
  if (!tree || (*tree)->n_stmts != 1 || (*tree)->stmts[0]->stmt == nullptr) return std::nullopt;
  const PgQuery__Node* stmt = (*tree)->stmts[0]->stmt;
  if (stmt->node_case != PG_QUERY__NODE__NODE_INSERT_STMT ||
      stmt->insert_stmt->with_clause == nullptr || stmt->insert_stmt->select_stmt == nullptr) {
    return std::nullopt;
  }
  std::string text(sql);
  auto tokens = scan_tokens(text);
  if (!tokens) return std::nullopt;
  // The INSERT after the WITH's CTEs (outside their parentheses).
  size_t k = 0;
  for (int depth = 0; k < tokens->size(); ++k) {
    std::string_view t = (*tokens)[k].text;
    if (t == "(") ++depth;
    if (t == ")") --depth;
    if (depth == 0 && lower(t) == "insert") break;
  }
  if (k + 2 >= tokens->size() || lower((*tokens)[k + 1].text) != "into") return std::nullopt;
  size_t insert = (*tokens)[k].start;
  // INSERT INTO [schema.]name [AS alias] [(columns)] [OVERRIDING … VALUE]: then its query.
  k += 3;
  while (k + 1 < tokens->size() && (*tokens)[k].text == ".") k += 2;
  if (k + 1 < tokens->size() && lower((*tokens)[k].text) == "as") k += 2;
  if (k < tokens->size() && (*tokens)[k].text == "(") {
    // A column list, or the query itself in parentheses.
    size_t after = closing(*tokens, k);
    std::string first = k + 1 < tokens->size() ? lower((*tokens)[k + 1].text) : "";
    if (first != "select" && first != "values" && first != "with" && first != "table" &&
        first != "(") {
      k = after + 1;
    }
  }
  if (k < tokens->size() && lower((*tokens)[k].text) == "overriding") k += 3;
  if (k >= tokens->size()) return std::nullopt;
  size_t query = (*tokens)[k].start;
  std::string with = text.substr(0, insert);
  while (!with.empty() && std::isspace(static_cast<unsigned char>(with.back()))) with.pop_back();
  return text.substr(insert, query - insert) + with + " " + text.substr(query);
}

std::string rows_query(const std::vector<std::string>& names, const std::vector<std::string>& types,
                       const std::vector<std::vector<std::optional<std::string>>>& rows) {
  auto value = [&](const std::optional<std::string>& v, size_t c) {
    return "CAST(" + (v ? quote_literal(*v) : std::string("NULL")) + " AS " + types[c] + ")";
  };
  std::string out;
  if (rows.empty()) {
    out = "SELECT ";
    for (size_t c = 0; c < names.size(); ++c) {
      out += (c > 0 ? ", " : "") + value(std::nullopt, c) + " AS " + quote_ident(names[c]);
    }
    return out + " WHERE false";
  }
  out = "SELECT * FROM (VALUES ";
  for (size_t r = 0; r < rows.size(); ++r) {
    out += r > 0 ? ", (" : "(";
    for (size_t c = 0; c < names.size(); ++c) {
      out += (c > 0 ? ", " : "") + value(c < rows[r].size() ? rows[r][c] : std::nullopt, c);
    }
    out += ")";
  }
  out += ") AS pgrange_rows (";
  for (size_t c = 0; c < names.size(); ++c) out += (c > 0 ? ", " : "") + quote_ident(names[c]);
  return out + ")";
}

}  // namespace pgrange::sql
