// ClientSession and pgrange's own objects on the shards: the tables of global indexes ("t@i"),
// the triggers and functions that report a table's writes to them. Only users with admin =
// true in their [[user]] entry may name them; pgrange writes and reads them itself.

#include <algorithm>
#include <cctype>

#include "proxy/session/client_session.hpp"
#include "proxy/worker.hpp"
#include "routing/plan/index_maintenance.hpp"

namespace pgrange::proxy {

namespace {

bool contains_folded(std::string_view text, std::string_view lower_word) {
  auto it =
      std::search(text.begin(), text.end(), lower_word.begin(), lower_word.end(),
                  [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

/// The text in lower case with each run of white space one blank.
std::string folded(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

Error refusal(std::string what) {
  return Error::make(sqlstate::kInsufficientPrivilege,
                     "permission denied: " + std::move(what) + " belongs to pgrange")
      .with_hint(
          "only users with admin = true in their [[user]] entry may name pgrange's own "
          "objects");
}

}  // namespace

std::optional<Error> ClientSession::internal_object_refusal(std::string_view sql) {
  if (admin()) return std::nullopt;
  // Most statements name neither an index table ("t@i") nor pgrange's triggers and functions.
  bool at = sql.find('@') != std::string_view::npos;
  bool named = contains_folded(sql, "pgrange_");
  bool disables = contains_folded(sql, "disable");
  if (!at && !named && !disables) return std::nullopt;
  auto view = routing_view();
  if (view == nullptr) return std::nullopt;
  auto analysis = worker_.analyze(sql);
  if (!*analysis) return std::nullopt;  // PostgreSQL reports the syntax error
  for (const sql::StatementInfo& info : **analysis) {
    for (const sql::TableRef& ref : info.tables) {
      size_t cut = ref.name.rfind('@');
      if (cut == std::string::npos) continue;
      const routing::TableDescriptor* t = view->find_table(ref.schema, ref.name.substr(0, cut));
      if (t == nullptr) continue;
      std::string index = ref.name.substr(cut + 1);
      if (std::any_of(t->indexes.begin(), t->indexes.end(),
                      [&](const routing::IndexDescriptor& i) { return i.name == index; })) {
        return refusal("table \"" + ref.name + "\" (global index " + index + " of " + t->name +
                       ")");
      }
    }
    for (const sql::TableRef& f : info.functions) {
      if (f.name.rfind("pgrange_index_", 0) == 0) {
        return refusal("function \"" + f.name + "\" (it reports writes to global indexes)");
      }
    }
    bool ddl = info.kind != sql::StatementKind::kSelect &&
               info.kind != sql::StatementKind::kInsert &&
               info.kind != sql::StatementKind::kUpdate && info.kind != sql::StatementKind::kDelete;
    std::string_view text = sql.substr(info.begin, info.end - info.begin);
    if (ddl && contains_folded(text, routing::kIndexTriggerName)) {
      return refusal("trigger \"" + std::string(routing::kIndexTriggerName) +
                     "\" (it reports writes to global indexes)");
    }
    if (info.kind == sql::StatementKind::kAlterTable && contains_folded(text, "disable")) {
      // DISABLE TRIGGER ALL or USER would silence the index trigger too.
      const routing::TableDescriptor* t = view->find_table(info.target.schema, info.target.name);
      std::string f = folded(text);
      if (t != nullptr && !t->indexes.empty() &&
          (f.find("disable trigger all") != std::string::npos ||
           f.find("disable trigger user") != std::string::npos)) {
        return refusal("trigger \"" + std::string(routing::kIndexTriggerName) + "\" of \"" +
                       t->name + "\" (it reports writes to global indexes)");
      }
    }
  }
  return std::nullopt;
}

}  // namespace pgrange::proxy
