#!/usr/bin/env python3
"""Parses a Prometheus text exposition (stdin) with prometheus_client's parser and checks what
a scraper relies on; prints every sample as `name|label=value,...|value` (labels sorted).

Exit 0 when the text is valid, 1 with the reason otherwise. Checks, beyond the parser's own:
every family has HELP and TYPE before its samples, names are prefixed `pgrange_`, a histogram's
buckets are cumulative (non-decreasing in `le`), end with +Inf, and +Inf equals _count.
"""
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(why):
    print("prometheus_check: " + why)
    sys.exit(1)


def main():
    text = sys.stdin.read()
    declared = {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4:
                fail("short comment line: " + line)
            declared.setdefault(parts[2], set()).add(parts[1])
        elif line and not line.startswith("#"):
            name = line.split("{", 1)[0].split(" ", 1)[0]
            base = name
            for suffix in ("_bucket", "_sum", "_count"):
                if name.endswith(suffix) and name[: -len(suffix)] in declared:
                    base = name[: -len(suffix)]
            if declared.get(base) != {"HELP", "TYPE"}:
                fail("sample before its HELP and TYPE: " + line)
            if not name.startswith("pgrange_"):
                fail("name without the pgrange_ prefix: " + line)
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser's own complaint is the reason
        fail("parser: %s" % e)
    out = []
    for family in families:
        if family.type == "histogram":
            series = {}
            for s in family.samples:
                key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
                series.setdefault(key, {"buckets": [], "count": None})
                if s.name.endswith("_bucket"):
                    series[key]["buckets"].append((float(s.labels["le"]), s.value))
                elif s.name.endswith("_count"):
                    series[key]["count"] = s.value
            for key, h in series.items():
                b = h["buckets"]
                if not b or not math.isinf(b[-1][0]):
                    fail("histogram %s %s does not end with +Inf" % (family.name, key))
                if any(b[i][0] >= b[i + 1][0] for i in range(len(b) - 1)):
                    fail("histogram %s %s: bounds not increasing" % (family.name, key))
                if any(b[i][1] > b[i + 1][1] for i in range(len(b) - 1)):
                    fail("histogram %s %s: buckets not cumulative" % (family.name, key))
                if h["count"] != b[-1][1]:
                    fail("histogram %s %s: +Inf %s != count %s" % (family.name, key, b[-1][1], h["count"]))
        for s in family.samples:
            labels = ",".join("%s=%s" % (k, v) for k, v in sorted(s.labels.items()))
            out.append("%s|%s|%r" % (s.name, labels, float(s.value)))
    print("\n".join(out))


main()
