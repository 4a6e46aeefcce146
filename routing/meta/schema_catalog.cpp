#include "routing/meta/schema_catalog.hpp"

namespace pgrange::routing {

std::string schema_lines_sql() {
  // User schemas: not the system's, not temporary or TOAST ones.
  static const std::string kUser = "nspname <> 'information_schema' AND nspname NOT LIKE 'pg\\_%'";
  // Objects that belong to an extension come with it.
  static const std::string kNotExtension =
      "NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = o.oid AND d.deptype = 'e')";
  return R"sql(
WITH ns AS (SELECT oid, nspname FROM pg_namespace WHERE )sql" +
         kUser + R"sql()
SELECT line FROM (
  SELECT 'schema ' || nspname || ' ' || coalesce(n.nspacl::text, '') AS line
    FROM pg_namespace n WHERE )sql" +
         kUser + R"sql(
  UNION ALL
  SELECT 'relation ' || ns.nspname || '.' || o.relname || ' kind ' || o.relkind::text ||
         ' persistence ' || o.relpersistence::text || ' acl ' || coalesce(o.relacl::text, '') ||
         ' rls ' || o.relrowsecurity
    FROM pg_class o JOIN ns ON ns.oid = o.relnamespace
    WHERE o.relkind IN ('r', 'v', 'm', 'S', 'f', 'p', 'c') AND )sql" +
         kNotExtension + R"sql(
  UNION ALL
  SELECT 'column ' || ns.nspname || '.' || c.relname || '.' || a.attname || ' ' ||
         format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END ||
         coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') ||
         CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text ELSE '' END ||
         CASE WHEN a.attgenerated <> '' THEN ' generated' ELSE '' END ||
         coalesce(' collate ' || nullif(co.collname, 'default'), '') || ' acl ' ||
         coalesce(a.attacl::text, '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'v', 'm', 'f', 'p', 'c')
  UNION ALL
  SELECT 'constraint ' || ns.nspname || '.' || coalesce(c.relname, t.typname) || ' ' ||
         o.conname || ' ' || pg_get_constraintdef(o.oid)
    FROM pg_constraint o JOIN ns ON ns.oid = o.connamespace
    LEFT JOIN pg_class c ON c.oid = o.conrelid LEFT JOIN pg_type t ON t.oid = o.contypid
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(o.oid)
    FROM pg_class o JOIN ns ON ns.oid = o.relnamespace WHERE o.relkind IN ('i', 'I')
  UNION ALL
  SELECT 'view ' || ns.nspname || '.' || o.relname || ' ' || pg_get_viewdef(o.oid)
    FROM pg_class o JOIN ns ON ns.oid = o.relnamespace WHERE o.relkind IN ('v', 'm') AND )sql" +
         kNotExtension + R"sql(
  UNION ALL
  SELECT 'sequence ' || ns.nspname || '.' || c.relname || ' ' || format_type(s.seqtypid, NULL) ||
         ' ' || s.seqstart || ' ' || s.seqincrement || ' ' || s.seqmax || ' ' || s.seqmin ||
         ' ' || s.seqcache || ' ' || s.seqcycle
    FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN ns ON ns.oid = c.relnamespace
  UNION ALL
  SELECT 'type ' || ns.nspname || '.' || o.typname || ' ' || o.typtype::text || ' ' ||
         coalesce(format_type(o.typbasetype, o.typtypmod), '') || ' ' || o.typnotnull || ' ' ||
         coalesce(o.typdefault, '') || ' acl ' || coalesce(o.typacl::text, '')
    FROM pg_type o JOIN ns ON ns.oid = o.typnamespace
    WHERE o.typtype IN ('e', 'd', 'r', 'm', 'b', 'p') AND o.typelem = 0 AND )sql" +
         kNotExtension + R"sql(
  UNION ALL
  SELECT 'enum ' || ns.nspname || '.' || t.typname || ' ' || e.enumsortorder || ' ' || e.enumlabel
    FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid JOIN ns ON ns.oid = t.typnamespace
  UNION ALL
  SELECT 'function ' || ns.nspname || '.' || o.proname || '(' ||
         pg_get_function_identity_arguments(o.oid) || ') ' || o.prokind::text || ' acl ' ||
         coalesce(o.proacl::text, '') || ' ' ||
         CASE WHEN o.prokind IN ('f', 'p', 'w') THEN pg_get_functiondef(o.oid) ELSE '' END
    FROM pg_proc o JOIN ns ON ns.oid = o.pronamespace WHERE )sql" +
         kNotExtension + R"sql(
  UNION ALL
  SELECT 'trigger ' || pg_get_triggerdef(o.oid) || ' ' || o.tgenabled::text
    FROM pg_trigger o JOIN pg_class c ON c.oid = o.tgrelid JOIN ns ON ns.oid = c.relnamespace
    WHERE NOT o.tgisinternal
  UNION ALL
  SELECT 'rule ' || pg_get_ruledef(o.oid)
    FROM pg_rewrite o JOIN pg_class c ON c.oid = o.ev_class JOIN ns ON ns.oid = c.relnamespace
    WHERE o.rulename <> '_RETURN'
  UNION ALL
  SELECT 'policy ' || ns.nspname || '.' || c.relname || ' ' || o.polname || ' ' || o.polcmd::text ||
         ' ' || o.polpermissive || ' ' || coalesce(pg_get_expr(o.polqual, o.polrelid), '') ||
         ' ' || coalesce(pg_get_expr(o.polwithcheck, o.polrelid), '')
    FROM pg_policy o JOIN pg_class c ON c.oid = o.polrelid JOIN ns ON ns.oid = c.relnamespace
  UNION ALL
  SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'comment ' || pg_describe_object(d.classoid, d.objoid, d.objsubid) || ' ' ||
         d.description
    FROM pg_description d
    WHERE d.objoid >= 16384 AND pg_describe_object(d.classoid, d.objoid, d.objsubid) IS NOT NULL
) lines ORDER BY line COLLATE "C")sql";
}

std::string schema_digest_sql() {
  return "SELECT md5(coalesce(string_agg(line, E'\\n'), '')) AS digest FROM (" +
         schema_lines_sql() + ") described";
}

}  // namespace pgrange::routing
