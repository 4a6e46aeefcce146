// The control plane and the views and SQL functions of the shards: what their bodies read,
// write and call, re-read from the first shard's catalog after DDL that may change them and
// kept in the metadata store, so that every instance routes a statement using them as if it
// named those relations itself. Blocking; control thread.

#include <spdlog/spdlog.h>

#include <pqxx/pqxx>

#include "proxy/control/control_plane.hpp"
#include "sql/reader_body.hpp"

namespace pgrange::proxy {
namespace {

std::vector<routing::QualifiedName> names_of(const std::vector<sql::TableRef>& refs) {
  std::vector<routing::QualifiedName> out;
  out.reserve(refs.size());
  for (const sql::TableRef& r : refs) out.push_back({r.schema, r.name});
  return out;
}

/// A body pgrange could not read: it may read any relation (the router takes every table).
routing::QualifiedName anything() {
  return {"*", "*"};
}

}  // namespace

void ControlPlane::refresh_readers() {
  pqxx::connection conn(config_.shards.at(0).dsn);
  pqxx::read_transaction tx(conn);
  std::vector<routing::ReaderDescriptor> readers;
  // Neither the system's objects nor those of extensions (their bodies are theirs).
  for (const auto& row : tx.exec(R"sql(
      SELECT n.nspname, c.relname, pg_get_viewdef(c.oid)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'v' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                        AND d.objid = c.oid AND d.deptype = 'e'))sql")) {
    routing::ReaderDescriptor r;
    r.kind = routing::ReaderDescriptor::Kind::kView;
    r.schema = row[0].as<std::string>();
    r.name = row[1].as<std::string>();
    if (auto body = sql::read_view_query(row[2].as<std::string>())) {
      r.reads = names_of(body->reads);
      r.calls = names_of(body->calls);
      r.plain = body->plain;
    } else {
      spdlog::warn(
          "view {}.{}: cannot read its query ({}); statements reading it run only on "
          "one shard",
          r.schema, r.name, body.error().message);
      r.reads = {anything()};
    }
    readers.push_back(std::move(r));
  }
  for (const auto& row : tx.exec(R"sql(
      SELECT n.nspname, p.proname, pg_get_function_identity_arguments(p.oid),
             pg_get_functiondef(p.oid)
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        JOIN pg_language l ON l.oid = p.prolang
      WHERE l.lanname = 'sql' AND p.prokind IN ('f', 'p')
        AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                        AND d.objid = p.oid AND d.deptype = 'e'))sql")) {
    routing::ReaderDescriptor r;
    r.kind = routing::ReaderDescriptor::Kind::kFunction;
    r.schema = row[0].as<std::string>();
    r.name = row[1].as<std::string>();
    r.signature = row[2].as<std::string>();
    if (auto body = sql::read_function_definition(row[3].as<std::string>())) {
      r.reads = names_of(body->reads);
      r.writes = names_of(body->writes);
      r.calls = names_of(body->calls);
    } else {
      spdlog::warn(
          "function {}.{}({}): cannot read its body ({}); statements calling it run "
          "only on one shard",
          r.schema, r.name, r.signature, body.error().message);
      r.reads = {anything()};
    }
    readers.push_back(std::move(r));
  }
  tx.commit();
  if (store_->replace_readers(readers)) reload();
}

}  // namespace pgrange::proxy
