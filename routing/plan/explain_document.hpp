#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pgrange::routing {

/// EXPLAIN's output formats (PostgreSQL's FORMAT option).
enum class ExplainFormat { kText, kJson, kYaml, kXml };

/// The FORMAT an EXPLAIN's options ask for ("(FORMAT JSON, ANALYZE)", "ANALYZE VERBOSE", "");
/// nullopt for a format PostgreSQL does not know (the shard then reports it).
std::optional<ExplainFormat> explain_format(std::string_view options);

/// One shard's own EXPLAIN of its part, in the statement's format.
struct ShardExplain {
  std::string shard;
  std::string document;
};

/// The document EXPLAIN returns in a structured format: pgrange's plan as the top node, a
/// Custom Scan whose provider is pgrange (as extensions' scans show in PostgreSQL's plans), with
/// pgrange's plan lines and each shard's own plan, spliced in whole, under it. Valid JSON, YAML or
/// XML, as PostgreSQL writes them, so tools that read plans keep working.
std::string explain_document(ExplainFormat format, const std::vector<std::string>& plan_lines,
                             const std::vector<ShardExplain>& shards);

}  // namespace pgrange::routing
