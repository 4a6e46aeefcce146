#!/usr/bin/env python3
"""Writes queries.sql, a differential corpus of SELECT statements for
tests/integration/differential_test.cpp (run it with PGRANGE_DIFFERENTIAL_EXTRA=…/queries.sql):
subqueries (scalar, IN / NOT IN, EXISTS, ANY / ALL, derived tables, correlated, LATERAL), CTEs
(plain, MATERIALIZED, recursive), set operations, window functions and aggregates (ordered,
statistical, FILTER, DISTINCT, GROUPING SETS / ROLLUP / CUBE), over the tables of setup.sql as
splits.sql spreads them over the shards.

Rules the statements keep: a statement whose row order matters has a total top-level ORDER BY
(ending in key columns), or is marked /*ties*/, or has none (compared as a multiset); LIMIT and
OFFSET come only after a total ORDER BY; order-dependent aggregates (string_agg, array_agg,
json_agg, …) and window functions whose value depends on order have a total ORDER BY of their
own; float results are rounded. Every group's name starts with "q " so that the test's log tells
these statements from the main corpus'. One statement per line.

Regenerate after a change: python3 queries_corpus.py > queries.sql
"""
import itertools

out = [
    "-- Differential corpus of SELECT statements (subqueries, CTEs, set operations, window",
    "-- functions, aggregates) over tables spread across shards. Generated: do not edit; run",
    "-- python3 queries_corpus.py > queries.sql to regenerate it.",
]


def group(name):
    out.append("")
    out.append("-- group: q " + name)


def add(sql):
    assert "\n" not in sql
    out.append(sql)


# Tables by key type: (table, key columns as ORDER BY, an integer column, a text column)
KEYED = [
    ("t_int", "id", "grp", "name"),
    ("t_text", "k", "n", "note"),
    ("t_comp", "a, b", "v", "w"),
    ("t_uuid", "u", "n", "label"),
    ("t_ts", "ts", "n", "payload"),
    ("t_nulls", "id", "a", "b"),
    ("j_users", "id", "score", "city"),
    ("j_orders", "user_id, id", "id", "status"),
    ("accounts", "id", "tier", "city"),
    ("events", "id", "score", "kind"),
]

# ---------------------------------------------------------------- uncorrelated scalar subqueries
group("scalar subquery in select list")
for t, key, i, s in KEYED:
    add(f"SELECT {key}, {i}, (SELECT max({i}) FROM {t}) AS mx FROM {t} WHERE {i} < 5 ORDER BY {key}")
    add(f"SELECT count(*), (SELECT count(*) FROM j_orders) AS orders FROM {t}")
    add(f"SELECT {key}, {i} - (SELECT min({i}) FROM {t}) AS d FROM {t} ORDER BY {key} LIMIT 7")
    add(f"SELECT (SELECT count(DISTINCT {s}) FROM {t}) AS ds, (SELECT sum({i}) FROM {t}) AS si")

group("scalar subquery in where")
for t, key, i, s in KEYED:
    add(f"SELECT {key}, {i} FROM {t} WHERE {i} = (SELECT max({i}) FROM {t}) ORDER BY {key}")
    add(f"SELECT {key} FROM {t} WHERE {i} > (SELECT avg({i}) FROM {t}) + 10 ORDER BY {key}")
    add(f"SELECT count(*) FROM {t} WHERE {i} < (SELECT min(score) FROM j_users) + 3")
add("SELECT id, name FROM j_users WHERE score = (SELECT score FROM j_users WHERE id = 5) ORDER BY id")
add("SELECT id FROM t_int WHERE id = (SELECT id FROM t_int WHERE id > 1000000000000) ORDER BY id")
add("SELECT id FROM t_int WHERE id = (SELECT id FROM t_int WHERE id > 0)")
add("SELECT k FROM t_text WHERE n = (SELECT n FROM t_text WHERE k = 'nothing') ORDER BY k")
add("SELECT u, n FROM t_uuid WHERE n BETWEEN (SELECT min(n) FROM t_uuid) AND (SELECT min(n) + 9 FROM t_uuid) ORDER BY u")

group("scalar subquery in having")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > (SELECT count(*) / 13 FROM t_int) ORDER BY grp")
add("SELECT city, sum(balance) FROM accounts GROUP BY city HAVING sum(balance) > (SELECT avg(balance) * 20 FROM accounts) ORDER BY city")
add("SELECT status, count(*) FROM j_orders GROUP BY status HAVING max(amount) >= (SELECT max(amount) FROM j_orders WHERE status = 'open') ORDER BY status")
add("SELECT kind, avg(score)::numeric(10,2) FROM events GROUP BY kind HAVING avg(score) < (SELECT avg(score) FROM events) ORDER BY kind")
add("SELECT user_id, count(*) FROM j_orders GROUP BY user_id HAVING count(*) = (SELECT max(c) FROM (SELECT count(*) AS c FROM j_orders GROUP BY user_id) s) ORDER BY user_id")
add("SELECT host, min(v), max(v) FROM metrics GROUP BY host HAVING min(v) <= (SELECT min(v) + 1 FROM metrics) ORDER BY host")
add("SELECT a, count(*) FROM t_comp GROUP BY a HAVING sum(v) > (SELECT sum(v) / 40 FROM t_comp) ORDER BY a")
add("SELECT payload, count(*) FROM t_ts GROUP BY payload HAVING count(*) >= ALL (SELECT count(*) FROM t_ts GROUP BY payload) ORDER BY payload")

# ------------------------------------------------------------------------ IN / NOT IN / EXISTS
group("in subquery")
IN_PAIRS = [
    # (outer table, outer key order, outer column, inner select)
    ("j_users", "id", "id", "SELECT user_id FROM j_orders WHERE amount > 900"),
    ("j_users", "id", "id", "SELECT user_id FROM j_events WHERE kind = 'buy'"),
    ("j_items", "code", "code", "SELECT item_code FROM j_orders WHERE status = 'void'"),
    ("j_cats", "id", "id", "SELECT cat FROM j_items WHERE price > 30"),
    ("t_int", "id", "grp", "SELECT a FROM t_nulls WHERE id < 40"),
    ("t_int", "id", "id", "SELECT n FROM t_uuid WHERE label = 'label 3'"),
    ("t_text", "k", "n", "SELECT grp FROM t_int"),
    ("t_comp", "a, b", "a", "SELECT a FROM parts WHERE tag = 'tag4'"),
    ("accounts", "id", "city", "SELECT city FROM j_users WHERE score > 80"),
    ("events", "id", "score", "SELECT v FROM metrics WHERE host = 'host2'"),
    ("t_uuid", "u", "n", "SELECT n FROM t_ts WHERE payload = 'p4'"),
    ("j_orders", "user_id, id", "user_id", "SELECT id FROM j_users WHERE city = 'Lima'"),
]
for t, key, c, sub in IN_PAIRS:
    add(f"SELECT {key}, {c} FROM {t} WHERE {c} IN ({sub}) ORDER BY {key}")
    add(f"SELECT count(*) FROM {t} WHERE {c} IN ({sub})")
    add(f"SELECT {key} FROM {t} WHERE {c} IN ({sub}) AND {c} IS NOT NULL ORDER BY {key} DESC LIMIT 5")

group("not in subquery")
for t, key, c, sub in IN_PAIRS:
    # The inner columns hold NULLs for several of these: NOT IN is then empty.
    add(f"SELECT {key}, {c} FROM {t} WHERE {c} NOT IN ({sub}) ORDER BY {key}")
    nn = (" AND " if " WHERE " in sub else " WHERE ") + sub.split()[1] + " IS NOT NULL"
    add(f"SELECT count(*) FROM {t} WHERE {c} NOT IN ({sub}{nn})")
add("SELECT id FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls) ORDER BY id")
add("SELECT id FROM t_int WHERE grp NOT IN (SELECT a FROM t_nulls WHERE a IS NOT NULL) ORDER BY id")
add("SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events)")
add("SELECT count(*) FROM j_users WHERE id NOT IN (SELECT user_id FROM j_events WHERE user_id IS NOT NULL)")
add("SELECT id FROM t_nulls WHERE a NOT IN (1, 2, 3) ORDER BY id LIMIT 10")
add("SELECT id FROM t_nulls WHERE (a, b) IN (SELECT a, b FROM t_nulls WHERE id < 30) ORDER BY id")
add("SELECT a, b FROM t_comp WHERE (a, b) IN (SELECT a, b FROM parts WHERE v % 7 = 0) ORDER BY a, b")
add("SELECT a, b FROM t_comp WHERE (a, b) NOT IN (SELECT a, b FROM parts) ORDER BY a, b")
add("SELECT code FROM j_items WHERE code NOT IN (SELECT item_code FROM j_orders WHERE user_id < 10) ORDER BY code")
add("SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders) AND id NOT IN (SELECT user_id FROM j_visits) ORDER BY id")

group("exists")
EXISTS_SUBS = [
    "SELECT 1 FROM j_orders WHERE amount > 990",
    "SELECT 1 FROM j_orders WHERE amount > 5000",
    "SELECT 1 FROM t_nulls WHERE a IS NULL",
    "SELECT 1 FROM events WHERE kind = 'nothing'",
    "SELECT * FROM t_uuid WHERE n = 77",
]
for sub in EXISTS_SUBS:
    add(f"SELECT id, name FROM j_users WHERE EXISTS ({sub}) AND id < 8 ORDER BY id")
    add(f"SELECT count(*) FROM t_int WHERE NOT EXISTS ({sub})")
    add(f"SELECT EXISTS ({sub}) AS e, NOT EXISTS ({sub}) AS ne")
add("SELECT k FROM t_text WHERE EXISTS (SELECT 1 FROM t_text WHERE note IS NULL) AND n > 1035 ORDER BY k")
add("SELECT CASE WHEN EXISTS (SELECT 1 FROM accounts WHERE city = 'Oslo') THEN 'yes' ELSE 'no' END")

group("any all")
ANY_ALL = [
    ("j_users", "id", "score", "SELECT score FROM j_users WHERE city = 'Rome'"),
    ("t_int", "id", "grp", "SELECT a FROM t_nulls WHERE id BETWEEN 10 AND 20"),
    ("t_int", "id", "amount", "SELECT amount FROM j_orders WHERE user_id = 7"),
    ("events", "id", "score", "SELECT v FROM metrics WHERE id < 30"),
    ("t_ts", "ts", "n", "SELECT n FROM t_uuid WHERE label = 'label 1'"),
]
for t, key, c, sub in ANY_ALL:
    add(f"SELECT {key}, {c} FROM {t} WHERE {c} = ANY ({sub}) ORDER BY {key}")
    add(f"SELECT count(*) FROM {t} WHERE {c} < ALL ({sub})")
    add(f"SELECT count(*) FROM {t} WHERE {c} > ANY ({sub})")
    add(f"SELECT {key} FROM {t} WHERE {c} >= ALL ({sub}) ORDER BY {key}")
    add(f"SELECT count(*) FROM {t} WHERE {c} <> ALL ({sub})")
    add(f"SELECT {key} FROM {t} WHERE {c} <= SOME ({sub}) ORDER BY {key} LIMIT 4")
add("SELECT id FROM j_users WHERE score < ALL (SELECT score FROM j_users WHERE id > 1000) ORDER BY id LIMIT 3")
add("SELECT id FROM j_users WHERE score = ANY (SELECT score FROM j_users WHERE id > 1000) ORDER BY id")
add("SELECT id FROM t_int WHERE id = ANY (ARRAY(SELECT id FROM t_int WHERE grp = 4 AND id > 150)) ORDER BY id")
add("SELECT ARRAY(SELECT code FROM j_items WHERE cat = 2 ORDER BY code) AS codes")

# ---------------------------------------------------------------------------- derived tables
group("derived tables")
add("SELECT s.grp, s.c FROM (SELECT grp, count(*) AS c FROM t_int GROUP BY grp) s WHERE s.c > 30 ORDER BY s.grp")
add("SELECT max(c), min(c), sum(c) FROM (SELECT grp, count(*) AS c FROM t_int GROUP BY grp) s")
add("SELECT s.city, s.n, s.total FROM (SELECT city, count(*) AS n, sum(balance) AS total FROM accounts GROUP BY city) s ORDER BY s.total DESC, s.city NULLS FIRST")
add("SELECT * FROM (SELECT id, name FROM j_users WHERE id < 20) u ORDER BY id DESC LIMIT 5")
add("SELECT * FROM (SELECT id, name FROM j_users ORDER BY id LIMIT 10) u WHERE id % 2 = 0 ORDER BY id")
add("SELECT * FROM (SELECT id, score FROM j_users ORDER BY score DESC NULLS LAST, id LIMIT 8) u ORDER BY id")
add("SELECT count(*) FROM (SELECT DISTINCT user_id FROM j_orders) d")
add("SELECT count(*) FROM (SELECT user_id FROM j_orders GROUP BY user_id HAVING count(*) > 5) d")
add("SELECT d.status, avg(d.amount)::numeric(12,2) FROM (SELECT status, amount FROM j_orders WHERE user_id < 50) d GROUP BY d.status ORDER BY d.status NULLS LAST")
add("SELECT u.id, o.cnt FROM j_users u JOIN (SELECT user_id, count(*) AS cnt FROM j_orders GROUP BY user_id) o ON o.user_id = u.id WHERE u.id < 15 ORDER BY u.id")
add("SELECT u.city, sum(o.cnt) FROM j_users u JOIN (SELECT user_id, count(*) AS cnt FROM j_orders GROUP BY user_id) o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("SELECT a.kind, a.n, b.n FROM (SELECT kind, count(*) AS n FROM events GROUP BY kind) a FULL JOIN (SELECT kind, count(*) AS n FROM j_events GROUP BY kind) b ON a.kind = b.kind ORDER BY a.kind, b.kind")
add("SELECT x.g, x.c, y.c FROM (SELECT grp AS g, count(*) AS c FROM t_int GROUP BY grp) x LEFT JOIN (SELECT a AS g, count(*) AS c FROM t_nulls GROUP BY a) y ON y.g = x.g ORDER BY x.g")
add("SELECT * FROM (SELECT a, b, v FROM t_comp WHERE a BETWEEN 3 AND 5) c JOIN (SELECT a, b, v AS pv FROM parts) p USING (a, b) ORDER BY a, b")
add("SELECT * FROM (SELECT u, n FROM t_uuid WHERE n < 10) s ORDER BY u")
add("SELECT * FROM (SELECT ts, n FROM t_ts ORDER BY ts DESC LIMIT 5 OFFSET 3) s ORDER BY ts")
add("SELECT t.total FROM (SELECT sum(amount) AS total FROM j_orders) t")
add("SELECT s.k, s.n FROM (SELECT k, n, note FROM t_text WHERE note IS NULL) s WHERE s.n > 1030 ORDER BY s.k")
add("SELECT v.x, v.y FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) v(x, y) JOIN j_cats c ON c.id = v.x ORDER BY v.x")
add("SELECT c.label, v.w FROM j_cats c JOIN (VALUES (2, 10), (4, 20), (9, 30)) v(id, w) ON v.id = c.id ORDER BY c.id")
add("SELECT m.host, m.mx FROM (SELECT host, max(v) AS mx FROM metrics GROUP BY host) m WHERE m.mx > (SELECT avg(v) FROM metrics) ORDER BY m.host")
add("SELECT count(*), sum(n) FROM (SELECT n FROM t_ts WHERE n > 100 UNION ALL SELECT n FROM t_uuid WHERE n > 250) s")
add("SELECT grp, flag, c FROM (SELECT grp, flag, count(*) AS c FROM t_int GROUP BY grp, flag) s WHERE c > 10 ORDER BY grp, flag")
add("SELECT * FROM (SELECT DISTINCT city FROM j_users) d ORDER BY city NULLS LAST")
add("SELECT * FROM (SELECT id, a, b FROM t_nulls WHERE a IS NULL AND b IS NULL) s ORDER BY id")

# ---------------------------------------------------------------------- correlated subqueries
group("correlated exists")
add("SELECT u.id, u.name FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.amount > 900) ORDER BY u.id")
add("SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id) ORDER BY u.id")
add("SELECT u.id FROM j_users u WHERE NOT EXISTS (SELECT 1 FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id")
add("SELECT count(*) FROM j_users u WHERE EXISTS (SELECT 1 FROM j_events e WHERE e.user_id = u.id AND e.kind = 'buy')")
add("SELECT i.code FROM j_items i WHERE NOT EXISTS (SELECT 1 FROM j_orders o WHERE o.item_code = i.code) ORDER BY i.code")
add("SELECT c.id, c.label FROM j_cats c WHERE EXISTS (SELECT 1 FROM j_items i WHERE i.cat = c.id AND i.price > 40) ORDER BY c.id")
add("SELECT t.a, t.b FROM t_comp t WHERE EXISTS (SELECT 1 FROM parts p WHERE p.a = t.a AND p.b = t.b AND p.tag = 'tag0') ORDER BY t.a, t.b")
add("SELECT t.id FROM t_int t WHERE EXISTS (SELECT 1 FROM t_nulls n WHERE n.id = t.id AND n.a IS NULL) AND t.id < 60 ORDER BY t.id")
add("SELECT a.id FROM accounts a WHERE EXISTS (SELECT 1 FROM accounts b WHERE b.email = a.email AND b.id <> a.id) ORDER BY a.id")
add("SELECT e.id FROM events e WHERE NOT EXISTS (SELECT 1 FROM events f WHERE f.kind = e.kind AND f.score > e.score) ORDER BY e.id")
add("SELECT u.city, count(*) FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND o.status = 'open') GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("SELECT u.id FROM j_users u WHERE EXISTS (SELECT 1 FROM j_orders o WHERE o.user_id = u.id AND EXISTS (SELECT 1 FROM j_items i WHERE i.code = o.item_code AND i.cat = 3)) ORDER BY u.id")

group("correlated scalar")
add("SELECT u.id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) AS n FROM j_users u WHERE u.id < 25 ORDER BY u.id")
add("SELECT u.id, (SELECT sum(amount) FROM j_orders o WHERE o.user_id = u.id) AS total FROM j_users u ORDER BY u.id")
add("SELECT u.id, (SELECT max(o.id) FROM j_orders o WHERE o.user_id = u.id AND o.status = 'paid') AS last_paid FROM j_users u WHERE u.city = 'Oslo' ORDER BY u.id")
add("SELECT i.code, (SELECT c.label FROM j_cats c WHERE c.id = i.cat) AS label FROM j_items i ORDER BY i.code")
add("SELECT o.user_id, o.id, o.amount FROM j_orders o WHERE o.amount = (SELECT max(p.amount) FROM j_orders p WHERE p.user_id = o.user_id) ORDER BY o.user_id, o.id")
add("SELECT o.user_id, o.id FROM j_orders o WHERE o.amount > (SELECT avg(p.amount) * 1.8 FROM j_orders p WHERE p.user_id = o.user_id) ORDER BY o.user_id, o.id")
add("SELECT t.id, t.grp, (SELECT count(*) FROM t_int s WHERE s.grp = t.grp AND s.id < t.id) AS before FROM t_int t WHERE t.id BETWEEN 0 AND 30 ORDER BY t.id")
add("SELECT c.a, c.b, (SELECT p.v FROM parts p WHERE p.a = c.a AND p.b = c.b) AS pv FROM t_comp c WHERE c.a BETWEEN 0 AND 3 ORDER BY c.a, c.b")
add("SELECT e.kind, e.id, e.score FROM events e WHERE e.score = (SELECT min(f.score) FROM events f WHERE f.kind = e.kind) ORDER BY e.kind, e.id")
add("SELECT m.id, m.v - (SELECT min(n.v) FROM metrics n WHERE n.host = m.host) AS d FROM metrics m WHERE m.id % 20 = 0 ORDER BY m.id")
add("SELECT u.id, coalesce((SELECT string_agg(v.page, ',' ORDER BY v.n) FROM j_visits v WHERE v.user_id = u.id), '-') FROM j_users u WHERE u.id < 12 ORDER BY u.id")
add("SELECT u.id FROM j_users u WHERE (SELECT count(*) FROM j_visits v WHERE v.user_id = u.id) = 5 ORDER BY u.id")
add("SELECT u.city, sum((SELECT count(*) FROM j_orders o WHERE o.user_id = u.id)) FROM j_users u GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("SELECT u.id, (SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 1) AS top FROM j_users u WHERE u.id BETWEEN 40 AND 60 ORDER BY u.id")

group("correlated in")
add("SELECT u.id FROM j_users u WHERE u.id IN (SELECT o.user_id FROM j_orders o WHERE o.amount > u.score * 10) ORDER BY u.id")
add("SELECT o.user_id, o.id FROM j_orders o WHERE o.item_code IN (SELECT i.code FROM j_items i WHERE i.price > o.amount / 20) AND o.user_id < 20 ORDER BY o.user_id, o.id")
add("SELECT u.id FROM j_users u WHERE u.score NOT IN (SELECT v.secs FROM j_visits v WHERE v.user_id = u.id) ORDER BY u.id")
add("SELECT t.id FROM t_int t WHERE t.grp IN (SELECT n.a FROM t_nulls n WHERE n.id = t.id) ORDER BY t.id")
add("SELECT c.a, c.b FROM t_comp c WHERE c.b IN (SELECT p.b FROM parts p WHERE p.a = c.a AND p.v % 2 = 0) ORDER BY c.a, c.b")
add("SELECT e.id FROM events e WHERE e.score > ALL (SELECT f.score FROM events f WHERE f.kind = e.kind AND f.id < e.id) ORDER BY e.id")
add("SELECT e.id FROM events e WHERE e.score = ANY (SELECT m.v FROM metrics m WHERE m.id = e.id) ORDER BY e.id")

group("lateral")
add("SELECT u.id, l.id, l.amount FROM j_users u CROSS JOIN LATERAL (SELECT o.id, o.amount FROM j_orders o WHERE o.user_id = u.id ORDER BY o.amount DESC, o.id LIMIT 2) l WHERE u.id < 20 ORDER BY u.id, l.id")
add("SELECT u.id, l.id FROM j_users u LEFT JOIN LATERAL (SELECT o.id FROM j_orders o WHERE o.user_id = u.id AND o.status = 'void' ORDER BY o.id LIMIT 1) l ON true WHERE u.id BETWEEN 50 AND 70 ORDER BY u.id")
add("SELECT u.id, l.n, l.total FROM j_users u, LATERAL (SELECT count(*) AS n, sum(o.amount) AS total FROM j_orders o WHERE o.user_id = u.id) l ORDER BY u.id")
add("SELECT u.id, l.pages FROM j_users u JOIN LATERAL (SELECT string_agg(v.page, '/' ORDER BY v.n) AS pages FROM j_visits v WHERE v.user_id = u.id) l ON true WHERE u.id % 9 = 0 ORDER BY u.id")
add("SELECT i.code, l.cnt FROM j_items i, LATERAL (SELECT count(*) AS cnt FROM j_orders o WHERE o.item_code = i.code) l WHERE l.cnt > 14 ORDER BY i.code")
add("SELECT c.id, l.code, l.price FROM j_cats c CROSS JOIN LATERAL (SELECT i.code, i.price FROM j_items i WHERE i.cat = c.id ORDER BY i.price DESC, i.code LIMIT 2) l ORDER BY c.id, l.code")
add("SELECT t.a, t.b, l.v FROM t_comp t, LATERAL (SELECT p.v FROM parts p WHERE p.a = t.a AND p.b = t.b) l WHERE t.a < 4 ORDER BY t.a, t.b")
add("SELECT g.x, l.c FROM generate_series(0, 12) g(x), LATERAL (SELECT count(*) AS c FROM t_int WHERE grp = g.x) l ORDER BY g.x")
add("SELECT g.x, l.id FROM generate_series(1, 5) g(x) LEFT JOIN LATERAL (SELECT id FROM j_users WHERE score = g.x * 10 ORDER BY id LIMIT 1) l ON true ORDER BY g.x")
add("SELECT e.kind, l.id, l.score FROM (SELECT DISTINCT kind FROM events) e, LATERAL (SELECT id, score FROM events f WHERE f.kind = e.kind ORDER BY score DESC NULLS LAST, id LIMIT 3) l ORDER BY e.kind, l.id")
add("SELECT m.host, l.mx FROM (SELECT DISTINCT host FROM metrics) m, LATERAL (SELECT max(v) AS mx FROM metrics n WHERE n.host = m.host) l ORDER BY m.host")
add("SELECT u.id, x.v FROM j_users u, LATERAL unnest(ARRAY[u.id, u.score]) x(v) WHERE u.id < 6 ORDER BY u.id, x.v")
add("SELECT a.id, l.n FROM accounts a, LATERAL (SELECT count(*) AS n FROM accounts b WHERE b.city = a.city AND b.id < a.id) l WHERE a.id < 30 ORDER BY a.id")
add("SELECT u.id, l.id FROM j_users u LEFT JOIN LATERAL (SELECT e.id FROM j_events e WHERE e.user_id = u.id ORDER BY e.at DESC, e.id LIMIT 1) l ON true WHERE u.id BETWEEN 1 AND 25 ORDER BY u.id")
add("SELECT count(*), sum(l.c) FROM j_users u, LATERAL (SELECT count(*) AS c FROM j_visits v WHERE v.user_id = u.id) l")

# ------------------------------------------------------------------------------------- CTEs
group("cte")
add("WITH big AS (SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id) SELECT user_id, s FROM big WHERE s > 5000 ORDER BY user_id")
add("WITH c AS (SELECT grp, count(*) AS n FROM t_int GROUP BY grp) SELECT a.grp, a.n, b.n FROM c a JOIN c b ON b.grp = a.grp + 1 ORDER BY a.grp")
add("WITH c AS (SELECT id, score FROM j_users WHERE score IS NOT NULL) SELECT (SELECT count(*) FROM c), (SELECT max(score) FROM c)")
add("WITH a AS (SELECT id FROM j_users WHERE city = 'Rome'), b AS (SELECT user_id FROM j_orders WHERE amount > 800) SELECT a.id FROM a WHERE a.id IN (SELECT user_id FROM b) ORDER BY a.id")
add("WITH a AS (SELECT id FROM j_users WHERE city = 'Rome'), b AS (SELECT id FROM a WHERE id > 50) SELECT * FROM b ORDER BY id")
add("WITH a AS MATERIALIZED (SELECT id, name FROM j_users WHERE id < 30) SELECT * FROM a WHERE id % 3 = 0 ORDER BY id")
add("WITH a AS NOT MATERIALIZED (SELECT id, name FROM j_users WHERE id < 30) SELECT * FROM a WHERE id % 3 = 0 ORDER BY id")
add("WITH a AS MATERIALIZED (SELECT user_id, count(*) AS n FROM j_orders GROUP BY user_id) SELECT x.user_id, x.n FROM a x JOIN a y ON y.user_id = x.user_id - 1 AND y.n = x.n ORDER BY x.user_id")
add("WITH a AS NOT MATERIALIZED (SELECT * FROM t_comp WHERE a = 7) SELECT count(*), sum(v) FROM a")
add("WITH t AS (SELECT * FROM t_text WHERE k LIKE 'Key%') SELECT k, n FROM t WHERE n % 4 = 0 ORDER BY k")
add("WITH t AS (SELECT u, n FROM t_uuid WHERE n <= 20) SELECT t1.n, t2.n FROM t t1 JOIN t t2 ON t2.n = t1.n * 2 ORDER BY t1.n")
add("WITH s AS (SELECT payload, count(*) AS c FROM t_ts GROUP BY payload) SELECT * FROM s ORDER BY c DESC, payload")
add("WITH s AS (SELECT kind, score FROM events WHERE score > 50) SELECT kind, count(*), max(score) FROM s GROUP BY kind ORDER BY kind")
add("WITH s AS (SELECT id FROM t_nulls WHERE c IS NULL) SELECT count(*) FROM s")
add("WITH x AS (SELECT 1 AS v UNION ALL SELECT 2) SELECT v FROM x ORDER BY v")
add("WITH x AS (SELECT id FROM j_users ORDER BY id DESC LIMIT 5) SELECT * FROM x ORDER BY id")
add("WITH x AS (SELECT host, v FROM metrics WHERE v > 45) SELECT host, count(*) FROM x GROUP BY host ORDER BY host")
add("WITH u AS (SELECT id, city FROM j_users), o AS (SELECT user_id, amount FROM j_orders) SELECT u.city, count(*), sum(o.amount) FROM u JOIN o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("WITH u AS (SELECT id FROM j_users WHERE id < 10) SELECT u.id, (SELECT count(*) FROM j_orders o WHERE o.user_id = u.id) FROM u ORDER BY u.id")
add("WITH c AS (SELECT cat, count(*) AS n FROM j_items GROUP BY cat) SELECT j.label, c.n FROM j_cats j LEFT JOIN c ON c.cat = j.id ORDER BY j.id")
add("WITH a AS (SELECT id, balance FROM accounts WHERE balance > 400) SELECT count(*), min(id), max(id) FROM a")
add("WITH a AS (SELECT * FROM parts WHERE tag IS NULL) SELECT a, b FROM a ORDER BY a, b LIMIT 10 OFFSET 5")
add("WITH recent AS (SELECT * FROM j_events WHERE at >= '2024-01-10') SELECT kind, count(*) FROM recent GROUP BY kind ORDER BY kind")
add("WITH q AS (SELECT grp, amount FROM t_int WHERE flag) SELECT grp, sum(amount) FROM q GROUP BY grp ORDER BY grp")
add("WITH q AS (SELECT id FROM t_int), r AS (SELECT id FROM q WHERE id > 190) SELECT * FROM r ORDER BY id")
add("WITH a AS (SELECT user_id FROM j_orders), b AS (SELECT user_id FROM j_visits) SELECT count(*) FROM (SELECT user_id FROM a INTERSECT SELECT user_id FROM b) s")
add("WITH m AS MATERIALIZED (SELECT id, score FROM j_users) SELECT count(*) FROM m WHERE score IS NULL")
add("WITH m AS (SELECT id, score FROM j_users) SELECT m1.id FROM m m1 WHERE m1.score = (SELECT max(score) FROM m) ORDER BY m1.id")
add("SELECT * FROM (WITH z AS (SELECT id FROM j_users WHERE id < 4) SELECT * FROM z) s ORDER BY id")
add("SELECT u.id, (WITH c AS (SELECT count(*) AS n FROM j_orders o WHERE o.user_id = u.id) SELECT n FROM c) FROM j_users u WHERE u.id < 6 ORDER BY u.id")

group("recursive cte")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r ORDER BY n")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n * 3) % 17 FROM r) SELECT n FROM r ORDER BY n")
add("WITH RECURSIVE r(id, depth) AS (SELECT id, 0 FROM j_users WHERE id = 1 UNION ALL SELECT u.id, r.depth + 1 FROM r JOIN j_users u ON u.id = r.id * 2) SELECT id, depth FROM r ORDER BY id")
add("WITH RECURSIVE r(id, depth) AS (SELECT id, 0 FROM t_int WHERE id = 1 UNION ALL SELECT t.id, r.depth + 1 FROM r JOIN t_int t ON t.id = r.id + 7 WHERE r.depth < 30) SELECT id, depth FROM r ORDER BY id")
add("WITH RECURSIVE r(id) AS (SELECT min(id) FROM j_users UNION ALL SELECT (SELECT min(u.id) FROM j_users u WHERE u.id > r.id AND u.id % 10 = 0) FROM r WHERE r.id IS NOT NULL) SELECT id FROM r WHERE id IS NOT NULL ORDER BY id")
add("WITH RECURSIVE chain(code, hops) AS (SELECT code, 0 FROM j_items WHERE code = 'i01' UNION ALL SELECT i.code, c.hops + 1 FROM chain c JOIN j_items i ON i.code = 'i' || lpad((substr(c.code, 2)::int * 2)::text, 2, '0') WHERE c.hops < 6) SELECT * FROM chain ORDER BY hops")
add("WITH RECURSIVE r(u, n) AS (SELECT user_id, n FROM j_visits WHERE user_id = 5 AND n = 1 UNION ALL SELECT v.user_id, v.n FROM r JOIN j_visits v ON v.user_id = r.u AND v.n = r.n + 1) SELECT u, n FROM r ORDER BY u, n")
add("WITH RECURSIVE r(a, total) AS (SELECT 0, 0::numeric UNION ALL SELECT r.a + 1, r.total + (SELECT sum(v) FROM t_comp WHERE t_comp.a = r.a + 1) FROM r WHERE r.a < 8) SELECT a, total FROM r ORDER BY a")
add("WITH RECURSIVE r(ts, k) AS (SELECT min(ts), 1 FROM t_ts UNION ALL SELECT (SELECT min(t.ts) FROM t_ts t WHERE t.ts > r.ts + interval '3 days'), k + 1 FROM r WHERE k < 10) SELECT ts, k FROM r ORDER BY k")
add("WITH RECURSIVE r(id) AS (SELECT 1::int8 UNION SELECT o.user_id + 3 FROM r JOIN j_orders o ON o.user_id = r.id WHERE r.id < 100) SELECT count(*), max(id) FROM r")
add("WITH RECURSIVE fib(i, a, b) AS (SELECT 1, 0::numeric, 1::numeric UNION ALL SELECT i + 1, b, a + b FROM fib WHERE i < 40) SELECT i, a FROM fib ORDER BY i")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 12) SELECT r.n, count(t.id) FROM r LEFT JOIN t_int t ON t.grp = r.n GROUP BY r.n ORDER BY r.n")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5), c AS (SELECT id, name FROM j_users) SELECT r.n, c.name FROM r JOIN c ON c.id = r.n ORDER BY r.n")
add("WITH RECURSIVE t(x) AS (SELECT id FROM j_cats WHERE id = 1 UNION ALL SELECT c.id FROM t JOIN j_cats c ON c.id = t.x + 2) SELECT x FROM t ORDER BY x")
add("WITH RECURSIVE t(x, path) AS (SELECT id, label FROM j_cats WHERE id = 1 UNION ALL SELECT c.id, t.path || '>' || c.label FROM t JOIN j_cats c ON c.id = t.x + 1) SELECT x, path FROM t ORDER BY x")
add("WITH RECURSIVE r(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM r WHERE g < 12) SELECT g FROM r WHERE g NOT IN (SELECT grp FROM t_int) ORDER BY g")
add("WITH RECURSIVE r(id) AS (SELECT id FROM j_users WHERE id IN (1, 2) UNION ALL SELECT r.id + 40 FROM r WHERE r.id < 100) SELECT r.id, u.name FROM r LEFT JOIN j_users u ON u.id = r.id ORDER BY r.id")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT count(*) FROM r, j_orders WHERE j_orders.user_id = r.n")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 5")
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50) SEARCH DEPTH FIRST BY n SET ord SELECT n FROM r WHERE n % 10 = 0 ORDER BY ord")

# ---------------------------------------------------------------------------- set operations
group("set operations")
SETS = [
    ("SELECT user_id FROM j_orders WHERE amount > 700", "SELECT user_id FROM j_visits WHERE secs > 200", "user_id"),
    ("SELECT id FROM j_users WHERE city = 'Oslo'", "SELECT user_id FROM j_events WHERE kind = 'view'", "id"),
    ("SELECT grp FROM t_int", "SELECT a FROM t_nulls", "grp"),
    ("SELECT city FROM accounts", "SELECT city FROM j_users", "city"),
    ("SELECT a, b FROM t_comp WHERE v % 3 = 0", "SELECT a, b FROM parts WHERE v % 2 = 0", "a, b"),
    ("SELECT kind FROM events", "SELECT kind FROM j_events", "kind"),
    ("SELECT n FROM t_uuid WHERE n < 60", "SELECT n FROM t_ts WHERE n BETWEEN 40 AND 90", "n"),
]
OPS = ["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]
for a, b, cols in SETS:
    for op in OPS:
        add(f"{a} {op} {b}")
    add(f"{a} UNION {b} ORDER BY {cols}")
    pos = ", ".join(str(k + 1) for k in range(len(cols.split(","))))
    add(f"{b} EXCEPT {a} ORDER BY {pos} LIMIT 5")
    add(f"SELECT count(*) FROM ({a} UNION ALL {b}) s")
    add(f"SELECT count(*) FROM ({a} INTERSECT ALL {b}) s")

group("nested set operations")
add("(SELECT id FROM j_users WHERE id < 10 UNION SELECT user_id FROM j_orders WHERE id < 30) EXCEPT SELECT user_id FROM j_visits WHERE n = 3 ORDER BY 1")
add("SELECT id FROM j_users WHERE id < 10 UNION (SELECT user_id FROM j_orders WHERE id < 30 EXCEPT SELECT user_id FROM j_visits WHERE n = 3) ORDER BY 1")
add("SELECT grp FROM t_int WHERE flag INTERSECT SELECT a FROM t_nulls UNION SELECT n FROM t_text WHERE n < 3 ORDER BY 1")
add("SELECT grp FROM t_int WHERE flag UNION ALL SELECT grp FROM t_int WHERE NOT flag INTERSECT SELECT a FROM t_nulls")
add("(SELECT grp FROM t_int WHERE flag UNION ALL SELECT grp FROM t_int WHERE NOT flag) INTERSECT ALL SELECT a FROM t_nulls")
add("(SELECT grp FROM t_int EXCEPT ALL SELECT a FROM t_nulls) EXCEPT ALL SELECT n FROM t_uuid")
add("SELECT city FROM j_users EXCEPT (SELECT city FROM accounts INTERSECT SELECT city FROM accounts WHERE tier = 2) ORDER BY 1 NULLS FIRST")
add("SELECT id, 'u' AS src FROM j_users WHERE id < 5 UNION ALL SELECT user_id, 'o' FROM j_orders WHERE user_id < 3 UNION ALL SELECT user_id, 'v' FROM j_visits WHERE user_id < 3 ORDER BY 1, 2 /*ties*/")
add("SELECT id, name FROM j_users WHERE id < 5 UNION SELECT id, name FROM j_users WHERE id BETWEEN 3 AND 8 ORDER BY id DESC LIMIT 4 OFFSET 1")
add("SELECT user_id FROM j_orders UNION SELECT user_id FROM j_visits ORDER BY user_id LIMIT 10 OFFSET 100")
add("SELECT user_id FROM j_orders UNION ALL SELECT user_id FROM j_visits ORDER BY user_id DESC LIMIT 7")
add("SELECT user_id FROM j_orders INTERSECT SELECT id FROM j_users ORDER BY 1 OFFSET 110")
add("SELECT a FROM t_comp EXCEPT SELECT a FROM parts ORDER BY a")
add("SELECT * FROM (SELECT id FROM j_users UNION SELECT user_id FROM j_orders) s WHERE id > 115 ORDER BY id")
add("SELECT count(*), count(DISTINCT id) FROM (SELECT id FROM j_users UNION ALL SELECT user_id FROM j_orders) s")
add("SELECT s.k, count(*) FROM (SELECT kind AS k FROM events UNION ALL SELECT kind FROM j_events) s GROUP BY s.k ORDER BY s.k")
add("SELECT u FROM t_uuid WHERE n < 5 UNION SELECT id FROM j_events WHERE user_id = 3 ORDER BY 1")
add("SELECT ts FROM t_ts WHERE n < 3 UNION ALL SELECT at FROM j_events WHERE user_id = 1 UNION SELECT ts FROM events WHERE id = 7 ORDER BY 1")
add("SELECT id::text AS x FROM j_users WHERE id < 3 UNION SELECT code FROM j_items WHERE code < 'i03' UNION SELECT k FROM t_text WHERE k < 'Key11' ORDER BY x")
add("SELECT 1 AS a, 'x' AS b UNION ALL SELECT grp, name FROM t_int WHERE id = 7 UNION ALL SELECT n, note FROM t_text WHERE k = 'key007' ORDER BY a, b")
add("SELECT id FROM j_users UNION SELECT user_id FROM j_orders INTERSECT SELECT user_id FROM j_events EXCEPT SELECT 5 ORDER BY 1")
add("WITH a AS (SELECT id FROM j_users WHERE id % 2 = 0), b AS (SELECT id FROM j_users WHERE id % 3 = 0) SELECT id FROM a INTERSECT SELECT id FROM b ORDER BY id")
add("WITH a AS (SELECT id FROM j_users WHERE id % 2 = 0) SELECT id FROM a EXCEPT SELECT user_id FROM j_orders ORDER BY id")
add("SELECT grp, count(*) FROM t_int GROUP BY grp UNION ALL SELECT -1, count(*) FROM t_int ORDER BY 1")
add("SELECT city, count(*) FROM j_users GROUP BY city UNION SELECT city, count(*) FROM accounts GROUP BY city ORDER BY 1 NULLS LAST, 2")
add("SELECT DISTINCT status FROM j_orders UNION ALL SELECT DISTINCT status FROM j_orders ORDER BY 1 NULLS FIRST /*ties*/")
add("SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders UNION SELECT user_id FROM j_events) ORDER BY id")
add("SELECT id FROM j_users WHERE id NOT IN (SELECT user_id FROM j_orders INTERSECT SELECT user_id FROM j_visits) ORDER BY id")
add("SELECT id FROM j_users WHERE id IN (SELECT user_id FROM j_orders EXCEPT SELECT user_id FROM j_events WHERE user_id IS NOT NULL) ORDER BY id")
add("SELECT max(x), min(x) FROM (SELECT amount AS x FROM j_orders UNION SELECT balance FROM accounts UNION SELECT amount FROM t_int) s")
add("SELECT a, b FROM t_comp WHERE a = 1 UNION SELECT a, b FROM parts WHERE a = 1 ORDER BY b, a")
add("VALUES (1), (2), (200) EXCEPT SELECT id FROM t_int ORDER BY 1")
add("SELECT id FROM t_int WHERE id < -190 UNION ALL VALUES (5), (6) ORDER BY 1")

# ------------------------------------------------------------------------- window functions
group("window ranking")
WIN_T = [
    # (table, partition column, order expression (total with key), key)
    ("t_int", "grp", "amount, id", "id"),
    ("j_orders", "user_id", "amount DESC, id", "user_id, id"),
    ("j_orders", "status", "amount, user_id, id", "user_id, id"),
    ("j_users", "city", "score NULLS FIRST, id", "id"),
    ("events", "kind", "score, id", "id"),
    ("t_comp", "a", "v, b", "a, b"),
    ("t_uuid", "label", "n, u", "u"),
    ("accounts", "tier", "balance, id", "id"),
]
for t, part, order, key in WIN_T:
    add(f"SELECT {key}, row_number() OVER (PARTITION BY {part} ORDER BY {order}) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, rank() OVER (PARTITION BY {part} ORDER BY {order.split(',')[0]}), dense_rank() OVER (PARTITION BY {part} ORDER BY {order.split(',')[0]}) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, row_number() OVER (ORDER BY {order}) AS rn FROM {t} ORDER BY rn LIMIT 12")
    add(f"SELECT {key}, round(percent_rank() OVER (PARTITION BY {part} ORDER BY {order.split(',')[0]})::numeric, 6), round(cume_dist() OVER (PARTITION BY {part} ORDER BY {order.split(',')[0]})::numeric, 6) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, ntile(4) OVER (PARTITION BY {part} ORDER BY {order}) FROM {t} ORDER BY {key}")
    add(f"SELECT * FROM (SELECT {key}, row_number() OVER (PARTITION BY {part} ORDER BY {order}) AS rn FROM {t}) s WHERE rn <= 2 ORDER BY {key}")

group("window offsets and values")
for t, part, order, key in WIN_T:
    v = {"t_int": "amount", "j_orders": "amount", "j_users": "score", "events": "score",
         "t_comp": "v", "t_uuid": "n", "accounts": "balance"}[t]
    w = f"PARTITION BY {part} ORDER BY {order}"
    add(f"SELECT {key}, lag({v}) OVER ({w}), lead({v}) OVER ({w}) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, lag({v}, 2, -1) OVER ({w}), lead({v}, 3, 0) OVER ({w}) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, first_value({v}) OVER ({w}), last_value({v}) OVER ({w}) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, last_value({v}) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), nth_value({v}, 2) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM {t} ORDER BY {key}")
    add(f"SELECT {key}, {v} - lag({v}) OVER (ORDER BY {order}) AS d FROM {t} ORDER BY {key} LIMIT 20")
add("SELECT id, lag(name, 1, 'none') OVER (ORDER BY id), lead(city, 1, 'end') OVER (ORDER BY id) FROM j_users ORDER BY id")
add("SELECT id, lag(id, 0) OVER (ORDER BY id), lead(id, 5) OVER (ORDER BY id) FROM j_users WHERE id < 15 ORDER BY id")
add("SELECT k, lag(note) OVER (ORDER BY k), lead(note, 2) OVER (ORDER BY k) FROM t_text ORDER BY k")
add("SELECT ts, n - lag(n) OVER (ORDER BY ts) FROM t_ts ORDER BY ts LIMIT 15")
add("SELECT u, first_value(u) OVER (PARTITION BY label ORDER BY n), n FROM t_uuid ORDER BY u")
add("SELECT id, nth_value(a, 3) OVER (ORDER BY id) FROM t_nulls WHERE id < 20 ORDER BY id")
add("SELECT id, lag(a) IGNORE NULLS OVER (ORDER BY id) FROM t_nulls WHERE id < 20 ORDER BY id")

group("window frames")
FRAMES = [
    "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
    "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
    "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "ROWS UNBOUNDED PRECEDING",
    "ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING",
    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    "GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
    "GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING",
    "ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW",
    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES",
    "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP",
    "GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE NO OTHERS",
]
for f in FRAMES:
    # ROWS frames need a total window order; RANGE / GROUPS frames count peers alike.
    o = "amount, id" if f.startswith("ROWS") else "amount"
    add(f"SELECT id, sum(amount) OVER (PARTITION BY grp ORDER BY {o} {f}), count(*) OVER (PARTITION BY grp ORDER BY {o} {f}) FROM t_int ORDER BY id")
    o2 = "score, id" if f.startswith("ROWS") else "score"
    add(f"SELECT id, min(score) OVER (PARTITION BY kind ORDER BY {o2} {f}), max(id) OVER (PARTITION BY kind ORDER BY {o2} {f}) FROM events ORDER BY id")
add("SELECT id, sum(amount) OVER (ORDER BY amount RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM t_int WHERE grp = 3 ORDER BY id")
add("SELECT user_id, id, avg(amount) OVER (PARTITION BY user_id ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)::numeric(12,4) FROM j_orders WHERE user_id < 10 ORDER BY user_id, id")
add("SELECT ts, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '1 day' PRECEDING AND CURRENT ROW) FROM t_ts ORDER BY ts")
add("SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN interval '2 hours' PRECEDING AND interval '2 hours' FOLLOWING) FROM events ORDER BY id")
add("SELECT id, sum(v) OVER (PARTITION BY host ORDER BY id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING EXCLUDE CURRENT ROW) FROM metrics ORDER BY id")
add("SELECT id, first_value(v) OVER (PARTITION BY host ORDER BY v GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING), id FROM metrics ORDER BY id")
add("SELECT a, b, sum(v) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t_comp ORDER BY a, b")
add("SELECT id, count(a) OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW), sum(c) OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) FROM t_nulls ORDER BY id")
add("SELECT id, string_agg(name, ',') OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM j_users ORDER BY id")
add("SELECT id, array_agg(id) OVER (PARTITION BY city ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM j_users ORDER BY id")

group("window aggregates and named windows")
add("SELECT id, grp, sum(amount) OVER (PARTITION BY grp), count(*) OVER (PARTITION BY grp), max(amount) OVER () FROM t_int ORDER BY id")
add("SELECT id, city, avg(score) OVER (PARTITION BY city)::numeric(10,3) FROM j_users ORDER BY id")
add("SELECT user_id, id, sum(amount) OVER (PARTITION BY user_id ORDER BY id) AS running FROM j_orders ORDER BY user_id, id")
add("SELECT user_id, id, amount * 100 / sum(amount) OVER (PARTITION BY user_id) AS pct FROM j_orders WHERE user_id < 30 ORDER BY user_id, id")
add("SELECT status, id, user_id, count(*) OVER (PARTITION BY status) FROM j_orders WHERE id % 25 = 0 ORDER BY user_id, id")
add("SELECT id, row_number() OVER w, rank() OVER w, sum(score) OVER w FROM j_users WINDOW w AS (PARTITION BY city ORDER BY id) ORDER BY id")
add("SELECT id, sum(amount) OVER w, avg(amount) OVER w FROM t_int WINDOW w AS (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) ORDER BY id")
add("SELECT id, count(*) OVER w1, count(*) OVER w2 FROM events WINDOW w1 AS (PARTITION BY kind), w2 AS (w1 ORDER BY score, id) ORDER BY id")
add("SELECT id, min(v) OVER w, max(v) OVER w FROM metrics WINDOW w AS (PARTITION BY host ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) ORDER BY id")
add("SELECT a, b, v, sum(v) OVER (PARTITION BY a), sum(v) OVER (PARTITION BY b) FROM t_comp ORDER BY a, b")
add("SELECT grp, count(*), sum(count(*)) OVER (ORDER BY grp) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT city, sum(score), rank() OVER (ORDER BY sum(score) DESC NULLS LAST) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT user_id, count(*) AS n, dense_rank() OVER (ORDER BY count(*) DESC) FROM j_orders GROUP BY user_id ORDER BY user_id")
add("SELECT kind, max(score), lag(max(score)) OVER (ORDER BY kind) FROM events GROUP BY kind ORDER BY kind")
add("SELECT DISTINCT city, count(*) OVER (PARTITION BY city) FROM j_users ORDER BY city NULLS FIRST")
add("SELECT DISTINCT grp, max(amount) OVER (PARTITION BY grp) FROM t_int ORDER BY grp")
add("SELECT id, bool_and(flag) OVER (PARTITION BY grp ORDER BY id), bool_or(flag) OVER (PARTITION BY grp) FROM t_int WHERE id BETWEEN -20 AND 20 ORDER BY id")
add("SELECT id, count(*) FILTER (WHERE flag) OVER (ORDER BY id) FROM t_int WHERE id BETWEEN 0 AND 40 ORDER BY id")
add("SELECT id, tier, sum(balance) OVER (PARTITION BY tier ORDER BY id), count(city) OVER (PARTITION BY tier) FROM accounts ORDER BY id")
add("SELECT u.id, o.id, sum(o.amount) OVER (PARTITION BY u.city ORDER BY o.user_id, o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 20 ORDER BY u.id, o.id")
add("SELECT u.city, o.status, count(*), sum(count(*)) OVER (PARTITION BY u.city) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city, o.status ORDER BY u.city NULLS FIRST, o.status NULLS FIRST")
add("SELECT * FROM (SELECT user_id, id, amount, rank() OVER (PARTITION BY user_id ORDER BY amount DESC) AS r FROM j_orders) s WHERE r = 1 ORDER BY user_id, id")
add("SELECT id, score, score - avg(score) OVER ()::numeric(10,4) FROM j_users ORDER BY id LIMIT 10")
add("SELECT u, n, n * 1.0 / sum(n) OVER () FROM t_uuid ORDER BY n DESC, u LIMIT 5")
add("SELECT ts, n, count(*) OVER (PARTITION BY date_trunc('day', ts)) FROM t_ts ORDER BY ts LIMIT 30")
add("SELECT id, row_number() OVER (ORDER BY id) FROM j_users ORDER BY id DESC LIMIT 5 OFFSET 2")
add("SELECT id, max(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t_int ORDER BY id LIMIT 8")
add("SELECT k, n, sum(n) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t_text ORDER BY k")
add("SELECT code, price, sum(price) OVER (PARTITION BY cat ORDER BY price, code) FROM j_items ORDER BY code")
add("SELECT id, ntile(3) OVER (ORDER BY id), percent_rank() OVER (ORDER BY id) FROM j_cats ORDER BY id")

# ------------------------------------------------------------------------------- aggregates
group("distinct on")
add("SELECT DISTINCT ON (grp) grp, id, amount FROM t_int ORDER BY grp, amount DESC, id")
add("SELECT DISTINCT ON (user_id) user_id, id, amount FROM j_orders ORDER BY user_id, amount DESC, id")
add("SELECT DISTINCT ON (status) status, user_id, id FROM j_orders ORDER BY status NULLS FIRST, user_id, id")
add("SELECT DISTINCT ON (city) city, id, name FROM j_users ORDER BY city, score DESC NULLS LAST, id")
add("SELECT DISTINCT ON (kind) kind, id, score FROM events ORDER BY kind, score, id")
add("SELECT DISTINCT ON (a) a, b, v FROM t_comp ORDER BY a DESC, v, b")
add("SELECT DISTINCT ON (label) label, n FROM t_uuid ORDER BY label, n DESC")
add("SELECT DISTINCT ON (host) host, id, v FROM metrics ORDER BY host, v DESC, id")
add("SELECT DISTINCT ON (tier) tier, id, balance FROM accounts ORDER BY tier NULLS FIRST, balance DESC, id")
add("SELECT DISTINCT ON (cat) cat, code FROM j_items ORDER BY cat, price, code")
add("SELECT DISTINCT ON (payload) payload, ts FROM t_ts ORDER BY payload, ts DESC")
add("SELECT DISTINCT ON (grp, flag) grp, flag, id FROM t_int ORDER BY grp, flag, id LIMIT 9")
add("SELECT DISTINCT ON (u.city) u.city, o.user_id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id ORDER BY u.city NULLS FIRST, o.amount DESC, o.user_id, o.id")
add("SELECT * FROM (SELECT DISTINCT ON (user_id) user_id, n FROM j_visits ORDER BY user_id, n) s ORDER BY user_id")
add("SELECT DISTINCT ON (user_id) user_id, n, secs FROM j_visits ORDER BY user_id, secs DESC, n")
add("SELECT count(*) FROM (SELECT DISTINCT ON (user_id) user_id FROM j_orders ORDER BY user_id) s")

group("ordered aggregates")
add("SELECT grp, string_agg(name, ',' ORDER BY id) FROM t_int WHERE id BETWEEN -30 AND 30 GROUP BY grp ORDER BY grp")
add("SELECT city, string_agg(name, '; ' ORDER BY name) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT string_agg(DISTINCT status, ',' ORDER BY status) FROM j_orders")
add("SELECT user_id, array_agg(id ORDER BY id) FROM j_orders WHERE user_id < 15 GROUP BY user_id ORDER BY user_id")
add("SELECT user_id, array_agg(amount ORDER BY amount DESC, id) FROM j_orders WHERE user_id BETWEEN 60 AND 70 GROUP BY user_id ORDER BY user_id")
add("SELECT array_agg(DISTINCT cat ORDER BY cat) FROM j_items")
add("SELECT kind, json_agg(id ORDER BY id) FROM events WHERE score > 80 GROUP BY kind ORDER BY kind")
add("SELECT kind, jsonb_agg(jsonb_build_object('id', id, 's', score) ORDER BY id) FROM events WHERE id < 30 GROUP BY kind ORDER BY kind")
add("SELECT json_object_agg(id, label ORDER BY id) FROM j_cats")
add("SELECT json_object_agg(code, price ORDER BY code) FROM j_items WHERE cat = 1")
add("SELECT jsonb_object_agg(code, price) FROM j_items WHERE cat = 2")
add("SELECT a, string_agg(b, '|' ORDER BY b) FROM t_comp WHERE a < 3 GROUP BY a ORDER BY a")
add("SELECT label, array_agg(n ORDER BY n) FROM t_uuid WHERE n < 60 GROUP BY label ORDER BY label")
add("SELECT payload, string_agg(n::text, ',' ORDER BY ts) FROM t_ts WHERE n < 40 GROUP BY payload ORDER BY payload")
add("SELECT u.id, string_agg(o.item_code, ',' ORDER BY o.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE u.id < 10 GROUP BY u.id ORDER BY u.id")
add("SELECT c.label, array_agg(i.code ORDER BY i.code) FROM j_cats c LEFT JOIN j_items i ON i.cat = c.id GROUP BY c.label ORDER BY c.label")
add("SELECT host, array_agg(v ORDER BY id) FILTER (WHERE v > 40) FROM metrics GROUP BY host ORDER BY host")
add("SELECT tier, json_agg(email ORDER BY id) FROM accounts WHERE id < 40 GROUP BY tier ORDER BY tier NULLS LAST")
add("SELECT string_agg(k, ',' ORDER BY k DESC) FROM t_text WHERE n BETWEEN 1010 AND 1020")
add("SELECT array_agg(u ORDER BY u) FROM t_uuid WHERE n < 6")
add("SELECT array_agg(b ORDER BY id) FROM t_nulls WHERE id < 15")
add("SELECT grp, array_agg(DISTINCT flag ORDER BY flag) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT string_agg(name, ',' ORDER BY id) FROM j_users WHERE id IN (SELECT user_id FROM j_orders WHERE amount > 985)")
add("SELECT jsonb_agg(DISTINCT city ORDER BY city) FROM j_users")
add("SELECT json_agg(x ORDER BY x) FROM (SELECT id AS x FROM j_users WHERE id < 5 UNION SELECT user_id FROM j_orders WHERE user_id < 3) s")

group("statistical aggregates")
STAT_T = [
    # (table, group column, numeric column, second numeric column)
    ("t_int", "flag", "amount", "grp"),
    ("j_orders", "status", "amount", "id"),
    ("j_users", "city", "score", "id"),
    ("events", "kind", "score", "id"),
    ("metrics", "host", "v", "id"),
    ("t_comp", "b", "v", "a"),
]
for t, g, x, y in STAT_T:
    add(f"SELECT {g}, stddev({x}), stddev_samp({x}), stddev_pop({x}) FROM {t} GROUP BY {g} ORDER BY {g} NULLS FIRST")
    add(f"SELECT {g}, variance({x}), var_samp({x}), var_pop({x}) FROM {t} GROUP BY {g} ORDER BY {g} NULLS FIRST")
    add(f"SELECT round(corr({x}, {y})::numeric, 8), round(covar_pop({x}, {y})::numeric, 4), round(covar_samp({x}, {y})::numeric, 4) FROM {t}")
    add(f"SELECT {g}, round(regr_slope({x}, {y})::numeric, 8), round(regr_intercept({x}, {y})::numeric, 6), regr_count({x}, {y}) FROM {t} GROUP BY {g} ORDER BY {g} NULLS FIRST")
    add(f"SELECT round(regr_r2({x}, {y})::numeric, 8), round(regr_avgx({x}, {y})::numeric, 6), round(regr_avgy({x}, {y})::numeric, 6), round(regr_sxx({x}, {y})::numeric, 2), round(regr_syy({x}, {y})::numeric, 2), round(regr_sxy({x}, {y})::numeric, 2) FROM {t}")
    add(f"SELECT {g}, percentile_cont(0.5) WITHIN GROUP (ORDER BY {x}), percentile_disc(0.25) WITHIN GROUP (ORDER BY {x}), mode() WITHIN GROUP (ORDER BY {x}) FROM {t} GROUP BY {g} ORDER BY {g} NULLS FIRST")
add("SELECT percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY amount) FROM j_orders")
add("SELECT percentile_disc(ARRAY[0, 0.33, 1]) WITHIN GROUP (ORDER BY score) FROM j_users")
add("SELECT mode() WITHIN GROUP (ORDER BY city) FROM j_users")
add("SELECT mode() WITHIN GROUP (ORDER BY kind) FROM j_events")
add("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ts) FROM t_ts")
add("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY u) FROM t_uuid")
add("SELECT rank(50) WITHIN GROUP (ORDER BY score), dense_rank(50) WITHIN GROUP (ORDER BY score), round(percent_rank(50) WITHIN GROUP (ORDER BY score)::numeric, 6), round(cume_dist(50) WITHIN GROUP (ORDER BY score)::numeric, 6) FROM j_users")
add("SELECT stddev(c), variance(c) FROM t_nulls")
add("SELECT stddev(i8), variance(i2), stddev_pop(num) FROM t_types WHERE id < 150")
add("SELECT round(stddev(f8)::numeric, 6), round(var_pop(f4)::numeric, 4) FROM t_types WHERE id < 150 AND f8 <> 'NaN' AND f4 <> 'NaN'")
add("SELECT stddev(amount) FROM j_orders WHERE user_id = 1")
add("SELECT stddev_samp(amount), var_samp(amount), stddev_pop(amount) FROM j_orders WHERE user_id = 1 AND id = 1")

group("boolean and bit aggregates")
add("SELECT grp, bool_and(flag), bool_or(flag), every(flag) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT bool_and(flag), bool_or(flag), every(id > -1000) FROM t_int")
add("SELECT bool_and(bo), bool_or(bo), every(bo) FROM t_types")
add("SELECT city, bool_and(score > 20), bool_or(score > 90) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT kind, every(score IS NOT NULL), bool_or(payload IS NULL) FROM events GROUP BY kind ORDER BY kind")
add("SELECT grp, bit_and(id), bit_or(id), bit_xor(id) FROM t_int WHERE id BETWEEN -100 AND 100 GROUP BY grp ORDER BY grp")
add("SELECT bit_and(n), bit_or(n) FROM t_uuid")
add("SELECT host, bit_or(v), bit_and(v + 64) FROM metrics GROUP BY host ORDER BY host")
add("SELECT bit_and(i2), bit_or(i2), bit_and(i8), bit_or(i8) FROM t_types")
add("SELECT status, bit_or(id), bit_and(user_id) FROM j_orders GROUP BY status ORDER BY status NULLS LAST")
add("SELECT bool_and(a > 0), bool_or(a > 9), bit_or(a) FROM t_nulls")
add("SELECT bool_and(flag) FROM t_int WHERE id > 1000000000000000000 AND id < 0")

group("grouping sets rollup cube")
GS = [
    # (table, two grouping columns, aggregate list)
    ("t_int", "grp", "flag", "count(*), sum(amount)"),
    ("j_orders", "status", "item_code", "count(*), max(amount)"),
    ("j_users", "city", "score", "count(*), min(id)"),
    ("events", "kind", "payload", "count(*), sum(score)"),
    ("accounts", "city", "tier", "count(*), sum(balance)"),
    ("t_comp", "a", "b", "count(*), sum(v)"),
]
for t, c1, c2, aggs in GS:
    o = f"{c1} NULLS FIRST, {c2} NULLS FIRST"
    add(f"SELECT {c1}, {c2}, {aggs} FROM {t} GROUP BY ROLLUP ({c1}, {c2}) ORDER BY {o}, 3")
    add(f"SELECT {c1}, {c2}, {aggs}, GROUPING({c1}, {c2}) FROM {t} GROUP BY CUBE ({c1}, {c2})")
    add(f"SELECT {c1}, {c2}, {aggs}, GROUPING({c1}) AS g1, GROUPING({c2}) AS g2 FROM {t} GROUP BY GROUPING SETS (({c1}), ({c2}), ()) ORDER BY g1, g2, {o}")
    add(f"SELECT {c1}, count(*) FROM {t} GROUP BY GROUPING SETS (({c1}), ({c1})) ORDER BY {c1} NULLS FIRST /*ties*/")
add("SELECT grp, flag, count(*) FROM t_int GROUP BY GROUPING SETS ((grp, flag), (grp), ()) HAVING count(*) > 20 ORDER BY grp NULLS LAST, flag NULLS LAST")
add("SELECT grp, count(*) FROM t_int GROUP BY ROLLUP (grp) ORDER BY grp NULLS LAST")
add("SELECT u.city, o.status, count(*), sum(o.amount) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY CUBE (u.city, o.status)")
add("SELECT u.city, o.status, GROUPING(u.city, o.status), count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY ROLLUP (u.city, o.status) ORDER BY 3, 1 NULLS FIRST, 2 NULLS FIRST")
add("SELECT host, date_trunc('hour', ts) AS h, count(*), sum(v) FROM metrics GROUP BY ROLLUP (host, date_trunc('hour', ts))")
add("SELECT kind, count(*) FROM events GROUP BY DISTINCT ROLLUP (kind), CUBE (kind)")
add("SELECT kind, count(*) FROM events GROUP BY ROLLUP (kind), CUBE (kind)")
add("SELECT a, b, w, count(*) FROM t_comp WHERE a BETWEEN 1 AND 2 GROUP BY ROLLUP (a, b, w)")
add("SELECT city, tier, count(*) FROM accounts GROUP BY GROUPING SETS ((city, tier), city) ORDER BY city NULLS FIRST, tier NULLS FIRST /*ties*/")
add("SELECT status, count(*) FILTER (WHERE amount > 500), sum(amount) FILTER (WHERE id % 2 = 0) FROM j_orders GROUP BY CUBE (status)")
add("SELECT CASE WHEN GROUPING(grp) = 1 THEN 'all' ELSE grp::text END AS g, count(*) FROM t_int GROUP BY ROLLUP (grp) ORDER BY 1")
add("SELECT label, count(*), count(DISTINCT n % 5) FROM t_uuid GROUP BY ROLLUP (label) ORDER BY label NULLS FIRST")

group("filter and distinct aggregates")
add("SELECT count(*) FILTER (WHERE flag), count(*) FILTER (WHERE NOT flag), sum(amount) FILTER (WHERE grp = 3) FROM t_int")
add("SELECT grp, count(*) FILTER (WHERE amount > 50), avg(amount) FILTER (WHERE flag) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT status, count(*) FILTER (WHERE item_code IS NULL), max(amount) FILTER (WHERE user_id < 50) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST")
add("SELECT city, count(*) FILTER (WHERE score IS NULL), min(score) FILTER (WHERE id > 60) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT count(DISTINCT grp), sum(DISTINCT grp), avg(DISTINCT grp) FROM t_int")
add("SELECT count(DISTINCT user_id), count(DISTINCT status), count(DISTINCT item_code) FROM j_orders")
add("SELECT status, count(DISTINCT user_id), sum(DISTINCT amount) FROM j_orders GROUP BY status ORDER BY status NULLS LAST")
add("SELECT kind, count(DISTINCT score), avg(DISTINCT score)::numeric(10,4) FROM events GROUP BY kind ORDER BY kind")
add("SELECT count(DISTINCT city), count(city), count(*) FROM accounts")
add("SELECT count(DISTINCT (a, b)), count(DISTINCT a), count(DISTINCT b) FROM t_nulls")
add("SELECT count(DISTINCT label), count(DISTINCT n % 7) FROM t_uuid")
add("SELECT host, count(DISTINCT v) FILTER (WHERE v > 10) FROM metrics GROUP BY host ORDER BY host")
add("SELECT count(DISTINCT u.city) FILTER (WHERE o.amount > 900), count(DISTINCT o.user_id) FROM j_users u JOIN j_orders o ON o.user_id = u.id")
add("SELECT sum(amount) / count(*), max(amount) - min(amount), round(avg(amount), 3) FROM j_orders")
add("SELECT grp, sum(amount) * 2 + count(*) AS x, max(id) - min(id) AS span FROM t_int WHERE id BETWEEN -200 AND 200 GROUP BY grp ORDER BY x DESC, grp")
add("SELECT city, CASE WHEN count(*) > 20 THEN 'many' ELSE 'few' END, coalesce(max(score), -1) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT user_id, round(100.0 * count(*) FILTER (WHERE status = 'paid') / count(*), 2) FROM j_orders GROUP BY user_id HAVING count(*) > 5 ORDER BY user_id")
add("SELECT grp FROM t_int GROUP BY grp HAVING count(DISTINCT flag) = 1 ORDER BY grp")
add("SELECT grp FROM t_int GROUP BY grp HAVING bool_and(amount > 0) ORDER BY grp")
add("SELECT count(*) FROM t_int HAVING count(*) > 1000")
add("SELECT max(name), min(name), max(k) FROM j_users, (SELECT max(k) AS k FROM t_text) s")
add("SELECT count(DISTINCT u), max(u::text), min(ts), max(ts) FROM t_uuid, (SELECT ts FROM t_ts WHERE n = 1) s")
add("SELECT min(d), max(d), min(b), max(b), count(d), count(b) FROM t_nulls")
add("SELECT min(at), max(at), count(DISTINCT user_id) FROM j_events")
add("SELECT count(*), count(score), sum(score), min(payload), max(payload) FROM events")
add("SELECT a, sum(v), count(w) FROM t_comp GROUP BY a HAVING sum(v) % 2 = 1 ORDER BY a")
add("SELECT sum(i2), sum(i8), avg(i2)::numeric(12,4), sum(num), max(num), min(amt), sum(amt) FROM t_types WHERE id < 150")
add("SELECT max(vc), min(bc), max(d), min(tsn), max(tz), count(u) FROM t_types")

# ----------------------------------------------------------------------- mixed, with joins
group("aggregates over joins")
add("SELECT u.id, u.name, count(o.id), coalesce(sum(o.amount), 0) FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id, u.name ORDER BY u.id LIMIT 20")
add("SELECT u.id, count(o.id) AS n FROM j_users u LEFT JOIN j_orders o ON o.user_id = u.id GROUP BY u.id ORDER BY n DESC, u.id LIMIT 10")
add("SELECT c.label, count(o.id), sum(o.amount), avg(i.price)::numeric(10,3) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label")
add("SELECT u.city, i.cat, count(*) FROM j_users u JOIN j_orders o ON o.user_id = u.id JOIN j_items i ON i.code = o.item_code GROUP BY u.city, i.cat ORDER BY u.city NULLS FIRST, i.cat NULLS FIRST")
add("SELECT u.id, count(DISTINCT v.page), max(v.secs), string_agg(DISTINCT v.page, ',' ORDER BY v.page) FROM j_users u JOIN j_visits v ON v.user_id = u.id GROUP BY u.id ORDER BY u.id LIMIT 30")
add("SELECT e.kind, count(*), count(DISTINCT u.city) FROM j_events e JOIN j_users u ON u.id = e.user_id GROUP BY e.kind ORDER BY e.kind")
add("SELECT u.id, u.score, rank() OVER (PARTITION BY u.city ORDER BY sum(o.amount) DESC, u.id) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.id, u.score, u.city ORDER BY u.id")
add("SELECT o.status, percentile_disc(0.5) WITHIN GROUP (ORDER BY i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status NULLS FIRST")
add("SELECT u.city, json_agg(DISTINCT o.status ORDER BY o.status) FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("SELECT t.a, count(*), sum(t.v + p.v) FROM t_comp t JOIN parts p ON p.a = t.a AND p.b = t.b GROUP BY t.a ORDER BY t.a")
add("SELECT t.grp, count(n.id), count(n.a) FROM t_int t LEFT JOIN t_nulls n ON n.id = t.id GROUP BY t.grp ORDER BY t.grp")
add("SELECT a.city, count(*) FROM accounts a JOIN j_users u ON u.city = a.city GROUP BY a.city ORDER BY a.city")
add("SELECT e.kind, m.host, count(*) FROM events e JOIN metrics m ON m.id = e.id GROUP BY e.kind, m.host ORDER BY e.kind, m.host")
add("SELECT u.id, o.id, o.amount FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE o.amount > (SELECT avg(amount) FROM j_orders) * 1.9 ORDER BY o.amount DESC, u.id, o.id LIMIT 15")
add("SELECT u.id FROM j_users u JOIN j_orders o ON o.user_id = u.id GROUP BY u.id HAVING sum(o.amount) > ALL (SELECT sum(amount) FROM j_orders WHERE user_id < 5 GROUP BY user_id) ORDER BY u.id")
add("SELECT u.name, o.id FROM j_users u JOIN j_orders o ON o.user_id = u.id WHERE (u.id, o.id) IN (SELECT user_id, max(id) FROM j_orders GROUP BY user_id) ORDER BY u.id, o.id")
add("WITH top AS (SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id ORDER BY s DESC, user_id LIMIT 10) SELECT u.name, top.s FROM top JOIN j_users u ON u.id = top.user_id ORDER BY top.s DESC, u.name")
add("SELECT c.label, (SELECT count(*) FROM j_items i WHERE i.cat = c.id), (SELECT count(*) FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.cat = c.id) FROM j_cats c ORDER BY c.id")
add("SELECT u.id, ARRAY(SELECT o.id FROM j_orders o WHERE o.user_id = u.id ORDER BY o.id) FROM j_users u WHERE u.id BETWEEN 100 AND 110 ORDER BY u.id")
add("SELECT o.user_id, o.id, o.amount, o.amount - avg(o.amount) OVER (PARTITION BY o.user_id) FROM j_orders o JOIN j_users u ON u.id = o.user_id AND u.city = 'Bern' ORDER BY o.user_id, o.id")

group("float sums and averages")
add("SELECT sum(f8), avg(f8), sum(f4::float8), avg(f4) FROM t_types WHERE id < 150 AND f8 <> 'NaN' AND f4 <> 'NaN'")
add("SELECT sum(f8), avg(f4) FROM t_types")
add("SELECT sum(f8), sum(f4) FROM t_types WHERE id > 200")
add("SELECT bo, sum(f8), avg(f8), count(f8) FROM t_types WHERE id < 150 GROUP BY bo ORDER BY bo NULLS FIRST")
add("SELECT i2 % 3, sum(f4::float8), avg(f4) FROM t_types WHERE id < 150 AND f4 <> 'NaN' GROUP BY i2 % 3 ORDER BY 1 NULLS FIRST")
add("SELECT sum(score::float8), avg(score::float4) FROM j_users")
add("SELECT city, sum(score * 0.1::float8), avg(score::float8) FROM j_users GROUP BY city ORDER BY city NULLS FIRST")
add("SELECT kind, sum(score / 7.0::float8), avg(score::float4 / 3) FROM events GROUP BY kind ORDER BY kind")
add("SELECT id, sum(f8) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t_types WHERE id < 40 ORDER BY id")
add("SELECT sum(f8) FILTER (WHERE f8 > 0), avg(f8) FILTER (WHERE f8 < 0) FROM t_types WHERE id < 150 AND f8 <> 'NaN'")
add("SELECT max(f8), min(f8), max(f4), min(f4) FROM t_types")
add("SELECT count(*) FROM t_types WHERE f8 = 'NaN' OR f4 = 'NaN'")
add("SELECT sum(amount::float8), avg(amount::float8) FROM j_orders")
add("SELECT user_id, avg(amount::float4) FROM j_orders WHERE user_id < 12 GROUP BY user_id ORDER BY user_id")
add("SELECT s.g, sum(s.x) FROM (SELECT grp AS g, amount::float8 / 3 AS x FROM t_int) s GROUP BY s.g ORDER BY s.g")

# --------------------------------------------------------------------------------- edge cases
group("result names and types")
add("SELECT (SELECT max(id) FROM j_users), (SELECT count(*) FROM j_orders) + 1, EXISTS (SELECT 1 FROM j_cats)")
add("SELECT grp, count(*) * 2, sum(amount) + 1, CASE WHEN grp > 5 THEN 'hi' END, coalesce(max(name), 'x') FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT sum(score), avg(score), sum(id), avg(id), sum(n.a), avg(n.c) FROM j_users, (SELECT a, c FROM t_nulls WHERE id = 1) n")
add("SELECT sum(i2), avg(i2), sum(i8), avg(i8), sum(num), avg(amt) FROM t_types WHERE id < 150")
add("SELECT pg_typeof(sum(v)), pg_typeof(avg(v)), pg_typeof(sum(a)) FROM t_comp")
add("SELECT sum(id) FROM t_int")
add("SELECT avg(id), sum(id) FROM t_int WHERE id > 0")
add("SELECT sum(i8), avg(i8) FROM t_types")
add("SELECT count(*), sum(amount), avg(amount), min(id), max(id), string_agg(name, ',' ORDER BY id), array_agg(id ORDER BY id), bool_and(flag), json_agg(id ORDER BY id) FROM t_int WHERE id > 500 AND id < 600")
add("SELECT grp, count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY grp")
add("SELECT count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY ROLLUP (grp)")
add("SELECT x.id, x.rn FROM (SELECT id, row_number() OVER () AS rn FROM j_cats WHERE id = 3) x")
add("SELECT id AS \"Mixed Case\", name AS \"sum\" FROM j_users WHERE id < 4 ORDER BY 1")
add("SELECT s.* FROM (SELECT grp, count(*) FROM t_int GROUP BY grp) s ORDER BY 1")
add("SELECT 1 UNION SELECT 2.5 ORDER BY 1")
add("SELECT id FROM j_users WHERE id < 3 UNION ALL SELECT id::int4 FROM j_cats WHERE id < 3 ORDER BY 1")
add("SELECT amount FROM j_orders WHERE id = 1 UNION SELECT 7 ORDER BY 1")

group("limits offsets and ordering")
add("SELECT id FROM j_users ORDER BY id LIMIT 0")
add("SELECT id FROM j_users ORDER BY id LIMIT ALL OFFSET 115")
add("SELECT id FROM j_users ORDER BY id LIMIT NULL OFFSET 118")
add("SELECT id FROM j_users ORDER BY id OFFSET 1000")
add("SELECT id, score FROM j_users ORDER BY score DESC NULLS LAST FETCH FIRST 5 ROWS WITH TIES /*ties*/")
add("SELECT id, score FROM j_users ORDER BY score NULLS FIRST, id FETCH FIRST 3 ROWS ONLY")
add("SELECT user_id, count(*) FROM j_orders GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 5")
add("SELECT user_id, sum(amount) AS s FROM j_orders GROUP BY user_id ORDER BY s, user_id LIMIT 5 OFFSET 5")
add("SELECT DISTINCT grp FROM t_int ORDER BY grp DESC LIMIT 3")
add("SELECT DISTINCT city FROM accounts ORDER BY city NULLS FIRST")
add("SELECT id, name FROM j_users ORDER BY row_number() OVER (ORDER BY score DESC NULLS LAST, id) LIMIT 6")
add("SELECT k FROM t_text ORDER BY k COLLATE \"C\" LIMIT 12")
add("SELECT k FROM t_text ORDER BY k DESC LIMIT 12")
add("SELECT k FROM t_text ORDER BY lower(k), k LIMIT 12 OFFSET 40")
add("SELECT id, name FROM j_users ORDER BY length(name), name DESC LIMIT 8")
add("SELECT u FROM t_uuid ORDER BY u DESC LIMIT 4 OFFSET 2")
add("SELECT ts FROM t_ts ORDER BY ts DESC OFFSET 295")
add("SELECT id, ts FROM events ORDER BY ts, id LIMIT 6")
add("SELECT id, score FROM events WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT 5")

# Each fails on PostgreSQL (pgrange must fail with the same SQLSTATE), except lag(id, -1).
group("intended errors")
add("SELECT grp, name FROM t_int GROUP BY grp")
add("SELECT id FROM j_users WHERE row_number() OVER () > 3")
add("SELECT sum(count(*)) FROM j_users")
add("SELECT sum(name) FROM j_users")
add("SELECT sum(amount / 0) FROM j_orders")
add("SELECT id / (SELECT count(*) - count(*) FROM j_cats) FROM j_users ORDER BY id")
add("SELECT id FROM j_users UNION SELECT name FROM j_users")
add("SELECT id FROM j_users WHERE id IN (SELECT user_id, id FROM j_orders)")
add("SELECT (SELECT user_id FROM j_orders WHERE user_id = u.id) FROM j_users u ORDER BY u.id")
add("SELECT ntile(0) OVER (ORDER BY id) FROM j_users")
add("SELECT nth_value(id, 0) OVER (ORDER BY id) FROM j_users")
add("SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY score) FROM j_users")
add("SELECT lag(id, -1) OVER (ORDER BY id) FROM j_users ORDER BY id")  # valid: a negative offset reads forward
add("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r ORDER BY n) SELECT * FROM r")
add("SELECT id FROM j_users ORDER BY nonexistent")
add("SELECT count(*) FROM j_users GROUP BY 5")

# ------------------------------------- single tables over several shards: merged answers
group("merged aggregates")
MERGE_T = [
    # (table, group expression, numeric column, filter)
    ("t_int", "grp", "amount", "flag"),
    ("t_int", "grp % 3", "id", "amount > 50"),
    ("t_text", "note", "n", "n > 100"),
    ("t_comp", "b", "v", "a > 0"),
    ("t_uuid", "label", "n", "n % 2 = 0"),
    ("t_ts", "payload", "n", "n > 0"),
    ("t_nulls", "a", "c", "b IS NOT NULL"),
    ("t_nulls", "b", "a", "c > 100"),
    ("events", "kind", "score", "payload IS NULL"),
    ("metrics", "host", "v", "v > 25"),
    ("accounts", "tier", "balance", "city = 'Oslo'"),
    ("j_orders", "status", "amount", "item_code IS NULL"),
]
for t, g, x, f in MERGE_T:
    add(f"SELECT {g}, count(*), count({x}), sum({x}), min({x}), max({x}), avg({x}) FROM {t} GROUP BY {g}")
    add(f"SELECT {g} AS g, count(*) FILTER (WHERE {f}), sum({x}) FILTER (WHERE {f}), avg({x}) FILTER (WHERE {f}) FROM {t} GROUP BY {g} ORDER BY g NULLS FIRST")
    add(f"SELECT {g} AS g, count(*) AS c FROM {t} GROUP BY {g} HAVING count(*) > 10 AND max({x}) IS NOT NULL ORDER BY c DESC, g NULLS LAST LIMIT 4")
    add(f"SELECT count(*), sum({x}), avg({x}), min({x}), max({x}) FROM {t} WHERE {f}")
    add(f"SELECT {g} AS g FROM {t} GROUP BY {g} HAVING NOT (sum({x}) < 0) OR count(*) = 1 ORDER BY g NULLS FIRST OFFSET 1")
add("SELECT count(*), sum(amount), avg(amount) FROM t_int WHERE id > 500 AND id < 600")
add("SELECT grp, count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY grp HAVING count(*) >= 0")
add("SELECT count(*) FROM t_int HAVING count(*) > 0")
add("SELECT sum(amount) FROM t_int HAVING sum(amount) IS NULL")
add("SELECT count(DISTINCT id), count(DISTINCT id) FILTER (WHERE flag) FROM t_int")
add("SELECT grp, count(DISTINCT id) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT count(DISTINCT k) FROM t_text WHERE n < 50")
add("SELECT count(DISTINCT u), count(DISTINCT ts) FROM t_uuid, (SELECT ts FROM t_ts WHERE n = 3) s")
add("SELECT count(1), count(NULL::int), count(note) FROM t_text")
add("SELECT 'x' AS c, count(*) FROM t_int GROUP BY 1")
add("SELECT grp, 7 AS k, count(*) FROM t_int GROUP BY grp, 2 ORDER BY grp")
add("SELECT flag, grp, count(*) FROM t_int GROUP BY grp, flag ORDER BY flag DESC, grp DESC")
add("SELECT lower(note), count(*) FROM t_text GROUP BY lower(note) ORDER BY 1 NULLS FIRST")
add("SELECT substr(k, 1, 3) AS p, count(*), min(k), max(k) FROM t_text GROUP BY p ORDER BY p")
add("SELECT date_trunc('month', ts) AS m, count(*), min(n), max(n) FROM t_ts GROUP BY m ORDER BY m")
add("SELECT tier IS NULL, count(*) FROM accounts GROUP BY tier IS NULL ORDER BY 1")
add("SELECT sum(amount) AS s, grp FROM t_int GROUP BY grp ORDER BY s DESC, grp LIMIT 3")
add("SELECT grp FROM t_int GROUP BY grp ORDER BY sum(amount) DESC, grp LIMIT 5")
add("SELECT grp, max(name) FROM t_int GROUP BY grp ORDER BY max(name), grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) BETWEEN 30 AND 40 ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) IN (32, 33, 34) ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING grp > 5 ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING sum(amount) > avg(amount) * 30 ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING min(id) < -150 OR max(id) > 1000 ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 1 + 30 ORDER BY grp")
add("SELECT grp, -sum(amount), coalesce(max(id), 0), sum(amount)::numeric(14,1), round(avg(amount), 1) FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT avg(grp), avg(id), sum(grp), sum(grp::int2), avg(grp::int2), sum(id::numeric) FROM t_int WHERE id BETWEEN -200 AND 200")
add("SELECT avg(n), sum(n), avg(n::int8) FROM t_text")
add("SELECT min(k), max(k), min(note), max(note) FROM t_text")
add("SELECT min(ts), max(ts), min(payload) FROM t_ts")
add("SELECT min(b), max(b), min(w), max(w) FROM t_comp")

group("merged order and distinct over types")
TYPE_COLS = ["i2", "i8", "f4", "f8", "num", "amt", "by", "bo", "d", "tsn", "vc", "bc", "u", "tz"]
for c in TYPE_COLS:
    add(f"SELECT id, {c} FROM t_types ORDER BY {c} NULLS FIRST, id LIMIT 12")
    add(f"SELECT id, {c} FROM t_types ORDER BY {c} DESC NULLS LAST, id DESC LIMIT 12 OFFSET 3")
    # Equal numerics print differently (1.0, 1.00), as do -0 and 0 (row 203): which one
    # DISTINCT or GROUP BY shows varies.
    if c != "num":
        w = " WHERE id <> 203" if c in ("f4", "f8") else ""
        add(f"SELECT DISTINCT {c} FROM t_types{w}")
        add(f"SELECT {c}, count(*) FROM t_types{w} GROUP BY {c}")
    if c not in ("bo", "u", "by"):
        add(f"SELECT min({c}), max({c}), count({c}) FROM t_types")
add("SELECT id, f8 * 0 FROM t_types WHERE id < 40 ORDER BY f8 * 0, id")
add("SELECT sum(num), avg(num), min(num), max(num) FROM t_types")
add("SELECT sum(num), avg(num) FROM t_types WHERE id < 150")
add("SELECT bo, sum(num), avg(amt) FROM t_types GROUP BY bo")
add("SELECT bc, count(*) FROM t_types GROUP BY bc ORDER BY bc NULLS LAST")
add("SELECT DISTINCT bc, vc FROM t_types ORDER BY bc, vc NULLS FIRST")
add("SELECT DISTINCT lower(vc) FROM t_types ORDER BY 1")
add("SELECT vc, max(bc), min(d) FROM t_types GROUP BY vc ORDER BY vc NULLS FIRST")
add("SELECT d, count(*) FROM t_types WHERE d IS NOT NULL GROUP BY d ORDER BY d DESC LIMIT 5")
add("SELECT tz, id FROM t_types ORDER BY tz NULLS FIRST, id LIMIT 5")
add("SELECT i8, sum(i8), avg(i8) FROM t_types GROUP BY i8 ORDER BY i8 NULLS FIRST LIMIT 5")
add("SELECT sum(i2), sum(i8), avg(i2) FROM t_types WHERE bo")
add("SELECT k FROM t_text ORDER BY k")
add("SELECT DISTINCT note FROM t_text ORDER BY note NULLS FIRST")
add("SELECT k, n FROM t_text ORDER BY note DESC NULLS FIRST, k LIMIT 20")
add("SELECT DISTINCT a, b FROM t_comp WHERE a IN (1, 2) ORDER BY b, a")
add("SELECT a, b FROM t_comp ORDER BY b DESC, a LIMIT 15")
add("SELECT DISTINCT label FROM t_uuid ORDER BY label LIMIT 5 OFFSET 10")
add("SELECT DISTINCT grp, flag FROM t_int ORDER BY flag, grp")
add("SELECT id, name FROM t_int ORDER BY name, id LIMIT 10")
add("SELECT id, amount FROM t_int ORDER BY amount * -1, id LIMIT 10")
add("SELECT id FROM t_int ORDER BY abs(id) DESC, id LIMIT 10")  # 22003 on the shard of the minimum
add("SELECT id, flag FROM t_int ORDER BY flag, id DESC LIMIT 10")
add("SELECT id FROM t_int ORDER BY id LIMIT 5 OFFSET 200")
add("SELECT DISTINCT a FROM t_nulls ORDER BY a NULLS FIRST")
add("SELECT DISTINCT a, b IS NULL FROM t_nulls ORDER BY 2, 1")
add("SELECT id, d FROM t_nulls ORDER BY d DESC NULLS FIRST, id LIMIT 10")

group("broadcast joins merged")
# The big table last, joined to small ones: it may stay on its shards, each running the join.
BJ = [
    ("j_orders o JOIN j_items i ON i.code = o.item_code", "i.cat", "o.amount", "o.user_id, o.id"),
    ("j_orders o JOIN j_cats c ON c.id = o.user_id % 8 + 1", "c.label", "o.amount", "o.user_id, o.id"),
    ("j_orders o LEFT JOIN j_items i ON i.code = o.item_code", "i.cat", "o.amount", "o.user_id, o.id, i.code"),
    ("j_orders o JOIN j_users u ON u.id = o.user_id", "u.city", "o.amount", "o.user_id, o.id"),
    ("t_nulls n JOIN j_cats c ON c.id = n.a", "c.label", "n.c", "n.id"),
    ("t_uuid t JOIN j_cats c ON c.id = t.n % 9", "c.id", "t.n", "t.u"),
    ("metrics m JOIN j_cats c ON c.id = m.v % 10", "m.host", "m.v", "m.id"),
    ("events e JOIN j_cats c ON c.label = 'c' || (e.id % 9)", "e.kind", "e.score", "e.id"),
]
for frm, g, x, key in BJ:
    add(f"SELECT {g} AS g, count(*), sum({x}), min({x}), max({x}), avg({x}) FROM {frm} GROUP BY {g}")
    add(f"SELECT count(*), sum({x}), avg({x}) FROM {frm}")
    add(f"SELECT {key}, {x} FROM {frm} ORDER BY {x} DESC NULLS LAST, {key} LIMIT 10")
    add(f"SELECT {key} FROM {frm} ORDER BY {key} LIMIT 7 OFFSET 20")
    add(f"SELECT DISTINCT {g} FROM {frm}")
    add(f"SELECT {g} AS g, count(*) FROM {frm} GROUP BY {g} HAVING count(*) > 20 ORDER BY g NULLS FIRST")
    add(f"SELECT {g} AS g, count(*) FILTER (WHERE {x} > 10), sum({x}) FILTER (WHERE {x} < 500) FROM {frm} GROUP BY {g} ORDER BY g NULLS LAST")
add("SELECT o.status, i.cat, count(*), sum(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status, i.cat ORDER BY o.status NULLS FIRST, i.cat NULLS FIRST")
add("SELECT o.user_id, count(*), sum(i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.user_id ORDER BY o.user_id LIMIT 10")
add("SELECT count(DISTINCT o.user_id), count(DISTINCT i.code) FROM j_orders o JOIN j_items i ON i.code = o.item_code")
add("SELECT count(DISTINCT o.id) FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.cat = 3")
add("SELECT i.title, o.user_id, o.id FROM j_orders o JOIN j_items i ON i.code = o.item_code WHERE i.price < 5 ORDER BY i.title, o.user_id, o.id")
add("SELECT o.user_id, o.id, i.price FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY i.price * 2 DESC, o.user_id, o.id LIMIT 5")
add("SELECT c.label, sum(i.price * 2), count(o.id) FROM j_orders o JOIN j_items i ON i.code = o.item_code JOIN j_cats c ON c.id = i.cat GROUP BY c.label ORDER BY c.label")
add("SELECT o.status, avg(o.amount), avg(i.price) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status HAVING avg(o.amount) > 400 ORDER BY o.status NULLS FIRST")
add("SELECT o.status, sum(o.amount::float8), avg(i.price::float4) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY o.status ORDER BY o.status NULLS FIRST")
add("SELECT max(o.item_code), min(i.title), max(o.status) FROM j_orders o JOIN j_items i ON i.code = o.item_code")
add("SELECT i.cat, max(o.amount) - min(o.amount) FROM j_orders o JOIN j_items i ON i.code = o.item_code GROUP BY i.cat ORDER BY i.cat NULLS LAST")
add("SELECT DISTINCT o.status, i.cat FROM j_orders o JOIN j_items i ON i.code = o.item_code ORDER BY o.status NULLS FIRST, i.cat NULLS FIRST LIMIT 8")
add("SELECT v.page, count(*), sum(v.secs), avg(v.secs) FROM j_visits v JOIN j_cats c ON c.id = v.n GROUP BY v.page ORDER BY v.page NULLS FIRST")
add("SELECT p.tag, count(*), sum(p.v) FROM parts p JOIN j_cats c ON c.id = p.a % 8 GROUP BY p.tag ORDER BY p.tag NULLS FIRST")
add("SELECT a.city, count(*), sum(a.balance), avg(a.balance) FROM accounts a JOIN j_cats c ON c.id = a.tier GROUP BY a.city ORDER BY a.city NULLS FIRST")
add("SELECT t.grp, count(*), sum(t.amount) FROM t_int t JOIN j_cats c ON c.id = t.grp GROUP BY t.grp HAVING sum(t.amount) > 1000 ORDER BY t.grp")

group("merge edge cases")
# Constants a HAVING compares combined aggregates with, written as strings or in other forms.
add("SELECT payload, max(ts) FROM t_ts GROUP BY payload HAVING max(ts) > '2024-03-15 9:00' ORDER BY payload")
add("SELECT payload, min(ts) FROM t_ts GROUP BY payload HAVING min(ts) < '2023-12-20 3:00:00+01' ORDER BY payload")
add("SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) > '1000' ORDER BY grp")
add("SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > '9' ORDER BY grp")
add("SELECT grp, avg(amount) FROM t_int GROUP BY grp HAVING avg(amount) > 49.5 ORDER BY grp")
add("SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) >= 1.5e3 ORDER BY grp")
add("SELECT grp, max(name) FROM t_int GROUP BY grp HAVING max(name) > 'name 9' ORDER BY grp")
add("SELECT grp, max(name) FROM t_int GROUP BY grp HAVING max(name) LIKE 'name 9%' ORDER BY grp")
add("SELECT label, max(n) FROM t_uuid GROUP BY label HAVING max(n) < 1e2 + 200 ORDER BY label")
add("SELECT kind, min(ts) FROM events GROUP BY kind HAVING min(ts) = '2024-03-01 00:37:00+00' ORDER BY kind")
add("SELECT host, sum(v) FROM metrics GROUP BY host HAVING sum(v) <> 1000 AND count(*) = 40 ORDER BY host")
add("SELECT a, count(*) FROM t_nulls GROUP BY a HAVING a IS NULL OR sum(c) IS NULL ORDER BY a NULLS FIRST")
add("SELECT city, max(balance) FROM accounts GROUP BY city HAVING max(balance) > '990.5' ORDER BY city NULLS FIRST")
add("SELECT note, max(k) FROM t_text GROUP BY note HAVING max(k) >= 'key1' ORDER BY note NULLS FIRST")
# Types whose order is not their text's.
add("SELECT max(('10.0.' || (id % 256) || '.' || (id % 200 + 1))::inet), min(('10.0.' || (id % 256) || '.' || (id % 200 + 1))::inet) FROM t_int WHERE id BETWEEN 0 AND 300")
add("SELECT id, ('10.0.0.' || (id % 250 + 1))::inet AS ip FROM t_int WHERE id BETWEEN 0 AND 200 ORDER BY ip, id LIMIT 10")
add("SELECT sum(ts - timestamptz '2024-01-01 00:00:00+00'), max(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01'")
add("SELECT payload, sum(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01' GROUP BY payload ORDER BY payload")
add("SELECT avg(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01'")
add("SELECT n, ts - timestamptz '2024-01-01 00:00:00+00' AS iv FROM t_ts WHERE ts BETWEEN '2000-01-01' AND '2030-01-01' ORDER BY iv DESC LIMIT 5")
add("SELECT sum(amount::money), max(amount::money), min(amount::money) FROM j_orders")
add("SELECT status, sum(amount::money) FROM j_orders GROUP BY status ORDER BY status NULLS FIRST")
add("SELECT max(ts::time), min(ts::time), max(ts::date) FROM t_ts")
add("SELECT ts::time AS t, count(*) FROM t_ts GROUP BY 1 ORDER BY 1 LIMIT 5")
add("SELECT id, (id % 37)::oid AS o FROM t_int WHERE id BETWEEN 0 AND 80 ORDER BY o DESC, id LIMIT 6")
add("SELECT max(id::text), min(id::text) FROM t_int")
add("SELECT id FROM t_int ORDER BY id::text LIMIT 8")
add("SELECT id FROM t_int ORDER BY id USING >, name LIMIT 5")
add("SELECT k FROM t_text ORDER BY k COLLATE \"POSIX\" DESC LIMIT 5")
add("SELECT max(k COLLATE \"C\"), min(note COLLATE \"C\") FROM t_text")
add("SELECT sum(abs(f8) * 1e306) FROM t_types WHERE f8 <> 'NaN' AND id < 150")
add("SELECT sum(f8 * 1e300) FROM t_types WHERE f8 <> 'NaN' AND id < 150")
add("SELECT sum(i8), sum(i8 / 2) FROM t_types")
add("SELECT sum(id) FROM t_int WHERE id > 0")
add("SELECT sum(id::float8) FROM t_int WHERE id BETWEEN -200 AND 200")
add("SELECT avg(amount), avg(amount::int), avg(amount::int8), avg(amount::int2) FROM t_int")
add("SELECT grp, avg(amount)::text FROM t_int GROUP BY grp ORDER BY grp")
add("SELECT id AS \"X\", grp AS \"grp\" FROM t_int ORDER BY \"X\" DESC LIMIT 4")
add("SELECT * FROM t_int ORDER BY amount DESC, id LIMIT 4")
add("SELECT DISTINCT grp FROM t_int ORDER BY id")
add("SELECT grp, amount FROM t_int ORDER BY 2 DESC, 1, id LIMIT 6")
# The count of a subquery's rows, as ORMs write it.
add("SELECT count(*) FROM (SELECT * FROM t_nulls WHERE a IS NULL) AS x")
add("SELECT count(x.a) FROM (SELECT a FROM t_nulls) AS x")
add("SELECT count(x.a), count(*) FROM (SELECT a FROM t_nulls WHERE id > 50) AS x")
add("SELECT count(*) FROM (SELECT id FROM t_int WHERE flag) AS x WHERE x.id > 100")
add("SELECT count(*) FROM (SELECT 1 FROM t_int) AS x")
add("SELECT count(*), max(x.id) FROM (SELECT id FROM t_int) AS x")
add("SELECT count(DISTINCT x.grp) FROM (SELECT grp FROM t_int) AS x")
add("SELECT count(*) FROM (SELECT DISTINCT grp FROM t_int) AS x")
add("SELECT count(*) FROM (SELECT grp FROM t_int GROUP BY grp) AS x")
add("SELECT count(*) FROM (SELECT id FROM t_int ORDER BY id LIMIT 10) AS x")
add("SELECT count(*) FROM (SELECT id FROM t_int WHERE id > 0 OR grp = 2) AS x")
add("SELECT count(*) FROM (SELECT k FROM t_text WHERE note IS NULL) AS anon_1")
add("SELECT count(*) AS count_1 FROM (SELECT u, n FROM t_uuid WHERE n BETWEEN 5 AND 200) AS anon_1")
add("SELECT count(*) FROM (SELECT a, b FROM t_comp WHERE a = 5) AS x")
add("SELECT count(*) FROM (SELECT id FROM events WHERE kind = 'buy') AS x")
add("SELECT count(*) FROM (SELECT * FROM t_int UNION ALL SELECT * FROM t_int) AS x")
add("SELECT count(*) + 1 FROM (SELECT id FROM t_int) AS x")
add("SELECT count(*) FROM (SELECT id FROM t_int) AS x HAVING count(*) > 1000")

group("gathered rows with special values")
# Every column of rows with special values read into one shard (joins, subqueries, CTEs).
add("SELECT a.*, b.id FROM t_types a JOIN t_types b ON b.id = a.id + 1 ORDER BY a.id")
add("SELECT * FROM t_types WHERE id IN (SELECT id FROM t_nulls WHERE a IS NULL OR id > 200) ORDER BY id")
add("SELECT * FROM t_types t WHERE EXISTS (SELECT 1 FROM t_int i WHERE i.id = t.id) ORDER BY id")
add("WITH x AS (SELECT * FROM t_types) SELECT * FROM x ORDER BY id")
add("SELECT t.id, t.by, t.bc, t.vc, t.f4, t.f8, t.num FROM t_types t JOIN j_cats c ON c.id = t.id % 8 ORDER BY t.id")
add("SELECT t.*, row_number() OVER (ORDER BY id) FROM t_types t ORDER BY id")
add("SELECT * FROM t_types UNION ALL SELECT * FROM t_types WHERE id > 200 ORDER BY id /*ties*/")
add("SELECT f8, count(*) FROM (SELECT f8 FROM t_types WHERE id <> 203 UNION ALL SELECT f8 FROM t_types WHERE id > 200) s GROUP BY f8")
add("SELECT k, n, note FROM t_text WHERE k IN (SELECT k FROM t_text WHERE n < 30) ORDER BY k")
add("SELECT a.k, b.k FROM t_text a JOIN t_text b ON b.n = a.n + 1 WHERE a.n < 30 ORDER BY a.k, b.k")
add("SELECT t.k, t.note, i.id FROM t_text t LEFT JOIN t_int i ON i.id = t.n WHERE t.n < 30 ORDER BY t.k")
add("SELECT string_agg(k, '|' ORDER BY k), string_agg(note, ',' ORDER BY k) FROM t_text WHERE n < 30")
add("SELECT json_agg(t ORDER BY k) FROM t_text t WHERE n < 30")
add("SELECT array_agg(k ORDER BY k) FROM t_text WHERE n < 30")
add("SELECT k FROM t_text WHERE n < 30 INTERSECT SELECT k FROM t_text ORDER BY 1")
add("SELECT ts, n, payload FROM t_ts WHERE n > 1000 UNION SELECT ts, n, payload FROM t_ts WHERE n = 1 ORDER BY ts")
add("SELECT a.ts, b.n FROM t_ts a JOIN t_ts b ON b.ts = a.ts WHERE a.n > 1000 ORDER BY a.ts")
add("SELECT u, n, label FROM t_uuid WHERE n <= 0 OR n > 298 UNION ALL SELECT u, n, label FROM t_uuid WHERE n = 1 ORDER BY u")
add("SELECT a.u, b.n FROM t_uuid a JOIN t_uuid b ON b.u = a.u WHERE a.n < 3 ORDER BY a.u")
add("SELECT t.id, t.d, t.tsn, t.tz, t.u FROM t_types t JOIN t_types s ON s.u = t.u ORDER BY t.id")
add("SELECT t.id, n.b, n.c, n.d FROM t_types t JOIN t_nulls n ON n.id = t.id ORDER BY t.id")
add("SELECT * FROM (SELECT id, i2, i8 FROM t_types UNION SELECT id, grp, id FROM t_int WHERE id > 200) s ORDER BY id, i2, i8")
add("SELECT id, by FROM t_types WHERE by IN (SELECT by FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, bc FROM t_types WHERE bc = ANY (SELECT bc FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, vc FROM t_types WHERE vc IN (SELECT vc FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, num FROM t_types WHERE num IN (SELECT num FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, f8 FROM t_types WHERE f8 IN (SELECT f8 FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, f4 FROM t_types WHERE f4 IN (SELECT f4 FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id, d, tsn, tz FROM t_types WHERE d IN (SELECT d FROM t_types WHERE id > 200) ORDER BY id")
add("SELECT id FROM accounts WHERE email IN (SELECT email FROM accounts WHERE id > 290) ORDER BY id")
add("SELECT a.id, a.email, a.created FROM accounts a JOIN j_users u ON u.id = a.id WHERE a.id > 100 ORDER BY a.id")

group("global index reads under subqueries and aggregates")
IDX = [
    # (table, condition on an indexed column, key order, other columns)
    ("accounts", "city = 'Oslo'", "id", "name, tier, balance"),
    ("accounts", "city IN ('Bern', 'Zürich', 'São Paulo')", "id", "name, tier"),
    ("accounts", "email = 'shared1@example.com'", "id", "email, balance"),
    ("accounts", "code BETWEEN 'C0100' AND 'C0130'", "id", "code, balance"),
    ("accounts", "tier = 2 AND created > '2024-03-01'", "id", "tier, created"),
    ("parts", "tag = 'tag4'", "a, b", "tag, v"),
    ("events", "kind = 'buy'", "id", "kind, score"),
    ("events", "ts BETWEEN '2024-03-03' AND '2024-03-04'", "id", "ts, score"),
    ("metrics", "host = 'host3'", "id", "host, v"),
    ("metrics", "ts < '2024-05-01 00:30:00+00'", "id", "ts, v"),
]
for t, cond, key, cols in IDX:
    num = cols.split(", ")[-1]
    add(f"SELECT {key}, {cols} FROM {t} WHERE {cond} ORDER BY {key}")
    add(f"SELECT count(*), count({num}), min({num}), max({num}) FROM {t} WHERE {cond}")
    add(f"SELECT {key}, {cols} FROM {t} WHERE {cond} ORDER BY {num} DESC NULLS LAST, {key} LIMIT 3")
    add(f"SELECT {key}, row_number() OVER (ORDER BY {num} NULLS FIRST, {key}) FROM {t} WHERE {cond} ORDER BY {key}")
    add(f"SELECT {key} FROM {t} WHERE {cond} AND {key.split(',')[0]} IN (SELECT {key.split(',')[0]} FROM {t} WHERE {num} IS NOT NULL) ORDER BY {key}")
add("SELECT name, tier FROM accounts WHERE city = 'Rome' ORDER BY name, tier /*ties*/")
add("SELECT code, balance FROM accounts WHERE code = 'C0042'")
add("SELECT v FROM parts WHERE tag = 'tag1' ORDER BY v")
add("SELECT score FROM events WHERE kind = 'view' ORDER BY score NULLS FIRST /*ties*/")
add("SELECT v FROM metrics WHERE host = 'host1' ORDER BY v /*ties*/")
add("SELECT city, count(*), sum(balance) FROM accounts WHERE city IN ('Oslo', 'Rome') GROUP BY city ORDER BY city")
add("SELECT tier, count(*) FROM accounts WHERE tier IN (1, 3) AND created IS NOT NULL GROUP BY tier ORDER BY tier")
add("SELECT u.id, a.id FROM j_users u JOIN accounts a ON a.city = u.city AND a.tier = 4 WHERE u.id < 6 ORDER BY u.id, a.id")
add("SELECT e.id, e.kind FROM events e WHERE e.kind IN (SELECT kind FROM j_events WHERE user_id = 7) ORDER BY e.id")
add("SELECT p.a, p.b FROM parts p WHERE p.tag = (SELECT max(tag) FROM parts) ORDER BY p.a, p.b")
add("SELECT m.host, count(*) FROM metrics m WHERE m.host IN (SELECT 'host' || id FROM j_cats) GROUP BY m.host ORDER BY m.host")
add("SELECT a.id FROM accounts a WHERE a.email LIKE 'user1%' AND NOT EXISTS (SELECT 1 FROM j_users u WHERE u.id = a.id) ORDER BY a.id")
add("SELECT kind, string_agg(id::text, ',' ORDER BY id) FROM events WHERE kind IN ('login', 'logout') AND id < 60 GROUP BY kind ORDER BY kind")
add("SELECT host, percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM metrics WHERE host IN ('host0', 'host5') GROUP BY host ORDER BY host")

group("merged types pgrange cannot compare")
# time, interval, inet, money: no merge orders, groups or windows them; their rows are gathered
# into one shard, which computes the answer. None of these may be refused.
add("""SELECT n, (ts AT TIME ZONE 'UTC')::time AS at FROM t_ts WHERE n < 1000 ORDER BY at, n LIMIT 15""")
add("""SELECT (ts AT TIME ZONE 'UTC')::time AS at, count(*) FROM t_ts WHERE n < 1000 GROUP BY at ORDER BY at""")
add("""SELECT min((ts AT TIME ZONE 'UTC')::time), max((ts AT TIME ZONE 'UTC')::time), count(*) FROM t_ts WHERE n < 1000""")
add("""SELECT n, ts - timestamptz '2024-01-01 00:00:00+00' AS age FROM t_ts WHERE n BETWEEN -50 AND 249 ORDER BY age DESC, n LIMIT 10""")
add("""SELECT DISTINCT (ts - timestamptz '2024-01-01 00:00:00+00') / 7 AS w FROM t_ts WHERE n BETWEEN 0 AND 40 ORDER BY w""")
add("""SELECT max(ts - timestamptz '2024-01-01 00:00:00+00'), min(ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE n BETWEEN -50 AND 249""")
add("""SELECT id, ('10.' || grp || '.0.' || (abs(id) % 250))::inet AS addr FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY addr, id LIMIT 20""")
add("""SELECT ('10.' || grp || '.0.0')::inet AS net, count(*), sum(amount) FROM t_int GROUP BY net ORDER BY net""")
add("""SELECT ('10.' || grp || '.0.0/16')::cidr AS net, count(*) FROM t_int GROUP BY net HAVING count(*) > 10 ORDER BY net""")
add("""SELECT min(('10.' || grp || '.0.' || (abs(id) % 250))::inet), max(('192.168.' || grp || '.1')::inet) FROM t_int WHERE id BETWEEN -299 AND 299""")
add("""SELECT id, row_number() OVER (PARTITION BY grp ORDER BY ('10.0.0.' || (abs(id) % 250))::inet, id) FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY id""")
add("""SELECT n, rank() OVER (ORDER BY ts - timestamptz '2024-01-01 00:00:00+00') FROM t_ts WHERE n < 1000 ORDER BY n""")
add("""SELECT n, count(*) OVER (PARTITION BY (ts AT TIME ZONE 'UTC')::time) FROM t_ts WHERE n < 1000 ORDER BY n""")
add("""SELECT n, lag(n) OVER (PARTITION BY extract(hour FROM ts AT TIME ZONE 'UTC')::int % 3 ORDER BY (ts AT TIME ZONE 'UTC')::time, n) FROM t_ts WHERE n BETWEEN 0 AND 120 ORDER BY n""")
add("""SELECT id, amount::money AS m FROM t_int WHERE id BETWEEN -299 AND 299 ORDER BY m DESC, id LIMIT 10""")
add("""SELECT DISTINCT amount::money AS m FROM t_int WHERE id BETWEEN 0 AND 60 ORDER BY m""")
add("""SELECT grp, sum(amount::money), min(amount::money) FROM t_int GROUP BY grp ORDER BY grp""")
add("""SELECT DISTINCT ON (grp) grp, ('10.0.0.' || (abs(id) % 250))::inet AS a FROM t_int WHERE id BETWEEN -300 AND 300 ORDER BY grp, a""")
add("""SELECT (ts AT TIME ZONE 'UTC')::time AS at, string_agg(payload, ',' ORDER BY n) FROM t_ts WHERE n BETWEEN 0 AND 60 GROUP BY at ORDER BY at""")
add("""SELECT id, name FROM t_int WHERE id BETWEEN -59 AND 59 ORDER BY ('10.0.' || grp || '.1')::inet DESC, id LIMIT 12""")
add("""SELECT v.user_id, v.n, c.label, ('10.0.' || c.id || '.' || v.n)::inet AS a FROM j_visits v JOIN j_cats c ON c.id = v.n ORDER BY a, v.user_id LIMIT 15""")
add("""SELECT count(*) FROM (SELECT DISTINCT (ts AT TIME ZONE 'UTC')::time FROM t_ts WHERE n < 1000) d""")

group("windows computed on each shard")
# j_visits follows j_users' splits (at user ids, never inside one): windows partitioned by
# user_id are computed by each shard. t_int's and events' (hash-sharded) partitions by their
# key are single rows. t_comp, j_orders and parts split inside a key prefix: the same windows
# over them are gathered.
VISITS = [
    "row_number() OVER (PARTITION BY user_id ORDER BY n)",
    "rank() OVER (PARTITION BY user_id ORDER BY secs)",
    "dense_rank() OVER (PARTITION BY user_id ORDER BY page NULLS FIRST)",
    "count(*) OVER (PARTITION BY user_id)",
    "sum(secs) OVER (PARTITION BY user_id ORDER BY n)",
    "sum(secs) OVER (PARTITION BY user_id ORDER BY n ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
    "avg(secs) OVER (PARTITION BY user_id)",
    "lag(page) OVER (PARTITION BY user_id ORDER BY n)",
    "lead(secs, 2, -1) OVER (PARTITION BY user_id ORDER BY n)",
    "first_value(page) OVER (PARTITION BY user_id ORDER BY n)",
    "last_value(secs) OVER (PARTITION BY user_id ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
    "nth_value(secs, 2) OVER (PARTITION BY user_id ORDER BY n)",
    "ntile(2) OVER (PARTITION BY user_id ORDER BY n)",
    "round(percent_rank() OVER (PARTITION BY user_id ORDER BY secs)::numeric, 6)",
    "round(cume_dist() OVER (PARTITION BY user_id ORDER BY secs)::numeric, 6)",
    "max(secs) OVER (PARTITION BY user_id ORDER BY n GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING EXCLUDE CURRENT ROW)",
    "string_agg(page, ',') OVER (PARTITION BY user_id ORDER BY n)",
    "count(page) FILTER (WHERE secs > 100) OVER (PARTITION BY v.user_id)",
]
for w in VISITS:
    add(f"SELECT user_id, n, {w} FROM j_visits v ORDER BY user_id, n")
for w in VISITS[:6]:
    add(f"SELECT user_id, n, {w} AS w FROM j_visits v WHERE user_id BETWEEN 25 AND 70 ORDER BY w DESC NULLS LAST, user_id, n LIMIT 9")
add("SELECT user_id, n, row_number() OVER w, sum(secs) OVER (w ORDER BY n) FROM j_visits WINDOW w AS (PARTITION BY user_id) ORDER BY user_id, n")
add("SELECT user_id, n, rank() OVER w FROM j_visits WINDOW w AS (PARTITION BY user_id ORDER BY secs DESC) ORDER BY user_id, n OFFSET 40 LIMIT 20")
add("SELECT DISTINCT user_id, count(*) OVER (PARTITION BY user_id) FROM j_visits ORDER BY user_id")
add("SELECT DISTINCT count(*) OVER (PARTITION BY user_id) AS c FROM j_visits ORDER BY c")
add("SELECT user_id, n FROM j_visits ORDER BY row_number() OVER (PARTITION BY user_id ORDER BY n DESC), user_id LIMIT 15")
add("SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY n), row_number() OVER (ORDER BY user_id, n) FROM j_visits ORDER BY user_id, n")
add("SELECT user_id, n, count(*) OVER (PARTITION BY user_id, n % 2) FROM j_visits ORDER BY user_id, n")
add("SELECT user_id, n, count(*) OVER (PARTITION BY n) FROM j_visits ORDER BY user_id, n")
add("SELECT user_id, n, sum(secs) OVER (PARTITION BY user_id + 0) FROM j_visits ORDER BY user_id, n")
add("SELECT user_id, max(secs), rank() OVER (PARTITION BY user_id ORDER BY max(secs)) FROM j_visits GROUP BY user_id ORDER BY user_id")
add("SELECT * FROM (SELECT user_id, n, row_number() OVER (PARTITION BY user_id ORDER BY secs DESC, n) AS r FROM j_visits) s WHERE r = 1 ORDER BY user_id")
add("SELECT id, grp, row_number() OVER (PARTITION BY id ORDER BY grp), count(*) OVER (PARTITION BY id, grp) FROM t_int WHERE id BETWEEN -60 AND 60 ORDER BY id")
add("SELECT id, kind, sum(score) OVER (PARTITION BY id) FROM events WHERE id < 40 ORDER BY id")
add("SELECT id, kind, rank() OVER (PARTITION BY kind ORDER BY id) FROM events WHERE id < 40 ORDER BY id")
add("SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY b) FROM t_comp ORDER BY a, b")
add("SELECT a, b, sum(v) OVER (PARTITION BY a ORDER BY b) FROM parts WHERE a BETWEEN 15 AND 35 ORDER BY a, b")
add("SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY id) FROM j_orders ORDER BY user_id, id")
add("SELECT user_id, id, count(*) OVER (PARTITION BY user_id, id) FROM j_orders ORDER BY user_id, id")

group("ctes and derived tables answered over the shards first")
# A CTE or derived table that reads one spread table with GROUP BY, an aggregate, DISTINCT or
# LIMIT is merged over that table's shards first and its rows (cast back from text) written
# into the statement: every key type, special values of every type, NULL groups, joins.
for t, key, num, txt in KEYED:
    k0 = key.split(",")[0]
    add(f"WITH s AS (SELECT {txt} AS g, count(*) AS c, sum({num}) AS su, min({k0}) AS lo FROM {t} GROUP BY {txt}) SELECT g, c, su, lo FROM s ORDER BY g NULLS FIRST")
    add(f"SELECT x.g, x.c, y.n FROM (SELECT {txt} AS g, count(*) AS c FROM {t} GROUP BY 1) x JOIN (SELECT count(*) AS n FROM j_users) y ON true ORDER BY x.c DESC, x.g NULLS FIRST LIMIT 5")
    add(f"WITH top AS (SELECT {key}, {num} FROM {t} ORDER BY {num} DESC NULLS LAST, {key} LIMIT 4) SELECT top.*, (SELECT count(*) FROM top) FROM top ORDER BY {key}")
    add(f"SELECT d.v, count(*) FROM (SELECT DISTINCT {num} AS v FROM {t}) d JOIN j_cats c ON c.id = d.v % 7 GROUP BY d.v ORDER BY d.v NULLS FIRST")
add("WITH spend AS (SELECT user_id, sum(amount) AS total, count(*) AS n FROM j_orders GROUP BY user_id) SELECT u.city, sum(s.total), sum(s.n), count(*) FROM j_users u JOIN spend s ON s.user_id = u.id GROUP BY u.city ORDER BY u.city NULLS FIRST")
add("SELECT u.id, u.name, t.total FROM j_users u JOIN (SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY user_id ORDER BY total DESC, user_id LIMIT 10) t ON t.user_id = u.id ORDER BY t.total DESC, u.id")
add("WITH s AS (SELECT status, count(*) AS c, avg(amount) AS a, max(amount) AS m FROM j_orders WHERE amount > 10 GROUP BY status HAVING count(*) > 1) SELECT * FROM s ORDER BY status NULLS FIRST")
add("WITH a AS (SELECT user_id, max(id) AS m FROM j_orders GROUP BY user_id), b AS (SELECT city, count(*) AS c FROM j_users GROUP BY city) SELECT b.city, b.c, count(a.m) FROM b JOIN j_users u ON u.city IS NOT DISTINCT FROM b.city LEFT JOIN a ON a.user_id = u.id GROUP BY b.city, b.c ORDER BY b.city NULLS FIRST")
add("WITH t(total) AS (SELECT sum(amount) FROM j_orders) SELECT total, (SELECT count(*) FROM j_users) FROM t")
add("WITH s AS MATERIALIZED (SELECT user_id, sum(amount) AS total FROM j_orders GROUP BY 1) SELECT count(*), sum(total) FROM s WHERE total > 100")
add("WITH s AS NOT MATERIALIZED (SELECT user_id, count(*) AS c FROM j_orders GROUP BY 1) SELECT s1.user_id, s1.c, s2.c FROM s s1 JOIN s s2 ON s2.user_id = s1.user_id + 1 ORDER BY 1")
add("WITH x AS (SELECT * FROM (SELECT user_id, count(*) AS n FROM j_orders GROUP BY 1) i WHERE n > 2) SELECT x.*, u.name FROM x JOIN j_users u ON u.id = x.user_id ORDER BY 1")
add("SELECT count(*) FROM (SELECT user_id FROM j_orders GROUP BY 1) a JOIN (SELECT user_id FROM j_orders WHERE amount > 50 GROUP BY 1) b USING (user_id)")
add("SELECT * FROM (SELECT user_id, sum(amount) FROM j_orders WHERE user_id < 10 GROUP BY user_id) q UNION ALL SELECT id, 0 FROM j_users WHERE id < 3 ORDER BY 1, 2")
add("SELECT q.status, q.f, q.ba, r.city FROM (SELECT status, count(*) FILTER (WHERE amount > 10) AS f, bool_and(amount > 1) AS ba FROM j_orders GROUP BY status) q JOIN (SELECT city FROM j_users GROUP BY 1 ORDER BY 1 NULLS FIRST LIMIT 2) r ON true ORDER BY 1 NULLS FIRST, 4 NULLS FIRST")
add("WITH RECURSIVE r(n) AS (SELECT min(id) FROM j_users UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT r.n, u.name FROM r JOIN j_users u ON u.id = r.n ORDER BY 1")
add("WITH s AS (SELECT user_id, string_agg(status, ',' ORDER BY id) AS sa FROM j_orders WHERE user_id < 5 GROUP BY 1) SELECT * FROM s JOIN j_users u ON u.id = s.user_id ORDER BY 1")
add("WITH s AS (SELECT count(*) AS c, count(i2) AS c2, sum(i2) AS s2, sum(i8) AS s8, min(f4) AS mf4, max(f8) AS mf8, min(num) AS mn, max(num) AS xn, sum(amt) AS sa, min(by) AS mb, bool_or(bo) AS bo, min(d) AS md, max(tsn) AS mt, min(vc) AS mv, max(bc) AS xb, min(u) AS mu, max(tz) AS xt FROM t_types) SELECT s.*, (SELECT count(*) FROM j_cats) FROM s")
add("WITH s AS (SELECT bc, count(*) AS c, min(vc) AS v, max(d) AS d, min(tz) AS z FROM t_types GROUP BY bc) SELECT * FROM s ORDER BY bc NULLS FIRST")
add("SELECT t.f8, t.f4, t.num FROM (SELECT DISTINCT f8, f4, num FROM t_types WHERE id > 190) t JOIN j_cats c ON c.id = 1 ORDER BY 1 NULLS FIRST, 2 NULLS FIRST, 3 NULLS FIRST")
add("WITH s AS (SELECT by, bo, count(*) AS c FROM t_types GROUP BY by, bo) SELECT s.*, length(s.by) FROM s ORDER BY by NULLS FIRST, bo NULLS FIRST")
add("WITH s AS (SELECT i2, tsn FROM t_types ORDER BY tsn DESC NULLS LAST, id LIMIT 6) SELECT * FROM s JOIN j_cats c ON c.id = 2 ORDER BY tsn DESC NULLS LAST, i2")
add("SELECT q.r, u.name FROM (SELECT ROW(user_id, id, status) AS r FROM j_orders WHERE id < 400 LIMIT 1000) q JOIN j_users u ON u.id = (q.r).f1 ORDER BY 1")
add("WITH s AS (SELECT round(sum(f8)::numeric, 6) AS sf, round(avg(f4)::numeric, 4) AS af, count(*) FILTER (WHERE f8 = 'NaN') AS nans FROM t_types WHERE id < 200) SELECT s.*, c.label FROM s, j_cats c WHERE c.id = 3")

print("\n".join(out))
