#!/usr/bin/env python3
"""Writes joins.sql, the differential corpus of statements over several tables (joins of every
kind, subqueries, CTEs, set operations over them) for tests/integration/differential_test.cpp.

The tables (j_users, j_orders, j_items, j_cats, j_events) are made by setup.sql and spread over
the shards by splits.sql; j_cats is a reference table (the test's configuration: every shard
holds all of its rows) and j_visits is co-located with j_users (its ranges follow j_users'). Every ORDER BY lists the key columns of every table in the statement,
so that it is total (a NULL-extended row of an outer join is unique too), and LIMIT comes only
after such an ORDER BY. Run it again after changing it: python3 joins_corpus.py > joins.sql
"""
import itertools

out = []


def group(name):
    out.append("")
    out.append("-- group: " + name)


def add(sql):
    out.append(sql)


U_POINTS = [5, 30, 61, 90, 119, 125]
U_SETS = ["(3, 33, 63, 93)", "(1, 2, 120, 130)", "(29, 30, 31)"]
U_SPANS = [(1, 20), (25, 65), (85, 130)]

# The two-table joins: (from clause template with {j} for the join, ORDER BY, select lists)
PAIRS = [
    ("j_users u {j} j_orders o ON o.user_id = u.id", "u.id, o.user_id, o.id",
     ["u.id, u.name, o.id, o.amount", "*", "u.city, o.status"], "u", "o"),
    ("j_orders o {j} j_items i ON i.code = o.item_code", "o.user_id, o.id, i.code",
     ["o.user_id, o.id, i.code, i.title", "o.id, i.price", "*"], "o", "i"),
    ("j_users u {j} j_events e ON e.user_id = u.id", "u.id, e.id",
     ["u.id, e.kind, e.at", "u.name, e.id"], "u", "e"),
    ("j_items i {j} j_cats c ON c.id = i.cat", "i.code, c.id",
     ["i.code, c.label", "*"], "i", "c"),
]
JOINS = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"]

FILTERS = {
    "u": ["u.id = {p}", "u.id IN {s}", "u.id BETWEEN {a} AND {b}", "u.city = 'Oslo'",
          "u.city IS NULL", "u.score > 50"],
    "o": ["o.user_id = {p}", "o.amount > 400", "o.status IS NULL", "o.status = 'paid'",
          "o.user_id BETWEEN {a} AND {b}"],
    "i": ["i.code = 'i07'", "i.code < 'i20'", "i.cat IS NULL", "i.price >= 30"],
    "e": ["e.kind = 'click'", "e.user_id = {p}", "e.user_id IS NULL"],
    "c": ["c.id = 3", "c.label LIKE 'c%'"],
}


def fill(f, n):
    a, b = U_SPANS[n % len(U_SPANS)]
    return f.format(p=U_POINTS[n % len(U_POINTS)], s=U_SETS[n % len(U_SETS)], a=a, b=b)


n = 0
for (frm, order, selects, left, right), join in itertools.product(PAIRS, JOINS):
    group("two tables: " + frm.format(j=join))
    base = frm.format(j=join)
    for sel in selects:
        add(f"SELECT {sel} FROM {base} ORDER BY {order}")
    for side in (left, right):
        for f in FILTERS[side]:
            n += 1
            add(f"SELECT {selects[0]} FROM {base} WHERE {fill(f, n)} ORDER BY {order}")
    add(f"SELECT count(*) FROM {base}")
    add(f"SELECT {selects[0]} FROM {base} ORDER BY {order} LIMIT 7")
    add(f"SELECT {selects[0]} FROM {base} ORDER BY {order} DESC LIMIT 5 OFFSET 3")

group("aggregates and grouping over joins")
for join in JOINS:
    add(f"SELECT u.city, count(*), count(o.id), sum(o.amount) FROM j_users u {join} j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city")
    add(f"SELECT o.status, count(DISTINCT u.id), max(o.amount), min(u.name) FROM j_users u {join} j_orders o ON o.user_id = u.id GROUP BY o.status ORDER BY o.status")
    add(f"SELECT u.id, count(o.id) FROM j_users u {join} j_orders o ON o.user_id = u.id GROUP BY u.id HAVING count(o.id) > 5 ORDER BY u.id")
    add(f"SELECT i.cat, avg(i.price), string_agg(o.id::text, ',' ORDER BY o.id) FROM j_orders o {join} j_items i ON i.code = o.item_code WHERE o.user_id < 20 GROUP BY i.cat ORDER BY i.cat")
    add(f"SELECT count(*), sum(o.amount), avg(o.amount) FROM j_users u {join} j_orders o ON o.user_id = u.id WHERE u.id BETWEEN 10 AND 70")
    add(f"SELECT DISTINCT u.city FROM j_users u {join} j_orders o ON o.user_id = u.id ORDER BY u.city")
    add(f"SELECT DISTINCT o.status, u.city FROM j_users u {join} j_orders o ON o.user_id = u.id ORDER BY o.status, u.city")

group("equalities, USING, NATURAL, IN lists")
for p in U_POINTS:
    add(f"SELECT u.name, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id = {p} ORDER BY o.id")
    add(f"SELECT u.name, o.id FROM j_users u, j_orders o WHERE o.user_id = u.id AND u.id = {p} ORDER BY o.id")
    add(f"SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id AND o.user_id = {p} ORDER BY o.id")
    add(f"SELECT u.name, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id = {p} ORDER BY o.id")
    add(f"SELECT a.id, b.id FROM j_users a JOIN j_users b ON a.id = b.id WHERE a.id = {p}")
    add(f"SELECT * FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id = {p} ORDER BY o.id")
for s in U_SETS:
    add(f"SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id IN {s} ORDER BY u.id, o.id")
    add(f"SELECT u.id, count(o.id) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id WHERE u.id IN {s} GROUP BY u.id ORDER BY u.id")
add("SELECT id, name, amount FROM j_users JOIN (SELECT user_id AS id, amount FROM j_orders) o USING (id) WHERE id < 10 ORDER BY id, amount")
add("SELECT * FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_users u USING (name) ORDER BY o.user_id, o.id")
add("SELECT count(*) FROM j_users NATURAL JOIN j_orders")
add("SELECT * FROM j_users NATURAL JOIN j_orders ORDER BY id, user_id")
add("SELECT * FROM j_items NATURAL LEFT JOIN j_cats ORDER BY code, id")
add("SELECT count(*) FROM j_users u CROSS JOIN j_cats c")
add("SELECT u.id, c.id FROM j_users u CROSS JOIN j_cats c WHERE u.id < 4 ORDER BY u.id, c.id")
add("SELECT u.id, c.label FROM j_users u, j_cats c WHERE u.score % 8 = c.id ORDER BY u.id, c.id")

group("joins on expressions, self-joins, non-equality joins")
for join in JOINS:
    add(f"SELECT a.id, b.id FROM j_users a {join} j_users b ON b.id = a.id + 1 WHERE a.id < 40 OR b.id > 110 ORDER BY a.id, b.id")
    add(f"SELECT a.id, b.id FROM j_users a {join} j_users b ON b.score = a.score AND b.id > a.id WHERE a.id < 30 ORDER BY a.id, b.id")
    add(f"SELECT o.user_id, o.id, i.code FROM j_orders o {join} j_items i ON lower(i.code) = lower(o.item_code) AND i.price < o.amount WHERE o.user_id < 15 ORDER BY o.user_id, o.id, i.code")
    add(f"SELECT u.id, o.id FROM j_users u {join} j_orders o ON o.user_id = u.id AND o.amount > 500 WHERE u.id < 30 ORDER BY u.id, o.user_id, o.id")
    add(f"SELECT u.id, e.id FROM j_users u {join} j_events e ON e.user_id = u.id AND e.kind = 'buy' ORDER BY u.id, e.id")
    add(f"SELECT u.id, o.id FROM j_users u {join} j_orders o ON o.user_id = u.id AND u.city IS NOT NULL WHERE coalesce(u.id, o.user_id) < 25 ORDER BY u.id, o.user_id, o.id")
    add(f"SELECT u.id, o.id FROM j_users u {join} j_orders o ON o.user_id = u.id WHERE o.id IS NULL ORDER BY u.id, o.user_id, o.id")
    add(f"SELECT u.id, o.id FROM j_users u {join} j_orders o ON o.user_id = u.id WHERE u.id IS NULL ORDER BY u.id, o.user_id, o.id")
    add(f"SELECT a.user_id, a.id, b.id FROM j_orders a {join} j_orders b ON b.user_id = a.user_id AND b.id = a.id + 120 WHERE a.user_id < 10 ORDER BY a.user_id, a.id, b.user_id, b.id")
add("SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.amount BETWEEN u.score * 10 AND u.score * 10 + 5 WHERE u.id < 20 ORDER BY u.id, o.user_id, o.id")
add("SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id < u.id WHERE u.id = 3 ORDER BY o.user_id, o.id")

group("three and four tables")
for j1, j2 in itertools.product(JOINS, repeat=2):
    add(f"SELECT u.id, o.id, i.code FROM j_users u {j1} j_orders o ON o.user_id = u.id {j2} j_items i ON i.code = o.item_code WHERE coalesce(u.id, o.user_id, 0) < 30 ORDER BY u.id, o.user_id, o.id, i.code")
for j1, j2, j3 in [("JOIN", "JOIN", "JOIN"), ("JOIN", "LEFT JOIN", "LEFT JOIN"),
                   ("LEFT JOIN", "LEFT JOIN", "LEFT JOIN"), ("JOIN", "JOIN", "FULL JOIN"),
                   ("RIGHT JOIN", "JOIN", "LEFT JOIN"), ("LEFT JOIN", "FULL JOIN", "JOIN"),
                   ("FULL JOIN", "FULL JOIN", "FULL JOIN"), ("JOIN", "RIGHT JOIN", "JOIN")]:
    add(f"SELECT u.id, o.id, i.code, c.label FROM j_users u {j1} j_orders o ON o.user_id = u.id {j2} j_items i ON i.code = o.item_code {j3} j_cats c ON c.id = i.cat WHERE coalesce(u.id, o.user_id, 0) < 40 ORDER BY u.id, o.user_id, o.id, i.code, c.id")
    add(f"SELECT c.label, count(*), sum(o.amount) FROM j_users u {j1} j_orders o ON o.user_id = u.id {j2} j_items i ON i.code = o.item_code {j3} j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label")
    add(f"SELECT u.id, e.id, o.id FROM j_users u {j1} j_events e ON e.user_id = u.id {j2} j_orders o ON o.user_id = e.user_id AND o.id % 7 = 0 WHERE u.id = 12 OR e.user_id = 40 ORDER BY u.id, e.id, o.user_id, o.id")
for p in U_POINTS:
    add(f"SELECT u.name, o.id, i.title FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code WHERE u.id = {p} ORDER BY o.id")
    add(f"SELECT u.name, o.id, i.title, c.label FROM j_users u JOIN j_orders o ON o.user_id = u.id LEFT JOIN j_items i ON i.code = o.item_code LEFT JOIN j_cats c ON c.id = i.cat WHERE u.id = {p} ORDER BY o.id")
add("SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_users u2 ON u2.id = o.user_id + 1 WHERE u.id < 10 ORDER BY u.id, o.id")
add("SELECT count(*) FROM j_users u, j_orders o, j_items i WHERE o.user_id = u.id AND i.code = o.item_code")
add("SELECT count(*) FROM j_users u, j_orders o, j_items i, j_cats c WHERE o.user_id = u.id AND i.code = o.item_code AND c.id = i.cat AND u.city = 'Rome'")
add("SELECT u.id, o.id FROM (j_users u LEFT JOIN j_orders o ON o.user_id = u.id) JOIN j_events e ON e.user_id = u.id WHERE e.kind = 'view' AND u.id < 50 ORDER BY u.id, o.user_id, o.id, e.id")

group("subqueries")
for p in U_POINTS:
    add(f"SELECT * FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > {p * 5}) ORDER BY id")
    add(f"SELECT * FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > {p * 6}) ORDER BY id")
    add(f"SELECT * FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount < {p * 4}) ORDER BY id")
    add(f"SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders WHERE id < {p * 3}) ORDER BY id")
    add(f"SELECT id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM j_users u WHERE id <= {p} ORDER BY id")
add("SELECT id FROM j_users WHERE score NOT IN (SELECT cat FROM j_items) ORDER BY id")
add("SELECT id FROM j_users WHERE score NOT IN (SELECT cat FROM j_items WHERE cat IS NOT NULL) ORDER BY id")
add("SELECT code FROM j_items WHERE cat = ANY (SELECT id FROM j_cats WHERE label > 'c3') ORDER BY code")
add("SELECT code FROM j_items WHERE price > ALL (SELECT amount / 20 FROM j_orders WHERE user_id = 7) ORDER BY code")
add("SELECT u.id, t.n FROM j_users u JOIN (SELECT user_id, count(*) AS n FROM j_orders GROUP BY user_id) t ON t.user_id = u.id WHERE t.n > 4 ORDER BY u.id")
add("SELECT u.id, t.total FROM j_users u LEFT JOIN LATERAL (SELECT sum(amount) AS total FROM j_orders o WHERE o.user_id = u.id) t ON true WHERE u.id < 15 ORDER BY u.id")
add("SELECT u.id, t.id FROM j_users u CROSS JOIN LATERAL (SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 2) t WHERE u.id < 12 ORDER BY u.id, t.id")
add("SELECT (SELECT max(amount) FROM j_orders), (SELECT count(*) FROM j_users WHERE city IS NULL)")
add("SELECT city, count(*) FROM j_users WHERE id IN (SELECT user_id FROM j_orders) GROUP BY city HAVING count(*) > (SELECT count(*) / 40 FROM j_orders) ORDER BY city")
add("SELECT * FROM j_events WHERE user_id IN (SELECT id FROM j_users WHERE city = 'Lima') ORDER BY id")

group("CTEs and set operations")
add("WITH t AS (SELECT user_id, sum(amount) s FROM j_orders GROUP BY user_id) SELECT u.id, t.s FROM j_users u JOIN t ON t.user_id = u.id ORDER BY t.s DESC, u.id LIMIT 5")
add("WITH big AS (SELECT * FROM j_orders WHERE amount > 600) SELECT u.city, count(*) FROM big JOIN j_users u ON u.id = big.user_id GROUP BY u.city ORDER BY u.city")
add("WITH a AS (SELECT id FROM j_users WHERE id < 20), b AS (SELECT user_id FROM j_orders WHERE user_id < 20) SELECT a.id, count(b.user_id) FROM a LEFT JOIN b ON b.user_id = a.id GROUP BY a.id ORDER BY a.id")
add("WITH RECURSIVE chain(id, depth) AS (SELECT id, 0 FROM j_users WHERE id = 1 UNION ALL SELECT u.id, c.depth + 1 FROM chain c JOIN j_users u ON u.id = c.id + 7 WHERE c.depth < 10) SELECT * FROM chain ORDER BY depth")
add("WITH m AS MATERIALIZED (SELECT user_id, max(amount) m FROM j_orders GROUP BY user_id) SELECT count(*) FROM m JOIN j_users u ON u.id = m.user_id")
for op in ["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]:
    add(f"SELECT id FROM j_users WHERE id < 30 {op} SELECT user_id FROM j_orders WHERE user_id BETWEEN 20 AND 50 ORDER BY 1")
    add(f"SELECT city FROM j_users {op} SELECT status FROM j_orders ORDER BY 1")
    add(f"SELECT u.id, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 5 {op} SELECT o.user_id, o.id FROM j_orders o WHERE o.user_id BETWEEN 3 AND 8 ORDER BY 1, 2")
add("SELECT count(*) FROM (SELECT id FROM j_users UNION SELECT user_id FROM j_orders) t")
add("(SELECT id FROM j_users ORDER BY id LIMIT 3) UNION ALL (SELECT user_id FROM j_orders ORDER BY user_id DESC, id DESC LIMIT 3) ORDER BY 1")

group("window functions over joins")
add("SELECT u.id, o.id, row_number() OVER (PARTITION BY u.id ORDER BY o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 10 ORDER BY u.id, o.id")
add("SELECT u.id, sum(o.amount) OVER (PARTITION BY u.city ORDER BY u.id, o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 25 ORDER BY u.id, o.id")
add("SELECT u.id, rank() OVER (ORDER BY count(o.id) DESC) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id ORDER BY u.id")

group("joins with ORDER BY expressions and LIMIT")
for lim in [1, 3, 10, 50]:
    add(f"SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY o.amount DESC, o.user_id, o.id LIMIT {lim}")
    add(f"SELECT u.id, o.id FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id ORDER BY u.id DESC, o.id NULLS FIRST LIMIT {lim}")
    add(f"SELECT o.user_id, o.id, i.code FROM j_orders o FULL JOIN j_items i ON i.code = o.item_code ORDER BY i.code NULLS FIRST, o.user_id, o.id LIMIT {lim} OFFSET 2")


group("filters on both sides")
m = 0
for (frm, order, selects, left, right), join in itertools.product(PAIRS, JOINS):
    base = frm.format(j=join)
    for k in range(4):
        m += 1
        lf = fill(FILTERS[left][m % len(FILTERS[left])], m)
        rf = fill(FILTERS[right][(m + k) % len(FILTERS[right])], m + 1)
        conj = "AND" if k % 2 == 0 else "OR"
        add(f"SELECT {selects[0]} FROM {base} WHERE {lf} {conj} {rf} ORDER BY {order}")
    add(f"SELECT count(*), count({left}.*), count({right}.*) FROM {base}")

group("tables of the other groups: hash-sharded keys, text and composite keys")
for join in JOINS:
    add(f"SELECT u.id, ev.kind, ev.score FROM j_users u {join} events ev ON ev.id = u.id WHERE coalesce(u.id, ev.id) < 30 ORDER BY u.id, ev.id")
    add(f"SELECT u.id, t.name FROM j_users u {join} t_int t ON t.id = u.id WHERE coalesce(u.id, t.id) BETWEEN -5 AND 20 ORDER BY u.id, t.id")
    add(f"SELECT p.a, p.b, u.name FROM parts p {join} j_users u ON u.id = p.a WHERE coalesce(p.a, u.id) > 50 ORDER BY p.a, p.b, u.id")
    add(f"SELECT o.user_id, o.id, x.k FROM j_orders o {join} t_text x ON x.k = o.item_code WHERE o.user_id < 8 OR x.k LIKE 'i%' ORDER BY o.user_id, o.id, x.k")
    add(f"SELECT u.id, a.email FROM j_users u {join} accounts a ON a.id = u.id WHERE u.id IN (3, 50, 110) OR a.id IN (4, 299) ORDER BY u.id, a.id")
    add(f"SELECT c.a, c.b, u.id FROM t_comp c {join} j_users u ON u.id = c.a WHERE c.a BETWEEN 5 AND 12 OR u.id = 100 ORDER BY c.a, c.b, u.id")


group("grouping per join shape")
GROUP_KEYS = {"u": "u.city", "o": "o.status", "i": "i.cat", "e": "e.kind", "c": "c.label"}
for (frm, order, selects, left, right), join in itertools.product(PAIRS, JOINS):
    base = frm.format(j=join)
    for side in (left, right):
        key = GROUP_KEYS[side]
        add(f"SELECT {key}, count(*), count(DISTINCT {left}.*) FROM {base} GROUP BY {key} ORDER BY {key}")

group("a reference table: alone, twice, and on either side of spread tables")
REF_QUERIES = [
    "SELECT * FROM j_cats ORDER BY id",
    "SELECT count(*), min(label), max(id) FROM j_cats",
    "SELECT label, count(*) FROM j_cats GROUP BY label ORDER BY label",
    "SELECT c1.id, c2.id FROM j_cats c1 JOIN j_cats c2 ON c2.id = c1.id + 1 ORDER BY c1.id, c2.id",
    "SELECT c.id, count(i.code) FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id GROUP BY c.id ORDER BY c.id",
    "SELECT c.id, i.code FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id AND i.price > 40 ORDER BY c.id, i.code",
    "SELECT c.id, i.code FROM j_items i RIGHT JOIN j_cats c ON c.id = i.cat WHERE c.id > 5 ORDER BY c.id, i.code",
    "SELECT c.id, i.code FROM j_cats c FULL JOIN j_items i ON i.cat = c.id ORDER BY c.id, i.code",
    "SELECT c.id FROM j_cats c WHERE NOT EXISTS (SELECT 1 FROM j_items i WHERE i.cat = c.id) ORDER BY c.id",
    "SELECT c.id FROM j_cats c WHERE c.id IN (SELECT cat FROM j_items WHERE price < 20) ORDER BY c.id",
    "SELECT c.id, (SELECT count(*) FROM j_items i WHERE i.cat = c.id) FROM j_cats c ORDER BY c.id",
    "SELECT i.code, c.label FROM j_items i JOIN j_cats c ON c.id = i.cat WHERE i.code IN ('i03', 'i33') ORDER BY i.code",
    "SELECT o.user_id, o.id, i.code, c.label FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat WHERE o.user_id = 61 ORDER BY o.user_id, o.id, i.code, c.id",
    "SELECT c.label, sum(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label",
    "SELECT c.id FROM j_cats c UNION SELECT cat FROM j_items WHERE cat IS NOT NULL ORDER BY 1",
    "SELECT c.id FROM j_cats c EXCEPT SELECT cat FROM j_items ORDER BY 1",
    "WITH cs AS (SELECT id, label FROM j_cats WHERE id <= 4) SELECT cs.id, i.code FROM cs JOIN j_items i ON i.cat = cs.id ORDER BY cs.id, i.code",
    "SELECT u.id, c.label FROM j_users u CROSS JOIN j_cats c WHERE u.id IN (2, 77) AND c.id < 3 ORDER BY u.id, c.id",
    "SELECT c.id, row_number() OVER (ORDER BY c.label DESC) FROM j_cats c ORDER BY c.id",
    "SELECT i.cat, c.label, count(*) OVER (PARTITION BY i.cat) FROM j_items i LEFT JOIN j_cats c ON c.id = i.cat WHERE i.code < 'i12' ORDER BY i.code",
]
for q in REF_QUERIES:
    add(q)

group("co-located tables: j_users and their j_visits, joined on the key prefix and otherwise")
COLO = [
    "SELECT u.id, v.n, v.page FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id BETWEEN 25 AND 65 ORDER BY u.id, v.n",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE v.user_id IN (2, 59, 61, 118) ORDER BY u.id, v.n",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id = 88 ORDER BY v.n",
    "SELECT u.city, count(*), sum(v.secs), min(v.page), max(v.secs) FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.city ORDER BY u.city",
    "SELECT u.id, count(v.n) FROM j_users u JOIN j_visits v ON u.id = v.user_id GROUP BY u.id HAVING count(v.n) > 3 ORDER BY u.id",
    "SELECT u.id, v.n, v.secs FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY v.secs DESC, u.id, v.n LIMIT 10",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n LIMIT 7 OFFSET 30",
    "SELECT DISTINCT v.page FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.score > 50 ORDER BY v.page",
    "SELECT count(*), avg(v.secs) FROM j_users u, j_visits v WHERE v.user_id = u.id AND u.city = 'Rome'",
    "SELECT u.id, v.n, c.label FROM j_users u JOIN j_visits v ON v.user_id = u.id JOIN j_cats c ON c.id = v.n ORDER BY u.id, v.n",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id LEFT JOIN j_cats c ON c.id = u.score % 10 WHERE c.id IS NULL ORDER BY u.id, v.n",
    "SELECT v1.user_id, v1.n, v2.n FROM j_visits v1 JOIN j_visits v2 ON v2.user_id = v1.user_id AND v2.n = v1.n + 1 ORDER BY v1.user_id, v1.n",
    "SELECT u.id, v.n FROM j_users u LEFT JOIN j_visits v ON v.user_id = u.id ORDER BY u.id, v.n",
    "SELECT u.id, v.user_id, v.n FROM j_users u RIGHT JOIN j_visits v ON v.user_id = u.id ORDER BY v.user_id, v.n, u.id",
    "SELECT u.id, v.user_id, v.n FROM j_users u FULL JOIN j_visits v ON v.user_id = u.id ORDER BY v.user_id, v.n, u.id",
    "SELECT u.id, count(v.n) FROM j_users u LEFT JOIN j_visits v ON v.user_id = u.id GROUP BY u.id ORDER BY u.id",
    "SELECT u.id, v.n FROM j_users u JOIN j_visits v ON v.secs = u.id ORDER BY u.id, v.user_id, v.n",
    "SELECT u.id, v.user_id, v.n FROM j_users u JOIN j_visits v ON v.user_id = u.id + 1 ORDER BY u.id, v.n",
    "SELECT u.id FROM j_users u WHERE EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id AND v.secs > 250) ORDER BY u.id",
    "SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id",
    "SELECT u.id, v.n, o.id FROM j_users u JOIN j_visits v ON v.user_id = u.id JOIN j_orders o ON o.user_id = u.id AND o.id % 5 = v.n WHERE u.id < 40 ORDER BY u.id, v.n, o.id",
    "SELECT u.id, v.n, row_number() OVER (PARTITION BY u.id ORDER BY v.n DESC) FROM j_users u JOIN j_visits v ON v.user_id = u.id WHERE u.id < 20 ORDER BY u.id, v.n",
    "SELECT count(DISTINCT v.page) FROM j_users u JOIN j_visits v ON v.user_id = u.id",
    "SELECT v.page, count(*) FROM j_visits v GROUP BY v.page ORDER BY v.page",
    "WITH t AS (SELECT u.id, sum(v.secs) AS s FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.id) SELECT count(*), max(s) FROM t",
]
for q in COLO:
    add(q)

group("lookups by values of another integer width or of varchar, and self-joins left in place")
for join in ["JOIN", "LEFT JOIN"]:
    # int4 values looking up an int8 key, int8 values (most out of int4's range) an int4 key.
    add(f"SELECT i.code, u.id, u.name FROM j_items i {join} j_users u ON u.id = i.cat WHERE i.code < 'i30' ORDER BY i.code, u.id")
    add(f"SELECT t.id, t.i8, n.id, n.b FROM t_types t {join} t_nulls n ON n.id = t.i8 WHERE t.id > 190 OR t.id = 60 ORDER BY t.id, n.id")
    add(f"SELECT t.id, t.i2, n.a FROM t_types t {join} t_nulls n ON n.id = t.i2 WHERE t.id < 40 ORDER BY t.id, n.id")
    add(f"SELECT t.id, n.id FROM t_types t {join} t_nulls n ON n.id = t.i8 WHERE t.id BETWEEN 100 AND 120 ORDER BY t.id, n.id")
    # varchar values looking up a text key.
    add(f"SELECT t.id, t.vc, x.k, x.n FROM t_types t {join} t_text x ON x.k = t.vc WHERE t.id < 60 ORDER BY t.id, x.k")
    # A point of one mention, the row it names in the other.
    for p in U_POINTS:
        add(f"SELECT a.id, a.score, b.id, b.name FROM j_users a {join} j_users b ON b.id = a.score WHERE a.id = {p} ORDER BY b.id")
for a, b in U_SPANS:
    add(f"SELECT a.id, b.id, b.city FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN {a} AND {b} ORDER BY a.id, b.id")
    add(f"SELECT b.city, count(*), sum(a.score) FROM j_users a JOIN j_users b ON b.id = a.score + 1 WHERE a.id BETWEEN {a} AND {b} GROUP BY b.city ORDER BY b.city")
    add(f"SELECT a.id, b.id FROM j_users a JOIN j_users b ON b.id = a.score WHERE a.id BETWEEN {a} AND {b} ORDER BY b.id, a.id LIMIT 7")
    add(f"SELECT o.user_id, o.id FROM j_orders o JOIN j_users u ON u.id = o.user_id WHERE o.user_id BETWEEN {a} AND {b} AND o.amount > (SELECT avg(o2.amount) FROM j_orders o2 WHERE o2.user_id < 20) ORDER BY o.user_id, o.id")

print("-- The join corpus of the differential test: statements over several of the j_* tables")
print("-- (setup.sql, splits.sql), written by joins_corpus.py; run by JoinsAnswerLikePostgres.")
for line in out:
    print(line)
