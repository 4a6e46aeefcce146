-- The write corpus: each statement runs through pgrange and on the reference, then every table
-- is compared (write_differential_test.cpp). Where rows live: the table in setup.sql. Groups
-- marked `-- expect: run` hold statements pgrange must run (not refuse); `-- requires:` names
-- what setup.sql must have made. Statements build on what the ones before them wrote: expected
-- results come only from the reference server, never from this file.

-- group: plain writes over several shards
-- expect: run
UPDATE a SET n = n + 1 WHERE id BETWEEN 40 AND 60
UPDATE a SET v = v || '.' WHERE n = 3
UPDATE a SET v = upper(v) WHERE id IN (1, 49, 50, 100) RETURNING id, v
DELETE FROM a WHERE id BETWEEN 95 AND 97
DELETE FROM a WHERE id = 94 OR id = 3 RETURNING *
UPDATE b SET m = m * 2 WHERE id < 30 OR id > 90
UPDATE b SET w = w || '!' WHERE m IS NULL RETURNING id, w
UPDATE c SET note = note || '!' WHERE y = 'q'
UPDATE c SET note = 'x=' || x WHERE x BETWEEN 8 AND 32 AND y = 'r'
DELETE FROM c WHERE x = 40
UPDATE h SET val = val + 10 WHERE id BETWEEN 10 AND 20
UPDATE h SET val = 0 WHERE val = 12 RETURNING id
UPDATE g SET score = score + 1 WHERE grp = 2
UPDATE g SET score = 0 WHERE id BETWEEN 35 AND 45
UPDATE arch SET v = upper(v) WHERE src = 'seed'
UPDATE a SET n = NULL WHERE id % 10 = 0
UPDATE a SET n = 0 WHERE n IS NULL AND id > 80
DELETE FROM b WHERE w LIKE 'b9%' RETURNING id
UPDATE u SET factor = factor + 1 WHERE code > 5
UPDATE a SET id = id + 1000 WHERE id = 48
UPDATE a SET id = id + 1000 WHERE id = 1048 RETURNING id, v
UPDATE b SET id = 4 WHERE id = 88
UPDATE a SET v = 'nothing' WHERE id > 5000
DELETE FROM b WHERE id BETWEEN 1000 AND 2000
UPDATE c SET a_id = a_id + 1 WHERE note LIKE 'p%'
UPDATE a SET v = v WHERE true

-- group: writes within one range
-- expect: run
UPDATE a SET v = 'one range' WHERE id BETWEEN 10 AND 12
DELETE FROM b WHERE id BETWEEN 55 AND 56
UPDATE b SET m = 1 WHERE id BETWEEN 20 AND 24 RETURNING id, m
UPDATE c SET note = 'c range' WHERE x = 5
DELETE FROM arch WHERE id = 1850
UPDATE g SET score = 1 WHERE id BETWEEN 40 AND 42
UPDATE p SET tag = 'r' WHERE id BETWEEN 41 AND 43
UPDATE a SET n = n * 2 WHERE id = 20
INSERT INTO a VALUES (101, 'a101', 1)
INSERT INTO b VALUES (101, 'b101', 1)
INSERT INTO arch VALUES (1001, 'one', 1, 'x'), (1002, 'one', 2, 'y')
UPDATE a SET v = 'sum bounds' WHERE id BETWEEN 10 + 3 AND 20 - 5
DELETE FROM b WHERE id = 50 + 7 RETURNING id
INSERT INTO a VALUES (100 + 2, 'a102', 1 + 1)

-- group: point writes with the related rows on one shard
-- The router narrows each table by its own key conditions: both rows are on one shard.
-- expect: run
UPDATE a SET v = b.w FROM b WHERE a.id = 10 AND b.id = 10
UPDATE a SET v = b.w FROM b WHERE a.id = 60 AND b.id = 60
UPDATE a SET v = b.w || '+' FROM b WHERE a.id = b.id AND a.id = 11 AND b.id = 11
UPDATE a SET n = b.m FROM b WHERE b.id = 62 AND a.id = 62 RETURNING a.id, a.n, b.w
DELETE FROM a USING b WHERE a.id = 61 AND b.id = 61 AND b.m IS NOT NULL
UPDATE a SET v = (SELECT w FROM b WHERE b.id = 12) WHERE a.id = 12
UPDATE a SET n = (SELECT m FROM b WHERE id = 63) WHERE id = 63
UPDATE a SET v = 'exists' WHERE id = 13 AND EXISTS (SELECT 1 FROM b WHERE b.id = 13)
UPDATE a SET v = 'in' WHERE id = 64 AND id IN (SELECT id FROM b WHERE id = 64)
DELETE FROM a WHERE id = 14 AND EXISTS (SELECT 1 FROM b WHERE id = 14 AND m IS NOT NULL)
INSERT INTO a VALUES (301, (SELECT w FROM b WHERE id = 66), 1)
WITH x AS (SELECT id, w FROM b WHERE id = 15) UPDATE a SET v = x.w FROM x WHERE a.id = x.id AND a.id = 15
UPDATE c SET note = a.v FROM a WHERE c.x = 25 AND c.y = 'p' AND a.id = 25
UPDATE arch SET v = (SELECT v FROM a WHERE id = 21) WHERE id = 1050
UPDATE fk_cascade SET note = u.label FROM u WHERE fk_cascade.id = 35 AND u.code = 5
UPDATE b SET w = (SELECT v FROM a WHERE id = 16) WHERE id = 16 RETURNING id, w
DELETE FROM b WHERE id = 17 AND NOT EXISTS (SELECT 1 FROM a WHERE id = 17 AND v = 'no such')
UPDATE a SET v = 'self' FROM a a2 WHERE a.id = 65 AND a2.id = 66
UPDATE g SET score = (SELECT n FROM a WHERE id = 45) WHERE id = 45

-- group: UPDATE … FROM a table split elsewhere
-- expect: run
UPDATE a SET v = 'x' FROM b WHERE a.id = b.id AND b.id < 30
UPDATE a SET v = b.w FROM b WHERE a.id = b.id AND b.id BETWEEN 45 AND 55
UPDATE a SET n = b.m FROM b WHERE b.id = a.id + 1 AND a.id BETWEEN 75 AND 85
UPDATE b SET w = a.v FROM a WHERE a.id = b.id AND a.n = 4
UPDATE a SET v = a.v || c.y FROM c WHERE c.x = a.id AND c.y = 'q' AND a.id < 45
UPDATE c SET note = a.v FROM a WHERE a.id = c.a_id AND c.x BETWEEN 15 AND 25
UPDATE a SET v = g.email FROM g WHERE g.id = a.id AND g.grp = 1
UPDATE a SET v = 'joined' FROM b JOIN c ON c.x = b.id AND c.y = 'r' WHERE a.id = b.id AND b.id BETWEEN 1 AND 40
UPDATE a SET v = b.w FROM b WHERE a.id = b.id AND a.id = 30
UPDATE a SET v = b.w FROM b WHERE a.id = b.id AND a.id IN (5, 25, 55, 85)
UPDATE a SET v = 'y' FROM b WHERE a.id = b.id AND b.id < 30 RETURNING a.id, b.w
UPDATE arch SET v = a.v FROM a WHERE arch.ref = a.id
UPDATE a SET n = hh.val FROM (SELECT a_id, max(val) AS val FROM h GROUP BY a_id) hh WHERE hh.a_id = a.id
UPDATE b SET m = a.n FROM a WHERE a.id = b.id + 50 AND b.id BETWEEN 1 AND 40
UPDATE a SET v = b.w FROM b WHERE b.id = a.id AND b.w LIKE 'b7%'
UPDATE c SET note = b.w FROM b WHERE b.id = c.x AND c.y = 'p'
UPDATE a SET v = 'nomatch' FROM b WHERE a.id = b.id AND b.id > 1000
UPDATE a SET n = 7 FROM b WHERE a.id = b.id AND b.m = 5 AND a.id BETWEEN 40 AND 60 RETURNING a.id
UPDATE g SET grp = b.m FROM b WHERE b.id = g.id AND g.id BETWEEN 30 AND 50

-- group: UPDATE … FROM the unsharded table
-- expect: run
UPDATE a SET v = u.label FROM u WHERE a.n = u.code AND a.id BETWEEN 20 AND 70
UPDATE u SET label = a.v FROM a WHERE a.id = u.code + 40
UPDATE b SET m = u.factor FROM u WHERE u.code = b.m
UPDATE c SET note = u.label FROM u WHERE u.code = c.x % 10 AND c.y = 'p'
UPDATE h SET val = u.factor FROM u WHERE u.code = h.val AND h.id < 30
UPDATE a SET n = u.factor FROM u WHERE u.code = 3 AND a.id IN (2, 52)
UPDATE u SET factor = b.m FROM b WHERE b.id = u.code AND b.m IS NOT NULL
UPDATE a SET v = u.label FROM u WHERE u.code = a.id AND a.id = 9

-- group: UPDATE … FROM the same table (self-joins)
-- expect: run
UPDATE a SET v = a2.v FROM a a2 WHERE a2.id = a.id + 50 AND a.id BETWEEN 1 AND 40
UPDATE a SET n = a2.n FROM a a2 WHERE a2.id = a.id - 1 AND a.id BETWEEN 48 AND 52
UPDATE b SET w = b2.w FROM b b2 WHERE b2.id = b.id + 30 AND b.id BETWEEN 10 AND 30
UPDATE a SET v = 'same' FROM a a2 WHERE a2.id = a.id AND a.id BETWEEN 45 AND 55
UPDATE c SET note = c2.note FROM c c2 WHERE c2.x = c.x + 15 AND c2.y = c.y AND c.x BETWEEN 1 AND 10
UPDATE h SET val = h2.val FROM h h2 WHERE h2.id = h.id + 1 AND h.id BETWEEN 30 AND 40
UPDATE a SET n = a2.n + 1 FROM a a2 WHERE a2.id = 50 AND a.id = 49
UPDATE g SET score = g2.score FROM g g2 WHERE g2.id = g.id + 40 AND g.id BETWEEN 1 AND 10

-- group: DELETE … USING
-- expect: run
DELETE FROM a USING b WHERE a.id = b.id AND b.m = 6 AND b.id BETWEEN 20 AND 60
DELETE FROM b USING a WHERE a.id = b.id AND a.n = 9
DELETE FROM a USING u WHERE a.n = u.code AND u.label = 'L7'
DELETE FROM c USING a WHERE a.id = c.a_id AND a.v LIKE 'a%'
DELETE FROM a USING a a2 WHERE a2.id = a.id + 1 AND a2.n IS NULL
DELETE FROM arch USING a WHERE arch.ref = a.id AND a.id > 25
DELETE FROM h USING a WHERE h.a_id = a.id AND a.n = 2 RETURNING h.id
DELETE FROM g USING b WHERE g.id = b.id AND b.m = 5
DELETE FROM a USING b, c WHERE a.id = b.id AND c.x = b.id AND c.y = 'p' AND b.id BETWEEN 35 AND 45
DELETE FROM b USING b b2 WHERE b2.id = b.id - 40 AND b2.m IS NOT NULL AND b.id BETWEEN 65 AND 72 RETURNING b.id
DELETE FROM u USING a WHERE a.id = u.code + 60 AND u.code = 8
DELETE FROM a USING b WHERE a.id = b.id AND a.id = 33
DELETE FROM c USING u WHERE u.code = c.x AND c.y = 'q'
DELETE FROM a USING (SELECT id FROM b WHERE m = 4) s WHERE a.id = s.id AND a.id > 70

-- group: subqueries in SET
-- expect: run
UPDATE a SET v = (SELECT w FROM b WHERE b.id = a.id) WHERE a.id < 3
UPDATE a SET v = (SELECT w FROM b WHERE b.id = a.id) WHERE a.id BETWEEN 18 AND 22
UPDATE a SET n = (SELECT count(*) FROM b WHERE b.m = a.n) WHERE id BETWEEN 40 AND 60
UPDATE a SET n = (SELECT max(m) FROM b) WHERE id = 34
UPDATE a SET v = (SELECT label FROM u WHERE code = a.n) WHERE id BETWEEN 60 AND 70
UPDATE a SET (v, n) = (SELECT w, m FROM b WHERE b.id = a.id) WHERE id BETWEEN 75 AND 85
UPDATE c SET note = (SELECT v FROM a WHERE a.id = c.a_id) WHERE x BETWEEN 5 AND 15
UPDATE b SET m = (SELECT count(*) FROM a WHERE a.n = b.m) WHERE id BETWEEN 1 AND 25
UPDATE h SET val = (SELECT n FROM a WHERE a.id = h.a_id) WHERE id <= 20
UPDATE a SET n = (SELECT count(*) FROM h) WHERE id = 2
UPDATE a SET v = coalesce((SELECT w FROM b WHERE b.id = a.id + 100), 'none') WHERE id = 4
UPDATE a SET n = (SELECT sum(factor) FROM u) WHERE id = 66
UPDATE a SET n = (SELECT n FROM a a2 WHERE a2.id = a.id + 50) WHERE id BETWEEN 1 AND 5
UPDATE a SET v = (SELECT w FROM b WHERE b.id = (SELECT max(x) FROM c)) WHERE id = 8
UPDATE a SET n = (SELECT m FROM b WHERE id > 10) WHERE id BETWEEN 9 AND 12
UPDATE g SET score = (SELECT count(*) FROM b WHERE b.m = g.grp) WHERE id BETWEEN 35 AND 45
UPDATE a SET v = (SELECT string_agg(w, ',' ORDER BY id) FROM b WHERE id BETWEEN 18 AND 21) WHERE id = 6
UPDATE b SET w = (SELECT v FROM a WHERE a.id = b.id) WHERE id IN (18, 19, 20, 21) RETURNING id, w
UPDATE a SET n = (SELECT count(*) FROM c WHERE c.a_id = a.id) WHERE id BETWEEN 10 AND 30
UPDATE u SET label = (SELECT v FROM a WHERE id = 57) WHERE code = 1
UPDATE a SET v = CASE WHEN EXISTS (SELECT 1 FROM b WHERE b.id = a.id) THEN 'has b' ELSE 'no b' END WHERE id BETWEEN 95 AND 101
UPDATE a SET n = (SELECT min(a_id) FROM h WHERE h.val = a.n) WHERE id BETWEEN 70 AND 74

-- group: subqueries in WHERE
-- expect: run
UPDATE a SET v = 'in' WHERE id IN (SELECT id FROM b WHERE m = 3)
UPDATE a SET v = 'in2' WHERE id IN (SELECT id FROM b WHERE id BETWEEN 30 AND 60 AND m = 1)
DELETE FROM a WHERE id IN (SELECT id FROM b WHERE id BETWEEN 30 AND 32)
UPDATE a SET v = 'notin' WHERE n NOT IN (SELECT m FROM b WHERE id < 30)
UPDATE a SET v = 'notin2' WHERE n NOT IN (SELECT m FROM b WHERE id < 30 AND m IS NOT NULL)
UPDATE a SET v = 'notin3' WHERE id NOT IN (SELECT id FROM b)
UPDATE a SET v = 'notin4' WHERE n NOT IN (SELECT code FROM u)
DELETE FROM arch WHERE ref NOT IN (SELECT id FROM a) AND src = 'seed'
UPDATE a SET v = 'ex' WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.id = 40)
UPDATE a SET v = 'ex2' WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.m = 0)
UPDATE a SET v = 'nex' WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = a.id)
DELETE FROM c WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.id = c.a_id) AND x > 30
UPDATE a SET n = 0 WHERE n > ANY (SELECT m FROM b WHERE id BETWEEN 40 AND 45)
UPDATE a SET n = 1 WHERE n <= ALL (SELECT m FROM b WHERE id BETWEEN 20 AND 25 AND m IS NOT NULL) AND id < 60
UPDATE a SET v = 'all null' WHERE n < ALL (SELECT m FROM b WHERE id IN (13, 26))
UPDATE a SET v = 'eqany' WHERE id = ANY (SELECT a_id FROM h WHERE val = 3)
UPDATE a SET v = 'scalar' WHERE id = (SELECT min(id) FROM b WHERE m = 4)
UPDATE a SET v = 'scalar2' WHERE n < (SELECT count(*) FROM u WHERE code < 5)
UPDATE a SET v = 'nested' WHERE id IN (SELECT id FROM b WHERE m IN (SELECT code FROM u WHERE factor > 5))
UPDATE a SET v = 'corr' WHERE n < (SELECT count(*) FROM b WHERE b.m = a.n) AND id BETWEEN 1 AND 50
DELETE FROM a WHERE id IN (SELECT a_id FROM c WHERE y = 'r' AND x BETWEEN 30 AND 35)
UPDATE b SET m = NULL WHERE id IN (SELECT id FROM a WHERE v LIKE 'n%')
UPDATE a SET v = 'rowcmp' WHERE (id, n) IN (SELECT id, m FROM b)
UPDATE u SET factor = 0 WHERE code IN (SELECT n FROM a WHERE id BETWEEN 1 AND 5)
DELETE FROM h WHERE a_id IN (SELECT id FROM a WHERE n = 1)
UPDATE g SET grp = 9 WHERE id IN (SELECT id FROM b WHERE m = 2)
DELETE FROM a WHERE id = (SELECT min(id) FROM b WHERE id > 90)
UPDATE c SET note = 'in a' WHERE a_id IN (SELECT id FROM a WHERE n = 1)
DELETE FROM b WHERE id IN (SELECT id FROM a WHERE v LIKE 'scalar%')
UPDATE a SET n = 5 WHERE id IN (SELECT a_id FROM c WHERE x IN (SELECT id FROM b WHERE m = 1))
UPDATE a SET v = 'gt' WHERE id > (SELECT max(id) FROM b) - 5
UPDATE a SET v = 'notexists u' WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.code = a.n) AND id < 20
UPDATE h SET val = 99 WHERE EXISTS (SELECT 1 FROM a WHERE a.id = h.a_id AND a.v LIKE 'n%')
DELETE FROM g WHERE grp IN (SELECT m FROM b WHERE id BETWEEN 2 AND 4)
UPDATE a SET v = 'in arch' WHERE id IN (SELECT ref FROM arch)
UPDATE a SET v = 'null in' WHERE n IN (SELECT m FROM b WHERE m IS NULL)
UPDATE a SET v = 'not in empty' WHERE id NOT IN (SELECT id FROM b WHERE id < 0) AND id BETWEEN 70 AND 72

-- group: subqueries in RETURNING
-- expect: run
UPDATE a SET n = 1 WHERE id = 5 RETURNING id, (SELECT w FROM b WHERE b.id = a.id)
UPDATE a SET n = 2 WHERE id BETWEEN 19 AND 21 RETURNING id, (SELECT w FROM b WHERE b.id = a.id)
DELETE FROM arch WHERE id = 1001 RETURNING id, (SELECT count(*) FROM a)
INSERT INTO arch VALUES (2700, 'ret', 7, 'x') RETURNING id, (SELECT v FROM a WHERE id = 7)
UPDATE c SET note = 'r' WHERE x = 3 RETURNING x, y, (SELECT label FROM u WHERE code = c.x)
UPDATE b SET m = 3 WHERE id = 60 RETURNING id, (SELECT v FROM a WHERE id = 60), EXISTS (SELECT 1 FROM c WHERE c.x = b.id)
DELETE FROM h WHERE id = (SELECT min(id) FROM h WHERE id > 40) RETURNING id, (SELECT v FROM a WHERE a.id = h.a_id)
UPDATE a SET v = 'ret' WHERE id BETWEEN 45 AND 52 RETURNING id, (SELECT max(id) FROM b)
UPDATE u SET factor = factor WHERE code = 2 RETURNING code, (SELECT count(*) FROM a WHERE a.n = u.code)

-- group: subqueries in INSERT … VALUES
INSERT INTO arch VALUES (2801, 'val', 5, (SELECT w FROM b WHERE id = 5))
INSERT INTO arch VALUES (802, 'val', 25, (SELECT w FROM b WHERE id = 25))
INSERT INTO arch VALUES (1803, 'val', (SELECT max(id) FROM a), 'x')
INSERT INTO arch VALUES (804, 'val', (SELECT count(*) FROM b WHERE m = 1), (SELECT label FROM u WHERE code = 2))
INSERT INTO arch VALUES ((SELECT max(id) FROM arch) + 1, 'key from a subquery', NULL, NULL)
INSERT INTO arch VALUES (1805, 'exists', NULL, CASE WHEN EXISTS (SELECT 1 FROM b WHERE id = 77) THEN 'yes' ELSE 'no' END)
INSERT INTO arch VALUES (806, 'in', NULL, CASE WHEN 35 IN (SELECT id FROM a) THEN 'yes' ELSE 'no' END)
INSERT INTO a VALUES (302, (SELECT w FROM b WHERE id = 85), (SELECT count(*) FROM c))
INSERT INTO b VALUES (102, (SELECT v FROM a WHERE id = 102 - 100), 1)
INSERT INTO c VALUES (41, 'p', (SELECT max(id) FROM a WHERE id < 50), 'sub')
INSERT INTO h VALUES (501, (SELECT min(id) FROM a), 1)
INSERT INTO arch VALUES (2807, 'two rows', 1, (SELECT w FROM b WHERE id > 90))
INSERT INTO arch VALUES (808, 'nested', (SELECT count(*) FROM a WHERE n IN (SELECT m FROM b WHERE id < 10)), NULL)
INSERT INTO arch VALUES (1809, 'a', 1, (SELECT v FROM a WHERE id = 24)), (2809, 'b', 2, (SELECT w FROM b WHERE id = 24))

-- group: writing CTEs
-- expect: run
WITH d AS (DELETE FROM a WHERE id BETWEEN 86 AND 88 RETURNING id, v) INSERT INTO arch SELECT id + 2000, 'moved', id, v FROM d
WITH d AS (DELETE FROM b WHERE id = 77 RETURNING *) INSERT INTO arch SELECT id + 1000, 'b', id, w FROM d
WITH d AS (DELETE FROM arch WHERE src = 'moved' RETURNING ref, v) INSERT INTO a SELECT ref, v, 0 FROM d
WITH up AS (UPDATE b SET m = 99 WHERE id BETWEEN 45 AND 55 RETURNING id) UPDATE a SET n = 99 WHERE id IN (SELECT id FROM up)
WITH up AS (UPDATE a SET n = n + 1 WHERE id = 20 RETURNING id, n) SELECT * FROM up
WITH up AS (UPDATE a SET v = 'cte' WHERE id BETWEEN 40 AND 60 RETURNING id) SELECT count(*) FROM up
WITH x AS (SELECT id FROM b WHERE id = 41) UPDATE a SET v = 'c' FROM x WHERE a.id = x.id
WITH x AS (SELECT id, w FROM b WHERE m = 5) UPDATE a SET v = x.w FROM x WHERE a.id = x.id
WITH x AS (SELECT code FROM u WHERE code > 3) DELETE FROM a WHERE n IN (SELECT code FROM x) AND id > 60
WITH x AS MATERIALIZED (SELECT max(id) AS m FROM a) INSERT INTO arch SELECT m + 3000, 'max', m, NULL FROM x
WITH ins AS (INSERT INTO arch VALUES (2900, 'cte ins', 1, 'v') RETURNING id) SELECT id FROM ins
WITH ins AS (INSERT INTO arch VALUES (904, 'cte', 1, 'v'), (1904, 'cte', 2, 'v') RETURNING id) UPDATE a SET v = 'after ins' WHERE id IN (SELECT id - 900 FROM ins)
WITH d AS (DELETE FROM c WHERE x = 39 RETURNING a_id) UPDATE a SET v = 'c deleted' WHERE id IN (SELECT a_id FROM d)
WITH d1 AS (DELETE FROM a WHERE id = 89 RETURNING id), d2 AS (DELETE FROM b WHERE id IN (SELECT id FROM d1) RETURNING id) SELECT (SELECT count(*) FROM d1) AS a_rows, (SELECT count(*) FROM d2) AS b_rows
WITH r AS (SELECT id FROM a WHERE n = 7) SELECT count(*) FROM r
WITH r AS (SELECT id FROM b WHERE m = 2) UPDATE a SET n = 5 WHERE id IN (SELECT id FROM r) RETURNING id
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 5) UPDATE a SET v = 'rec' WHERE id IN (SELECT i * 11 FROM s)
WITH d AS (DELETE FROM h WHERE id BETWEEN 51 AND 55 RETURNING a_id, val) UPDATE a SET n = d.val FROM d WHERE a.id = d.a_id
WITH up AS (UPDATE c SET note = 'cte c' WHERE x = 22 RETURNING a_id) DELETE FROM arch WHERE ref IN (SELECT a_id - 30 FROM up)
WITH x AS (SELECT id FROM a WHERE id = 23), y AS (UPDATE b SET w = 'y' WHERE id IN (SELECT id FROM x) RETURNING id) SELECT count(*) FROM y
WITH d AS (DELETE FROM u WHERE code = 9 RETURNING code, label) INSERT INTO arch SELECT 955, 'u', code, label FROM d
WITH x AS (SELECT id FROM b WHERE id BETWEEN 70 AND 79) DELETE FROM a USING x WHERE a.id = x.id RETURNING a.id
WITH s AS (SELECT id, v FROM a WHERE id BETWEEN 1 AND 5) INSERT INTO arch SELECT id + 1200, 'cte select', id, v FROM s

-- group: data-modifying WITH over several shards
-- expect: run
WITH d AS (DELETE FROM a WHERE id BETWEEN 61 AND 66 RETURNING id, v, n) INSERT INTO arch SELECT id + 5000, 'dm', n, v FROM d RETURNING id, ref, v
WITH d AS (DELETE FROM arch WHERE src = 'dm' AND id < 5064 RETURNING ref, v, id - 5000 AS k) INSERT INTO a SELECT k, v || ' back', ref FROM d
WITH u AS (UPDATE b SET m = coalesce(m, 0) + 10, w = w || '!' WHERE id BETWEEN 20 AND 80 RETURNING id, m, w) SELECT count(*), sum(m), min(w), max(id) FROM u
WITH u AS (UPDATE b SET m = m - 10 WHERE id BETWEEN 20 AND 80 AND m >= 10 RETURNING id, m) SELECT id, m FROM u WHERE m > 3 ORDER BY m DESC, id LIMIT 7
WITH i AS (INSERT INTO arch VALUES (6001, 'dm2', 5, 'x''y'), (6101, 'dm2', 95, NULL), (6201, 'dm2', 50, 'z') RETURNING *) SELECT i.id, i.v, a.v AS a_v FROM i JOIN a ON a.id = i.ref ORDER BY i.id
WITH d1 AS (DELETE FROM b WHERE id IN (3, 48, 93) RETURNING id, w), d2 AS (UPDATE c SET note = 'b gone ' || d1.w FROM d1 WHERE c.x = d1.id RETURNING c.x, c.y), d3 AS (INSERT INTO arch SELECT x * 1000 + ascii(y) + 70000, 'dm3', x, y FROM d2 RETURNING id) SELECT (SELECT count(*) FROM d1) AS b_rows, (SELECT count(*) FROM d2) AS c_rows, (SELECT count(*) FROM d3) AS arch_rows
WITH d AS (DELETE FROM a WHERE id BETWEEN 1000 AND 2000 RETURNING id, v) INSERT INTO arch SELECT id, 'none', 0, v FROM d
WITH d AS (DELETE FROM a WHERE id > 5000 RETURNING *) SELECT count(*), max(id) FROM d
WITH d AS (DELETE FROM b WHERE id BETWEEN 97 AND 99) SELECT count(*) FROM a WHERE id > 90
WITH d AS (DELETE FROM h WHERE id BETWEEN 30 AND 34 RETURNING id, a_id, val) UPDATE a SET n = d.val + 100 FROM d WHERE a.id = d.a_id RETURNING a.id, a.n
WITH u AS (UPDATE g SET score = score + 1 WHERE grp = 3 RETURNING id, email, score) INSERT INTO arch SELECT id + 8000, 'g', score, email FROM u
WITH x AS (SELECT id FROM b WHERE m = 1), d AS (DELETE FROM c WHERE a_id IN (SELECT id * 2 FROM x) AND y = 'q' RETURNING x, note) SELECT count(*), min(note) FROM d
WITH d AS (DELETE FROM a WHERE id BETWEEN 70 AND 72 RETURNING id, v) INSERT INTO arch SELECT NULL, 'fails', id, v FROM d
WITH u AS (UPDATE a SET n = n / (n - n) WHERE id BETWEEN 10 AND 90 RETURNING id) SELECT count(*) FROM u
WITH d AS (DELETE FROM b WHERE id = 50 RETURNING id, w, m, 1.5::numeric(4,2) AS r, ARRAY[id, m] AS arr, (id, w) AS pair) SELECT * FROM d
BEGIN
WITH d AS (DELETE FROM a WHERE id BETWEEN 73 AND 75 RETURNING id, v) INSERT INTO arch SELECT id + 9000, 'blk', id, v FROM d
SELECT count(*) FROM arch WHERE src = 'blk'
ROLLBACK
BEGIN
UPDATE a SET v = 'in block' WHERE id = 76
WITH d AS (DELETE FROM a WHERE id BETWEEN 76 AND 78 RETURNING id, v) INSERT INTO arch SELECT id + 9000, 'blk2', id, v FROM d
COMMIT

-- group: data-modifying WITH that one snapshot would answer differently
WITH d AS (DELETE FROM a WHERE id = 5 OR id = 95 RETURNING id) SELECT count(*) FROM a
WITH u AS (UPDATE b SET m = 0 WHERE id BETWEEN 1 AND 99 RETURNING id) UPDATE b SET w = 'twice' WHERE id IN (SELECT id FROM u)
WITH d AS (DELETE FROM b WHERE id BETWEEN 10 AND 90) SELECT * FROM d
WITH d AS (DELETE FROM a WHERE id IN (7, 57) RETURNING id) SELECT count(*) FROM va
WITH d AS (UPDATE b SET w = 'f' WHERE id IN (8, 58) RETURNING id) SELECT b_w(8), count(*) FROM d
WITH d AS (DELETE FROM public.a WHERE id IN (9, 59) RETURNING id) SELECT count(*) FROM a
WITH r AS (DELETE FROM rf WHERE id = 4 RETURNING id) SELECT count(*) FROM fk_rf

-- group: INSERT … SELECT
-- expect: run
INSERT INTO arch SELECT id + 1100, 'copy', id, v FROM a WHERE id BETWEEN 1 AND 10
INSERT INTO arch SELECT id + 2100, 'copy', id, w FROM b WHERE id BETWEEN 15 AND 25
INSERT INTO a SELECT id + 400, v, n FROM a WHERE id BETWEEN 45 AND 55
INSERT INTO a SELECT id + 500, w, m FROM b WHERE m = 1
INSERT INTO b SELECT a_id + 300, note, x FROM c WHERE y = 'p' AND x < 8
INSERT INTO arch SELECT 4000 + code, 'u', code, label FROM u WHERE code IS NOT NULL
INSERT INTO u SELECT 1000 + id, v, 1 FROM a WHERE id BETWEEN 40 AND 60
INSERT INTO a SELECT id, 'conflict', 0 FROM b WHERE id BETWEEN 5 AND 60 ON CONFLICT (id) DO NOTHING
INSERT INTO a SELECT id, 'upsert ' || w, m FROM b WHERE id BETWEEN 45 AND 55 ON CONFLICT (id) DO UPDATE SET v = excluded.v
INSERT INTO a SELECT id, w, m FROM b WHERE id BETWEEN 45 AND 55 ON CONFLICT (id) DO UPDATE SET v = a.v || '+' WHERE a.n < 3
INSERT INTO a SELECT id, 'dup', 0 FROM b WHERE id = 10
INSERT INTO h SELECT id + 1000, id, n FROM a WHERE id BETWEEN 1 AND 10
INSERT INTO g SELECT id + 500, 'new' || id || '@x', 1, 0 FROM a WHERE id BETWEEN 1 AND 5
INSERT INTO g SELECT id + 600, email, 1, 0 FROM g WHERE id = 7
INSERT INTO c SELECT x + 100, y, a_id, note FROM c WHERE x < 5
INSERT INTO arch SELECT 5000 + a.id, 'lateral', a.id, l.w FROM a, LATERAL (SELECT w FROM b WHERE b.id = a.id) l WHERE a.id BETWEEN 10 AND 30
INSERT INTO arch (id, src) SELECT 5100 + id, 'union' FROM (SELECT id FROM a WHERE id < 5 UNION SELECT id FROM b WHERE id > 95) s
INSERT INTO arch SELECT id + 6000, 'only key', NULL, NULL FROM a WHERE id = 42
INSERT INTO a (id, v) SELECT 900 + code, label FROM u WHERE code < 3
INSERT INTO arch SELECT 7000 + id, 'agg', count(*), NULL FROM b GROUP BY id HAVING id BETWEEN 20 AND 22
INSERT INTO b SELECT id, 'again', 1 FROM b WHERE id = 20 ON CONFLICT (id) DO UPDATE SET w = b.w || ' again'
INSERT INTO a SELECT id + 700, v, n FROM a WHERE id IN (SELECT id FROM b WHERE m = 6) RETURNING id
INSERT INTO arch SELECT 8000 + x, y, a_id, note FROM c WHERE x = 12 AND y = 'p'
INSERT INTO a SELECT 800, 'one row', 1 WHERE EXISTS (SELECT 1 FROM b WHERE id = 50)

-- group: multi-row INSERT over several shards
-- expect: run
INSERT INTO arch VALUES (20, 'multi', 1, 'a'), (1020, 'multi', 2, 'b'), (2020, 'multi', 3, 'c')
INSERT INTO a VALUES (601, 'm1', 1), (-1, 'm2', 2)
INSERT INTO a VALUES (602, 'm3', 1), (2, 'dup', 1)
INSERT INTO b VALUES (201, 'x', 1), (202, 'y', 2), (1, 'dup', 3) ON CONFLICT (id) DO NOTHING
INSERT INTO arch VALUES (30, 'ret', 1, 'a'), (1030, 'ret', 2, 'b') RETURNING id, src

-- group: LATERAL
-- expect: run
UPDATE a SET v = l.w FROM b, LATERAL (SELECT b.w || '!' AS w) l WHERE a.id = b.id AND b.id BETWEEN 18 AND 22
UPDATE a SET n = l.c FROM LATERAL (SELECT count(*)::int4 AS c FROM b WHERE b.m = 3) l WHERE a.id = 44
DELETE FROM arch USING LATERAL (SELECT max(id) AS m FROM a WHERE id < 100) l WHERE arch.ref > l.m / 5
SELECT a.id, l.w FROM a, LATERAL (SELECT w FROM b WHERE b.id = a.id + 1) l WHERE a.id BETWEEN 45 AND 52 ORDER BY a.id
SELECT a.id, l.cnt FROM a CROSS JOIN LATERAL (SELECT count(*) AS cnt FROM c WHERE c.a_id = a.id) l WHERE a.id BETWEEN 10 AND 20 ORDER BY a.id
UPDATE c SET note = l.v FROM LATERAL (SELECT v FROM a WHERE a.id = 4) l WHERE c.x = 3
UPDATE a SET v = l.w FROM LATERAL (SELECT w FROM b WHERE b.id = 12) l WHERE a.id = 12
UPDATE b SET w = l.v FROM a, LATERAL (SELECT a.v || '/' || a.id AS v) l WHERE a.id = b.id AND b.id BETWEEN 60 AND 70
SELECT b.id, l.n FROM b LEFT JOIN LATERAL (SELECT n FROM a WHERE a.id = b.id) l ON true WHERE b.id BETWEEN 25 AND 30 ORDER BY b.id
UPDATE h SET val = l.n FROM LATERAL (SELECT n FROM a WHERE a.id = 5) l WHERE h.id BETWEEN 26 AND 29

-- group: set operations in subqueries
-- expect: run
DELETE FROM a WHERE id IN (SELECT id FROM b WHERE m = 1 UNION SELECT x FROM c WHERE y = 'p' AND x > 35)
UPDATE a SET v = 'except' WHERE id IN (SELECT id FROM b WHERE id < 40 EXCEPT SELECT a_id FROM h)
UPDATE a SET v = 'intersect' WHERE id IN (SELECT id FROM b INTERSECT SELECT a_id FROM c)
UPDATE a SET n = (SELECT count(*) FROM (SELECT m FROM b UNION SELECT code FROM u) s) WHERE id = 6
UPDATE a SET v = 'union all' WHERE id IN (SELECT id FROM b WHERE id BETWEEN 20 AND 22 UNION ALL SELECT id FROM b WHERE id BETWEEN 60 AND 62)
UPDATE a SET v = 'z' WHERE id IN (SELECT id FROM b UNION SELECT 1)
INSERT INTO arch SELECT 5200 + id, 'setop', id, NULL FROM (SELECT id FROM a EXCEPT SELECT id FROM b) s WHERE id < 1000
SELECT count(*) FROM (SELECT id FROM a INTERSECT SELECT id FROM b) s
UPDATE b SET m = 4 WHERE id IN (SELECT id FROM a WHERE n = 1 INTERSECT SELECT id FROM b WHERE id > 50)
DELETE FROM h WHERE a_id IN (SELECT id FROM a WHERE id < 100 EXCEPT ALL SELECT id FROM b)
UPDATE a SET v = 'exists union' WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id UNION ALL SELECT 1 FROM c WHERE c.x = a.id) AND id BETWEEN 36 AND 40

-- group: row-locking reads
SELECT id, v FROM a WHERE id BETWEEN 45 AND 55 ORDER BY id FOR UPDATE
SELECT id FROM a WHERE n = 3 ORDER BY id FOR SHARE
SELECT id FROM a ORDER BY id LIMIT 5 FOR NO KEY UPDATE
SELECT id FROM a ORDER BY id DESC LIMIT 3 FOR KEY SHARE
SELECT id FROM b WHERE m = 2 ORDER BY id FOR UPDATE SKIP LOCKED
SELECT id FROM b WHERE id BETWEEN 15 AND 25 ORDER BY id FOR UPDATE NOWAIT
SELECT a.id, b.w FROM a JOIN b ON b.id = a.id WHERE a.id BETWEEN 15 AND 25 ORDER BY a.id FOR UPDATE
SELECT a.id FROM a JOIN b ON b.id = a.id WHERE b.m = 4 ORDER BY a.id FOR UPDATE OF a
SELECT id FROM a WHERE id = 7 FOR UPDATE
SELECT code, label FROM u ORDER BY code FOR UPDATE
SELECT id FROM h WHERE id BETWEEN 1 AND 10 ORDER BY id FOR UPDATE
SELECT x, y FROM c WHERE x BETWEEN 8 AND 12 ORDER BY x, y FOR SHARE
SELECT id FROM a WHERE id IN (SELECT id FROM b WHERE m = 6) ORDER BY id FOR UPDATE
SELECT id FROM a WHERE id BETWEEN 40 AND 60 ORDER BY id LIMIT 4 OFFSET 2 FOR UPDATE
SELECT id, email FROM g WHERE id BETWEEN 35 AND 45 ORDER BY id FOR NO KEY UPDATE
SELECT count(*) FROM (SELECT id FROM a WHERE id BETWEEN 1 AND 100 FOR UPDATE) s
BEGIN
SELECT id, n FROM a WHERE id BETWEEN 45 AND 55 ORDER BY id FOR UPDATE
UPDATE a SET n = n + 100 WHERE id BETWEEN 45 AND 55
SELECT id, n FROM a WHERE id BETWEEN 45 AND 55 ORDER BY id
COMMIT
BEGIN
SELECT id FROM b ORDER BY id LIMIT 4 FOR UPDATE SKIP LOCKED
DELETE FROM b WHERE id IN (1, 2)
ROLLBACK
BEGIN
SELECT id FROM a WHERE id BETWEEN 10 AND 60 ORDER BY id FOR SHARE
UPDATE b SET w = 'locked a' FROM a WHERE a.id = b.id AND a.id BETWEEN 10 AND 12
COMMIT

-- group: row-locking reads while another session holds locks
\hold SELECT id FROM a WHERE id = 5 FOR UPDATE
\hold SELECT id FROM a WHERE id = 70 FOR NO KEY UPDATE
\hold SELECT id FROM b WHERE id = 30 FOR SHARE
SELECT id FROM a WHERE id BETWEEN 1 AND 10 ORDER BY id FOR UPDATE SKIP LOCKED
SELECT id FROM a WHERE id BETWEEN 65 AND 75 ORDER BY id FOR KEY SHARE SKIP LOCKED
SELECT id FROM a WHERE id BETWEEN 65 AND 75 ORDER BY id FOR SHARE SKIP LOCKED
SELECT id FROM a WHERE id = 5 FOR UPDATE NOWAIT
SELECT id FROM a WHERE id BETWEEN 1 AND 100 ORDER BY id FOR SHARE NOWAIT
SELECT id FROM b WHERE id BETWEEN 25 AND 35 ORDER BY id FOR SHARE NOWAIT
SELECT id FROM b WHERE id BETWEEN 25 AND 35 ORDER BY id FOR UPDATE SKIP LOCKED
SELECT a.id, b.w FROM a JOIN b ON b.id = a.id WHERE a.id BETWEEN 1 AND 8 ORDER BY a.id FOR UPDATE OF a SKIP LOCKED
SELECT id FROM a ORDER BY id LIMIT 6 FOR UPDATE SKIP LOCKED
UPDATE a SET v = 'queued' WHERE id IN (SELECT id FROM a WHERE id BETWEEN 1 AND 10 ORDER BY id FOR UPDATE SKIP LOCKED)
DELETE FROM b WHERE id = (SELECT id FROM b WHERE id BETWEEN 28 AND 32 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
\release
SELECT id FROM a WHERE id = 5 FOR UPDATE NOWAIT

-- group: writes to the hash-sharded table
INSERT INTO h VALUES (2001, 1, 1), (2002, 2, 2), (2003, 3, 3)
UPDATE h SET val = val + 1 WHERE id = 2002
UPDATE h SET val = val + 1 WHERE id = 2000 + 3
INSERT INTO h VALUES (2000 + 4, 4, 4)
DELETE FROM h WHERE id = 2010 - 6 RETURNING *
UPDATE h SET val = a.n FROM a WHERE a.id = h.a_id AND h.id BETWEEN 1 AND 15
DELETE FROM h WHERE id IN (SELECT id FROM b WHERE m = 3)
UPDATE a SET n = (SELECT val FROM h WHERE h.id = a.id) WHERE id BETWEEN 1 AND 10
UPDATE h SET id = id + 3000 WHERE id = 9
UPDATE h SET a_id = b.id FROM b WHERE b.id = h.id + 40 AND h.id < 12
DELETE FROM h USING b WHERE b.id = h.id AND b.w LIKE 'b4%'
INSERT INTO h SELECT id + 4000, id, 1 FROM h WHERE id BETWEEN 30 AND 35
UPDATE h SET val = (SELECT count(*) FROM h h2 WHERE h2.val = h.val) WHERE id BETWEEN 2001 AND 2003

-- group: writes to the table with global indexes
UPDATE g SET email = b.w || '@b' FROM b WHERE b.id = g.id AND g.id BETWEEN 35 AND 45
UPDATE g SET email = 'g1@x' WHERE id = 2
UPDATE g SET email = (SELECT email FROM g g2 WHERE g2.id = 50) WHERE id = 3
DELETE FROM g WHERE email IN (SELECT 'g' || id || '@x' FROM b WHERE m = 6)
SELECT id, email, grp FROM g WHERE email = 'g12@x'
SELECT id, email FROM g WHERE email IN ('g13@x', 'g53@x', 'g73@x') ORDER BY id
UPDATE g SET grp = a.n FROM a WHERE a.id = g.id AND g.grp = 3
SELECT id FROM g WHERE grp = 9 ORDER BY id
UPDATE g SET email = NULL WHERE id IN (SELECT id FROM b WHERE m = 0)
INSERT INTO g SELECT 900 + id, 'b' || id || '@g', 2, 2 FROM b WHERE id BETWEEN 1 AND 3
UPDATE g SET email = 'swap' WHERE id = 4
UPDATE g SET email = CASE id WHEN 5 THEN 'g50@x' WHEN 50 THEN 'g5@x' END WHERE id IN (5, 50)
SELECT id, email FROM g WHERE email LIKE 'g5%' ORDER BY id
DELETE FROM g WHERE id IN (SELECT id + 1 FROM a WHERE n = 2)

-- group: writes to the table with a composite key
UPDATE c SET note = 'c' || a.v FROM a WHERE a.id = c.x AND c.y = 'r'
DELETE FROM c USING b WHERE b.id = c.x AND b.m = 2 AND c.y = 'q'
UPDATE c SET a_id = (SELECT max(id) FROM a WHERE a.n = c.x % 10) WHERE x BETWEEN 20 AND 22
INSERT INTO c SELECT id, 'new', id, v FROM a WHERE id BETWEEN 8 AND 12
UPDATE c SET y = y || '2' WHERE x = 12 AND y = 'p'
UPDATE c SET x = x + 50 WHERE x = 13 AND y = 'q'
DELETE FROM c WHERE (x, y) IN (SELECT n + 10, 'p' FROM a WHERE id BETWEEN 1 AND 9)
UPDATE c SET note = 'both' WHERE x IN (SELECT id FROM b WHERE m = 1) AND y IN (SELECT 'p' UNION SELECT 'q')
INSERT INTO c VALUES (19, 'zz', (SELECT max(a_id) FROM c), 'new'), (29, 'zz', 1, 'new')

-- group: transaction blocks writing several tables
BEGIN
UPDATE a SET v = 'blk' WHERE id BETWEEN 1 AND 3
UPDATE b SET w = 'blk' FROM a WHERE a.id = b.id AND a.v = 'blk'
DELETE FROM c WHERE a_id IN (SELECT id FROM a WHERE v = 'blk')
COMMIT
BEGIN
INSERT INTO arch SELECT id + 7100, 'blk', id, v FROM a WHERE id < 4
UPDATE a SET v = 'rolled back' WHERE id IN (SELECT ref FROM arch WHERE src = 'blk')
ROLLBACK
BEGIN
UPDATE a SET n = 1 WHERE id = 8
UPDATE a SET n = (SELECT count(*) FROM b) WHERE id = 8
SAVEPOINT s1
DELETE FROM b WHERE id IN (SELECT id FROM a WHERE id BETWEEN 60 AND 70)
ROLLBACK TO SAVEPOINT s1
UPDATE b SET m = 0 WHERE id IN (SELECT id FROM a WHERE n = 0)
COMMIT

-- group: foreign keys: violations of CASCADE keys
-- requires: fk_cascade
INSERT INTO fk_cascade VALUES (100, 999, 'orphan')
INSERT INTO fk_cascade VALUES (101, 25, 'parent and child on s3')
INSERT INTO fk_cascade VALUES (70, 5, 'parent on s2, child on s3')
INSERT INTO fk_cascade VALUES (120, 45, 'parent on s1, child on s3')
INSERT INTO fk_cascade VALUES (-21, 2, 'parent on s2, child on s1')
UPDATE fk_cascade SET p_id = 12 WHERE id = 3
UPDATE fk_cascade SET p_id = 999 WHERE id = 4
UPDATE fk_cascade SET p_id = p_id + 1 WHERE id BETWEEN 28 AND 32
INSERT INTO fk_cascade SELECT 200 + id, id, 'from p' FROM p WHERE id BETWEEN 15 AND 25
INSERT INTO fk_cascade VALUES (102, NULL, 'no parent')
UPDATE fk_cascade SET p_id = NULL WHERE id = 5
INSERT INTO fk_cascade VALUES (103, (SELECT max(id) FROM p), 'parent from a subquery')

-- group: foreign keys: violations of SET NULL / SET DEFAULT keys
-- requires: fk_set
INSERT INTO fk_set VALUES (100, 31, 998)
INSERT INTO fk_set VALUES (101, 35, 40)
UPDATE fk_set SET p_def = 2 WHERE id = 7

-- group: foreign keys: violations of RESTRICT / NO ACTION keys
-- requires: fk_block
INSERT INTO fk_block VALUES (100, 46, 999)
UPDATE fk_block SET p_restrict = 1000 WHERE id = 25
UPDATE fk_block SET p_restrict = 61 WHERE id = 25
UPDATE fk_block SET p_noaction = 62 WHERE id = 12

-- group: foreign keys: ON DELETE / ON UPDATE CASCADE
-- requires: fk_cascade
DELETE FROM p WHERE id = 7
DELETE FROM p WHERE id BETWEEN 10 AND 12
DELETE FROM p WHERE id = 25 RETURNING id
UPDATE p SET name = 'renamed' WHERE id = 9
UPDATE p SET id = 1008 WHERE id = 8
UPDATE p SET id = id + 100 WHERE id BETWEEN 17 AND 22
DELETE FROM p WHERE id IN (SELECT p_id FROM fk_cascade WHERE note LIKE 'k1%')
DELETE FROM p USING a WHERE a.id = p.id AND a.n = 1 AND p.id < 31
UPDATE p SET id = id + 1000 WHERE id = 30
WITH d AS (DELETE FROM p WHERE id = 29 RETURNING id) SELECT count(*) FROM d
BEGIN
DELETE FROM p WHERE id = (SELECT max(id) FROM p WHERE id < 30)
UPDATE fk_cascade SET note = 'after cascade' WHERE p_id = 26
COMMIT
DELETE FROM fk_cascade WHERE p_id = 26

-- group: foreign keys: ON DELETE / ON UPDATE SET NULL and SET DEFAULT
-- requires: fk_set
DELETE FROM p WHERE id = 33
UPDATE p SET id = 1034 WHERE id = 34
DELETE FROM p WHERE id BETWEEN 36 AND 38
UPDATE p SET id = id + 2000 WHERE id IN (39, 40)
DELETE FROM p WHERE id = 0
DELETE FROM p WHERE id = 41
DELETE FROM p WHERE id = 42

-- group: foreign keys: RESTRICT and NO ACTION
-- requires: fk_block
DELETE FROM p WHERE id = 47
DELETE FROM p WHERE id = 65
UPDATE p SET id = 1050 WHERE id = 50
UPDATE p SET name = 'kept' WHERE id = 50
DELETE FROM p WHERE id BETWEEN 46 AND 60
DELETE FROM fk_block WHERE p_restrict = 51
DELETE FROM p WHERE id = 51
BEGIN
DELETE FROM fk_block WHERE p_restrict = 52 OR p_noaction = 52
DELETE FROM p WHERE id = 52
COMMIT
BEGIN
DELETE FROM p WHERE id = 53
COMMIT
DELETE FROM p WHERE id IN (SELECT p_noaction FROM fk_block WHERE id = 3)
UPDATE fk_block SET p_noaction = NULL WHERE p_noaction = 54
UPDATE p SET id = 1054 WHERE id = 54

-- group: UNIQUE constraints
-- requires: unique
INSERT INTO uq VALUES (101, 'u3@x', 0, 100, 1010)
INSERT INTO uq VALUES (102, 'u30@x', 1, 100, 1020)
INSERT INTO uq VALUES (103, 'new103', 3, 0, 1030)
INSERT INTO uq VALUES (104, 'new104', 9, NULL, 1040)
INSERT INTO uq VALUES (105, 'new105', NULL, NULL, 1050)
INSERT INTO uq VALUES (106, 'new106', NULL, NULL, 1060)
INSERT INTO uq VALUES (107, NULL, 7, 100, 1070)
INSERT INTO uq VALUES (108, NULL, 8, 100, 1080)
INSERT INTO uq VALUES (109, 'new109', 9, 100, 30)
INSERT INTO uq VALUES (110, 'new110', 9, 101, 1100), (111, 'new110', 9, 102, 1110)
UPDATE uq SET email = 'u40@x' WHERE id = 5
UPDATE uq SET email = 'u6@x' WHERE id = 7
UPDATE uq SET email = 'u41@x' WHERE id = 42
UPDATE uq SET a = 1, b = 0 WHERE id = 2
UPDATE uq SET a = 1, b = 3 WHERE id = 2
UPDATE uq SET a = 2, b = 3 WHERE id = 45
UPDATE uq SET email = CASE id WHEN 11 THEN 'u31@x' WHEN 31 THEN 'u11@x' END WHERE id IN (11, 31)
UPDATE uq SET code = CASE id WHEN 12 THEN 320 WHEN 32 THEN 120 END WHERE id IN (12, 32)
UPDATE uq SET code = code + 10 WHERE id BETWEEN 20 AND 30
UPDATE uq SET code = 330 WHERE id = 13
UPDATE uq SET email = 'u' || (id + 25) || '@x' WHERE id = 8
INSERT INTO uq VALUES (112, 'u4@x', 0, 200, 1120) ON CONFLICT (email) DO NOTHING
INSERT INTO uq VALUES (113, 'u36@x', 0, 201, 1130) ON CONFLICT (email) DO UPDATE SET a = excluded.a
INSERT INTO uq VALUES (114, 'new114', 4, 0, 1140) ON CONFLICT ON CONSTRAINT uq_ab DO NOTHING
INSERT INTO uq VALUES (115, 'new115', 4, 3, 1150) ON CONFLICT (a, b) DO UPDATE SET email = excluded.email
INSERT INTO uq SELECT id + 200, email, a, b + 50, code + 5 FROM uq WHERE id = 9
INSERT INTO uq SELECT id + 300, 'sel' || id, a, b + 60, code + 7 FROM uq WHERE id IN (14, 44)
UPDATE uq SET email = (SELECT email FROM uq u2 WHERE u2.id = 33) WHERE id = 14
DELETE FROM uq WHERE id = 33
UPDATE uq SET email = 'u33@x' WHERE id = 14

-- group: a deferrable UNIQUE constraint
-- requires: unique, unique_deferrable
BEGIN
SET CONSTRAINTS ALL DEFERRED
UPDATE uq SET code = 150 WHERE id = 16
UPDATE uq SET code = 160 WHERE id = 15
COMMIT
BEGIN
SET CONSTRAINTS ALL DEFERRED
UPDATE uq SET code = 370 WHERE id = 17
COMMIT

-- group: a simple view over a spread table
-- requires: view_va
SELECT * FROM va WHERE id BETWEEN 45 AND 55 ORDER BY id
SELECT count(*) FROM va
UPDATE va SET v = 'via view' WHERE id BETWEEN 48 AND 52
DELETE FROM va WHERE id = 99
INSERT INTO va VALUES (150, 'via view insert', 3)
UPDATE va SET v = 'view sub' WHERE id IN (SELECT id FROM b WHERE m = 2 AND id BETWEEN 40 AND 60)
UPDATE va SET n = b.m FROM b WHERE b.id = va.id AND va.id BETWEEN 20 AND 30
DELETE FROM va USING b WHERE b.id = va.id AND b.w LIKE 'b6%'
UPDATE a SET v = 'from va' WHERE id IN (SELECT id FROM va WHERE n = 1)

-- group: a view WITH CHECK OPTION
-- requires: view_va_low
INSERT INTO va_low VALUES (151, 'ok', 2)
INSERT INTO va_low VALUES (152, 'bad', 7)
UPDATE va_low SET n = 9 WHERE id = 151
UPDATE va_low SET v = 'low' WHERE id BETWEEN 40 AND 60
SELECT id, n FROM va_low WHERE id BETWEEN 1 AND 20 ORDER BY id

-- group: a view joining tables split differently
-- requires: view_vab
SELECT * FROM vab WHERE id BETWEEN 15 AND 25 ORDER BY id
SELECT count(*) FROM vab
UPDATE a SET v = 'from vab' WHERE id IN (SELECT id FROM vab WHERE w LIKE 'b2%')
UPDATE vab SET v = 'x' WHERE id = 3
DELETE FROM arch WHERE ref IN (SELECT id FROM vab WHERE id BETWEEN 1 AND 30)

-- group: a view of the unsharded table
-- requires: view_vu
SELECT * FROM vu ORDER BY code
UPDATE vu SET label = 'LX' WHERE code = 4
UPDATE a SET v = vu.label FROM vu WHERE a.n = vu.code AND a.id BETWEEN 1 AND 12
INSERT INTO vu VALUES (20, 'L20')
DELETE FROM vu WHERE code = 20

-- group: a view over an aggregate
-- requires: view_vb_counts
SELECT * FROM vb_counts ORDER BY m NULLS FIRST
UPDATE a SET n = (SELECT cnt FROM vb_counts WHERE m = 3) WHERE id = 1
DELETE FROM arch WHERE ref IN (SELECT cnt FROM vb_counts)

-- group: SQL functions reading a spread table
-- requires: fn_b_w
UPDATE a SET v = b_w(id) WHERE id BETWEEN 15 AND 25
UPDATE a SET v = b_w(id) WHERE id = 60
UPDATE a SET v = b_w(id) WHERE id = 44
DELETE FROM a WHERE v = b_w(id + 1000)
INSERT INTO arch VALUES (1500, 'fn', 5, b_w(5))
INSERT INTO arch VALUES (2500, 'fn', 25, b_w(25))
SELECT id, b_w(id) FROM a WHERE id BETWEEN 18 AND 22 ORDER BY id
UPDATE c SET note = b_w(x) WHERE x BETWEEN 20 AND 24 AND y = 'p'
UPDATE a SET v = 'fn where' WHERE b_w(id) LIKE 'b5%'
UPDATE b SET w = b_w(id + 1) WHERE id BETWEEN 45 AND 52 RETURNING id, w

-- group: SQL functions counting a spread table
-- requires: fn_b_count
UPDATE a SET n = b_count()::int4 WHERE id = 4
UPDATE a SET n = b_count()::int4 WHERE id BETWEEN 40 AND 60
SELECT b_count()

-- group: SQL functions reading the unsharded table
-- requires: fn_u_label
UPDATE c SET note = u_label(x % 10) WHERE x BETWEEN 1 AND 5
UPDATE a SET v = u_label(n) WHERE id BETWEEN 60 AND 65
INSERT INTO arch VALUES (960, 'u fn', 1, u_label(1))

-- group: SQL functions reading no table
-- requires: fn_twice
UPDATE a SET n = twice(n) WHERE id BETWEEN 45 AND 55
UPDATE b SET m = twice(m) WHERE id = 5
SELECT id, twice(n) FROM a WHERE id BETWEEN 1 AND 3 ORDER BY id
INSERT INTO arch VALUES (2960, 'twice', twice(21), NULL)

-- group: SQL functions writing another table
-- requires: fn_bump_b
UPDATE a SET n = bump_b(id)::int4 % 10 WHERE id = 10
UPDATE a SET n = bump_b(id + 20)::int4 % 10 WHERE id = 10
UPDATE a SET v = 'bumped ' || bump_b(id) WHERE id BETWEEN 55 AND 58
SELECT bump_b(40)

-- group: a sequence
-- requires: seq_n
SELECT nextval('seq_n')
UPDATE a SET n = nextval('seq_n') WHERE id = 7
UPDATE a SET n = nextval('seq_n') WHERE id = 77
INSERT INTO arch VALUES (1600, 'seq', nextval('seq_n'), 'x')
INSERT INTO arch VALUES (2600, 'seq', nextval('seq_n'), 'x')
UPDATE b SET m = nextval('seq_n') WHERE id = 21

-- group: a type
-- requires: type_mood
UPDATE a SET v = 'happy'::mood::text WHERE id BETWEEN 40 AND 60
SELECT 'ok'::mood
UPDATE b SET w = ('sad'::mood)::text WHERE id IN (SELECT id FROM a WHERE n = 1)

-- group: a domain
-- requires: domain_posint
UPDATE a SET n = 3::posint WHERE id BETWEEN 40 AND 60
UPDATE a SET n = (-1)::posint WHERE id BETWEEN 40 AND 60

-- group: a table of those types
-- requires: obj
INSERT INTO obj VALUES (30, 'ok', 5, 'new')
UPDATE obj SET m = 'happy' WHERE id BETWEEN 5 AND 15
UPDATE obj SET qty = 0 WHERE id = 3
SELECT id, m FROM obj WHERE m > 'sad' ORDER BY id
UPDATE obj SET note = a.v FROM a WHERE a.id = obj.id AND obj.m = 'ok'
DELETE FROM obj WHERE m = 'sad' AND id > 8

-- group: writes to a reference table
-- expect: run
INSERT INTO rf VALUES (20, 'r20', 60)
INSERT INTO rf VALUES (21, 'r21', NULL), (22, 'r22', 66) RETURNING *
INSERT INTO rf VALUES (20, 'again', 0)
INSERT INTO rf VALUES (23, 'r1', 0)
INSERT INTO rf VALUES (20, 'again', 1) ON CONFLICT (id) DO UPDATE SET rate = rf.rate + excluded.rate RETURNING id, rate
INSERT INTO rf VALUES (24, 'r24', 1) ON CONFLICT DO NOTHING
INSERT INTO rf SELECT g, 'gen' || g, g FROM generate_series(30, 34) g
UPDATE rf SET rate = rate + 1 WHERE id < 5
UPDATE rf SET rate = 0 WHERE rate IS NULL RETURNING id, label
UPDATE rf SET label = 'r2' WHERE id = 3
DELETE FROM rf WHERE id = 34
DELETE FROM rf WHERE id BETWEEN 31 AND 33 RETURNING id
UPDATE rf SET rate = rate * 2 WHERE id IN (SELECT id FROM rf WHERE rate > 20)
UPDATE fk_rf SET v = r.label FROM rf r WHERE r.id = fk_rf.rf_id AND r.rate > 10
DELETE FROM fk_rf USING rf WHERE rf.id = fk_rf.rf_id AND rf.label = 'r5'
UPDATE a SET v = (SELECT label FROM rf WHERE rf.id = a.n) WHERE id < 30
SELECT f.id, r.label FROM fk_rf f JOIN rf r ON r.id = f.rf_id WHERE f.id IN (1, 25) ORDER BY f.id
SELECT r.id, count(f.id) FROM rf r LEFT JOIN fk_rf f ON f.rf_id = r.id GROUP BY r.id ORDER BY r.id

-- group: foreign keys to a reference table
-- requires: fk_rf
-- expect: run
INSERT INTO fk_rf VALUES (200, 99, 'no such rf')
INSERT INTO fk_rf VALUES (201, 6, 'rf 6')
DELETE FROM rf WHERE id = 7
UPDATE rf SET id = 70 WHERE id = 8
DELETE FROM rf WHERE id = 70 RETURNING *

-- group: INSERT … SELECT from a reference table into a spread one
INSERT INTO fk_rf SELECT 100 + id, id, label FROM rf WHERE id < 4

-- group: data-modifying WITH writing a reference table
-- expect: run
WITH r AS (UPDATE rf SET rate = coalesce(rate, 0) + 1 WHERE id < 6 RETURNING id, rate) SELECT count(*), sum(rate) FROM r
WITH d AS (DELETE FROM a WHERE id BETWEEN 80 AND 82 RETURNING id, v) INSERT INTO rf SELECT id + 100, v, 0 FROM d RETURNING id, label
WITH r AS (DELETE FROM rf WHERE id > 180 RETURNING id, label) INSERT INTO arch SELECT id + 9500, 'rf', id, label FROM r

-- group: writes to a reference table reading spread tables
UPDATE rf SET rate = (SELECT count(*) FROM a WHERE a.n = rf.id)
UPDATE rf SET rate = a.n FROM a WHERE a.id = rf.id
DELETE FROM rf USING b WHERE b.id = rf.id + 100
INSERT INTO rf SELECT id + 500, 'a' || id, n FROM a WHERE id < 6
INSERT INTO rf VALUES (600, 'now', extract(epoch FROM now())::int4)
