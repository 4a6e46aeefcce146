-- The differential corpus: each statement runs through pgrange and on a plain PostgreSQL with the
-- same rows (tables and rows: setup.sql; ranges: splits.sql). pgrange must answer exactly as
-- PostgreSQL does, or refuse with 0A000. One statement per line (or indented continuation
-- lines). A top-level ORDER BY is compared in order, so it must be total; mark one that leaves
-- ties with /*ties*/ (compared as a multiset then). Writes must keep both sides equal when run
-- twice (the corpus runs once per protocol).

-- group: point int8
SELECT * FROM t_int WHERE id = 5
SELECT * FROM t_int WHERE id = 0
SELECT * FROM t_int WHERE id = 1
SELECT * FROM t_int WHERE id = -1
SELECT * FROM t_int WHERE id = -50
SELECT * FROM t_int WHERE id = -51
SELECT * FROM t_int WHERE id = -49
SELECT * FROM t_int WHERE id = -100
SELECT * FROM t_int WHERE id = -150
SELECT * FROM t_int WHERE id = -200
SELECT * FROM t_int WHERE id = 25
SELECT * FROM t_int WHERE id = 50
SELECT * FROM t_int WHERE id = 51
SELECT * FROM t_int WHERE id = 75
SELECT * FROM t_int WHERE id = 100
SELECT * FROM t_int WHERE id = 150
SELECT * FROM t_int WHERE id = 174
SELECT * FROM t_int WHERE id = 175
SELECT * FROM t_int WHERE id = 200
SELECT * FROM t_int WHERE id = 3
SELECT * FROM t_int WHERE id = 24
SELECT * FROM t_int WHERE id = 101
SELECT * FROM t_int WHERE id = 500
SELECT * FROM t_int WHERE id = -201
SELECT * FROM t_int WHERE id = 9223372036854775807
SELECT * FROM t_int WHERE id = -9223372036854775808
SELECT * FROM t_int WHERE id = 1000000000000
SELECT * FROM t_int WHERE id = -1000000000000
SELECT * FROM t_int WHERE id = 999999999999
SELECT * FROM t_int WHERE id = 2147483648
SELECT * FROM t_int WHERE id = -2147483649
SELECT name, amount FROM t_int WHERE id = 42
SELECT name FROM t_int WHERE 42 = id
SELECT t.name FROM t_int t WHERE t.id = 43
SELECT x.name FROM t_int AS x WHERE x.id = -43
SELECT name FROM public.t_int WHERE public.t_int.id = 44
SELECT name FROM t_int WHERE id = 007
SELECT name FROM t_int WHERE id = -0
SELECT name FROM t_int WHERE id = 46 AND flag
SELECT name FROM t_int WHERE id = 48 AND grp = 8
SELECT name FROM t_int WHERE id = 48 AND grp = 7
SELECT name FROM t_int WHERE id = 48 AND id = 49
SELECT name FROM t_int WHERE id = 48 AND name = 'name 48'
SELECT name FROM t_int WHERE id = 48 OR id = 120
SELECT name FROM t_int WHERE (id = 60)
SELECT name FROM t_int WHERE NOT (id <> 61)
SELECT name FROM t_int WHERE id = 62 FOR UPDATE
SELECT name FROM t_int WHERE id = 63 FOR SHARE

-- group: point text
SELECT * FROM t_text WHERE k = 'key001'
SELECT * FROM t_text WHERE k = 'key050'
SELECT * FROM t_text WHERE k = 'key049'
SELECT * FROM t_text WHERE k = 'key100'
SELECT * FROM t_text WHERE k = 'key150'
SELECT * FROM t_text WHERE k = 'key200'
SELECT * FROM t_text WHERE k = 'key201'
SELECT * FROM t_text WHERE k = 'Key2'
SELECT * FROM t_text WHERE k = 'Key20'
SELECT * FROM t_text WHERE k = 'Key30'
SELECT * FROM t_text WHERE k = 'KEY30'
SELECT * FROM t_text WHERE k = 'key30'
SELECT * FROM t_text WHERE k = ''
SELECT * FROM t_text WHERE k = ' space'
SELECT * FROM t_text WHERE k = 'space'
SELECT * FROM t_text WHERE k = 'a'
SELECT * FROM t_text WHERE k = 'ab'
SELECT * FROM t_text WHERE k = 'abc'
SELECT * FROM t_text WHERE k = 'abc '
SELECT * FROM t_text WHERE k = 'abc  '
SELECT * FROM t_text WHERE k = 'abcd'
SELECT * FROM t_text WHERE k = 'abd'
SELECT * FROM t_text WHERE k = 'ABC'
SELECT * FROM t_text WHERE k = 'Abc'
SELECT * FROM t_text WHERE k = 'é'
SELECT * FROM t_text WHERE k = 'éa'
SELECT * FROM t_text WHERE k = 'Ärger'
SELECT * FROM t_text WHERE k = 'ü'
SELECT * FROM t_text WHERE k = 'über'
SELECT * FROM t_text WHERE k = 'ñ10'
SELECT * FROM t_text WHERE k = 'ñ1'
SELECT * FROM t_text WHERE k = '日本'
SELECT * FROM t_text WHERE k = '日本語'
SELECT * FROM t_text WHERE k = 'emoji 😀'
SELECT * FROM t_text WHERE k = 'it''s'
SELECT * FROM t_text WHERE k = '100%'
SELECT * FROM t_text WHERE k = 'back\slash'
SELECT * FROM t_text WHERE k = E'back\\slash'
SELECT * FROM t_text WHERE k = 'zebra'
SELECT * FROM t_text WHERE k = 'zzz'
SELECT * FROM t_text WHERE k = 'ZZZ'
SELECT n FROM t_text WHERE k = 'key077' AND n = 77

-- group: point composite
SELECT * FROM t_comp WHERE a = 5 AND b = 'x'
SELECT * FROM t_comp WHERE a = 5 AND b = 'y'
SELECT * FROM t_comp WHERE a = 5 AND b = 'xy'
SELECT * FROM t_comp WHERE a = 5 AND b = ''
SELECT * FROM t_comp WHERE a = 5 AND b = 'Z'
SELECT * FROM t_comp WHERE a = 10 AND b = ''
SELECT * FROM t_comp WHERE a = 10 AND b = 'ä'
SELECT * FROM t_comp WHERE a = 15 AND b = 'ä'
SELECT * FROM t_comp WHERE a = 15 AND b = 'x'
SELECT * FROM t_comp WHERE a = 25 AND b = 'Z'
SELECT * FROM t_comp WHERE a = 25 AND b = 'x'
SELECT * FROM t_comp WHERE a = -5 AND b = 'y'
SELECT * FROM t_comp WHERE a = -10 AND b = 'x'
SELECT * FROM t_comp WHERE a = 0 AND b = ''
SELECT * FROM t_comp WHERE a = 29 AND b = 'xy'
SELECT * FROM t_comp WHERE a = 30 AND b = 'x'
SELECT * FROM t_comp WHERE a = 5 AND b = 'q'
SELECT * FROM t_comp WHERE b = 'x' AND a = 20
SELECT v FROM t_comp WHERE a = 12 AND b = 'y' AND v = 1202
SELECT v FROM t_comp WHERE 'Z' = b AND 7 = a

-- group: point uuid
SELECT * FROM t_uuid WHERE u = 'e4774cdd-a079-3f86-414e-8b9140bb6db4'
SELECT * FROM t_uuid WHERE u = '270c1b08-4f3f-146e-b578-7075158d9c53'
SELECT * FROM t_uuid WHERE u = '532a7b8e-0328-a8d0-5a8e-6258b28b9a36'
SELECT * FROM t_uuid WHERE u = '43de481c-ae63-944b-81db-6fd5567a12bb'
SELECT * FROM t_uuid WHERE u = 'fc65ab16-2799-8db1-afa5-5a4bedadb8ad'
SELECT * FROM t_uuid WHERE u = 'cb78e542-4910-93eb-8eeb-4d125372a098'
SELECT * FROM t_uuid WHERE u = 'ab7bb2a1-9e6c-92e7-c198-8bb3afbe4c7a'
SELECT * FROM t_uuid WHERE u = 'cb2fb778-0787-1a4f-3637-0fbb49f1ef2d'
SELECT * FROM t_uuid WHERE u = '3f1e570b-4621-28f0-6bcf-110f88843197'
SELECT * FROM t_uuid WHERE u = '00000000-0000-0000-0000-000000000000'
SELECT * FROM t_uuid WHERE u = 'ffffffff-ffff-ffff-ffff-ffffffffffff'
SELECT * FROM t_uuid WHERE u = '20000000-0000-0000-0000-000000000000'
SELECT * FROM t_uuid WHERE u = 'E4774CDD-A079-3F86-414E-8B9140BB6DB4'
SELECT * FROM t_uuid WHERE u = '{ab7bb2a1-9e6c-92e7-c198-8bb3afbe4c7a}'
SELECT * FROM t_uuid WHERE u = 'cb78e542491093eb8eeb4d125372a098'
SELECT * FROM t_uuid WHERE u = 'fc65ab16-27998db1-afa5-5a4bedadb8ad'
SELECT * FROM t_uuid WHERE u = 'not-a-uuid'

-- group: point timestamptz
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+07'
SELECT * FROM t_ts WHERE ts = '2024-01-01 12:00:00+05'
SELECT * FROM t_ts WHERE ts = '2024-01-01 02:00:00-05'
SELECT * FROM t_ts WHERE ts = '2024-01-01T14:00:00Z'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00.000001+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00.123456+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00.1234561+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00.0000005+00'
SELECT * FROM t_ts WHERE ts = '1999-12-31 23:59:59.999999+00'
SELECT * FROM t_ts WHERE ts = '2000-01-01 00:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-21 10:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-21 11:00:00+01'
SELECT * FROM t_ts WHERE ts = '2024-03-10 00:00:00+00'
SELECT * FROM t_ts WHERE ts = '2023-12-17 02:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-03-14 15:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 03:00:00+00'
SELECT * FROM t_ts WHERE ts = 'infinity'
SELECT * FROM t_ts WHERE ts = '-infinity'
SELECT * FROM t_ts WHERE ts = 'epoch'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00 UTC'
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00'
SELECT * FROM t_ts WHERE ts = '2024-01-01'
SELECT * FROM t_ts WHERE ts = 'Jan 1 2024 07:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 24:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-02-30 00:00:00+00'

-- group: point nulls
SELECT * FROM t_nulls WHERE id = 1
SELECT * FROM t_nulls WHERE id = 60
SELECT * FROM t_nulls WHERE id = 25
SELECT * FROM t_nulls WHERE id = 275
SELECT * FROM t_nulls WHERE id = 300
SELECT * FROM t_nulls WHERE id = 301
SELECT a, b FROM t_nulls WHERE id = 12 AND a IS NULL
SELECT a, b FROM t_nulls WHERE id = 12 AND b IS NULL
SELECT a, b FROM t_nulls WHERE id = 13 AND c IS NOT NULL
SELECT * FROM t_nulls WHERE id = NULL
SELECT * FROM t_nulls WHERE id IS NULL

-- group: in lists
SELECT * FROM t_int WHERE id IN (5)
SELECT * FROM t_int WHERE id IN (5, 6)
SELECT * FROM t_int WHERE id IN (1, 50, 100, 150, -150)
SELECT * FROM t_int WHERE id IN (3, 10, 17)
SELECT * FROM t_int WHERE id IN (-9223372036854775808, 9223372036854775807, 0)
SELECT * FROM t_int WHERE id IN (5, NULL)
SELECT * FROM t_int WHERE id NOT IN (5, 6) AND id BETWEEN 1 AND 8
SELECT * FROM t_int WHERE id = ANY ('{7,8,9}')
SELECT * FROM t_text WHERE k IN ('a', 'ab', 'abc', 'abc ', 'abcd')
SELECT * FROM t_text WHERE k IN ('', 'key050', 'Key2', 'ü', '日本語')
SELECT * FROM t_text WHERE k IN ('nope', 'nada')
SELECT * FROM t_comp WHERE a IN (5, 10) AND b = 'x'
SELECT * FROM t_comp WHERE a = 5 AND b IN ('x', 'y', 'zz')
SELECT * FROM t_comp WHERE (a, b) IN ((5, 'x'), (25, 'Z'))
SELECT * FROM t_uuid WHERE u IN ('e4774cdd-a079-3f86-414e-8b9140bb6db4', '270c1b08-4f3f-146e-b578-7075158d9c53')
SELECT * FROM t_uuid WHERE u IN ('00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')
SELECT * FROM t_ts WHERE ts IN ('2024-01-01 00:00:00+00', '2024-01-01 07:00:00+00', '2024-03-10 00:00:00+00')
SELECT * FROM t_ts WHERE ts IN ('infinity', '-infinity')
SELECT * FROM t_nulls WHERE id IN (3, 4, 5, 6)
SELECT * FROM t_nulls WHERE a IN (1, 2)
SELECT * FROM t_nulls WHERE b IN ('b1', 'b12')
SELECT id FROM t_nulls WHERE a NOT IN (1, 2, 3, 4, 5, 6, 7, 8, 9)

-- group: ranges
SELECT * FROM t_int WHERE id < -150
SELECT * FROM t_int WHERE id <= -150
SELECT * FROM t_int WHERE id > 175
SELECT * FROM t_int WHERE id >= 175
SELECT * FROM t_int WHERE id > 0 AND id < 25
SELECT * FROM t_int WHERE id >= 0 AND id <= 25
SELECT * FROM t_int WHERE id > -1 AND id < 1
SELECT * FROM t_int WHERE id BETWEEN 40 AND 60
SELECT * FROM t_int WHERE id BETWEEN 60 AND 40
SELECT * FROM t_int WHERE id BETWEEN SYMMETRIC 60 AND 40
SELECT * FROM t_int WHERE id NOT BETWEEN -190 AND 190
SELECT * FROM t_int WHERE id > 200
SELECT * FROM t_int WHERE id < -9223372036854775807
SELECT * FROM t_int WHERE id > 1000000000000
SELECT * FROM t_int WHERE id >= 1000000000000
SELECT * FROM t_int WHERE 50 > id AND id >= 45
SELECT * FROM t_int WHERE id > 50 OR id < -190
SELECT * FROM t_int WHERE id < 10 AND id > 20
SELECT * FROM t_text WHERE k < 'a'
SELECT * FROM t_text WHERE k <= 'a'
SELECT * FROM t_text WHERE k > 'zebra'
SELECT * FROM t_text WHERE k >= 'zebra'
SELECT * FROM t_text WHERE k >= 'abc' AND k < 'abd'
SELECT * FROM t_text WHERE k > 'abc' AND k <= 'abd'
SELECT * FROM t_text WHERE k BETWEEN 'key040' AND 'key060'
SELECT * FROM t_text WHERE k BETWEEN 'Key' AND 'Kez'
SELECT * FROM t_text WHERE k > ''
SELECT * FROM t_text WHERE k >= 'é' AND k < 'ü'
SELECT * FROM t_text WHERE k > '日'
SELECT * FROM t_text WHERE k < 'B' COLLATE "C"
SELECT * FROM t_comp WHERE a > 25
SELECT * FROM t_comp WHERE a >= 5 AND a < 6
SELECT * FROM t_comp WHERE a = 5 AND b > 'x'
SELECT * FROM t_comp WHERE a = 10 AND b < 'x'
SELECT * FROM t_comp WHERE a BETWEEN -6 AND -4
SELECT * FROM t_comp WHERE (a, b) > (25, 'x')
SELECT * FROM t_comp WHERE (a, b) >= (15, 'ä') AND (a, b) < (16, 'Z')
SELECT * FROM t_uuid WHERE u < '20000000-0000-0000-0000-000000000000'
SELECT * FROM t_uuid WHERE u >= 'e0000000-0000-0000-0000-000000000000'
SELECT * FROM t_uuid WHERE u > '43de481c-ae63-944b-81db-6fd5567a12bb' AND u < '60000000-0000-0000-0000-000000000000'
SELECT * FROM t_ts WHERE ts < '2000-01-01 00:00:00+00'
SELECT * FROM t_ts WHERE ts <= '2000-01-01 00:00:00+00'
SELECT * FROM t_ts WHERE ts >= '2024-01-01 00:00:00+00' AND ts < '2024-01-02 00:00:00+00'
SELECT * FROM t_ts WHERE ts > '2024-03-10 00:00:00+00'
SELECT * FROM t_ts WHERE ts BETWEEN '2024-01-20 00:00:00+00' AND '2024-01-23 00:00:00+00'
SELECT * FROM t_ts WHERE ts > '2024-03-14 00:00:00+00' AND ts < 'infinity'
SELECT * FROM t_nulls WHERE id > 280
SELECT * FROM t_nulls WHERE id < 10 AND a > 3

-- group: arithmetic in key values
SELECT * FROM t_int WHERE id BETWEEN 40 AND 40 + 20
SELECT * FROM t_int WHERE id >= 100 - 51 AND id < 50 + 1
SELECT * FROM t_int WHERE id = 24 + 1
SELECT * FROM t_int WHERE id = 0 - 50
SELECT * FROM t_int WHERE id = 150 - (30 - 5)
SELECT * FROM t_int WHERE id IN (1 + 1, 100 - 1, 175 + 0)
SELECT * FROM t_int WHERE id < -150 + -5
SELECT * FROM t_int WHERE id > 1000000000000 - 1
SELECT * FROM t_int WHERE id >= 9223372036854775806 + 1
SELECT * FROM t_int WHERE id > 9223372036854775807 + 1
SELECT * FROM t_int WHERE id < 49 + 0.5
SELECT * FROM t_int WHERE id > 49 + 1e0 AND id < 60
SELECT * FROM t_int WHERE id <= (25 + 25)::int8 AND id > 20
SELECT * FROM t_int WHERE id < (25 + 25)::numeric AND id > 20
SELECT * FROM t_int WHERE id BETWEEN 20 + 5 AND 25 + 25 ORDER BY id LIMIT 5
SELECT count(*), sum(id) FROM t_int WHERE id BETWEEN -100 + 1 AND 100 - 1
SELECT * FROM t_nulls WHERE id BETWEEN 20 + 4 AND 24 + 3
SELECT * FROM t_nulls WHERE id < 2147483647 + 1
SELECT * FROM t_nulls WHERE id = 2147483000 + 1000
SELECT * FROM t_nulls WHERE id = 3000000000 - 2999999900
SELECT * FROM t_comp WHERE a = 2 + 3 AND b = 'x'
SELECT * FROM t_comp WHERE a BETWEEN 10 - 1 AND 10 + 1
SELECT * FROM t_types WHERE id = 70 + 6
SELECT * FROM t_types WHERE id < '80' + 1 AND id > 70
SELECT * FROM events WHERE id = 100 + 5
SELECT * FROM events WHERE id BETWEEN 10 AND 10 + 5 ORDER BY id
UPDATE t_int SET name = name || '+' WHERE id BETWEEN 60 + 1 AND 60 + 3
DELETE FROM t_int WHERE id = 1000 + 2
INSERT INTO t_int VALUES (1000 + 3, 1, 'sum key', 1, true), (-1000 - 3, 2, 'sum key', 2, false)
SELECT * FROM t_int WHERE id IN (1003, -1003)
DELETE FROM t_int WHERE id = 1000 + 3 OR id = -1000 - 3

-- group: order by limit offset
SELECT * FROM t_int WHERE id = 5 ORDER BY id
SELECT * FROM t_int WHERE id = 5 LIMIT 1
SELECT * FROM t_int WHERE id = 5 LIMIT 0
SELECT * FROM t_int WHERE id = 5 OFFSET 1
SELECT * FROM t_text WHERE k = 'abc' ORDER BY k DESC LIMIT 5
SELECT * FROM t_comp WHERE a = 5 AND b = 'x' ORDER BY v
SELECT * FROM t_int ORDER BY id
SELECT * FROM t_int ORDER BY id DESC
SELECT * FROM t_int ORDER BY id LIMIT 10
SELECT * FROM t_int ORDER BY id DESC LIMIT 10 OFFSET 5
SELECT * FROM t_int ORDER BY grp, id
SELECT * FROM t_int ORDER BY grp /*ties*/
SELECT * FROM t_int WHERE id BETWEEN 1 AND 20 ORDER BY id
SELECT * FROM t_int WHERE id BETWEEN 20 AND 30 ORDER BY amount DESC, id
SELECT * FROM t_int LIMIT 0
SELECT * FROM t_int OFFSET 1000
SELECT * FROM t_text ORDER BY k
SELECT * FROM t_text ORDER BY k COLLATE "C" DESC
SELECT * FROM t_text ORDER BY n, k LIMIT 20
SELECT * FROM t_text WHERE k LIKE 'key1%' ORDER BY k LIMIT 7 OFFSET 3
SELECT * FROM t_comp ORDER BY a, b
SELECT * FROM t_comp ORDER BY a DESC, b DESC LIMIT 13
SELECT * FROM t_uuid ORDER BY u LIMIT 10
SELECT * FROM t_uuid ORDER BY n DESC LIMIT 10
SELECT * FROM t_ts ORDER BY ts
SELECT * FROM t_ts ORDER BY ts DESC LIMIT 3
SELECT * FROM t_nulls ORDER BY a NULLS FIRST, id
SELECT * FROM t_nulls ORDER BY b DESC NULLS LAST, id LIMIT 25
SELECT * FROM t_nulls ORDER BY c, id LIMIT 10 OFFSET 280
SELECT id FROM t_nulls ORDER BY d DESC, id FETCH FIRST 5 ROWS ONLY

-- group: aggregates
SELECT count(*) FROM t_int WHERE id = 5
SELECT count(*), sum(amount), min(name), max(grp), avg(amount) FROM t_int WHERE id = 6
SELECT count(*) FROM t_int WHERE id = 3
SELECT sum(amount) FROM t_int WHERE id = 3
SELECT count(*) FROM t_int
SELECT count(*) FROM t_text
SELECT count(*) FROM t_comp
SELECT count(*) FROM t_uuid
SELECT count(*) FROM t_ts
SELECT count(*) FROM t_nulls
SELECT count(a), count(b), count(c), count(d) FROM t_nulls
SELECT sum(amount) FROM t_int
SELECT min(id), max(id) FROM t_int
SELECT avg(amount) FROM t_int WHERE id BETWEEN 1 AND 100
SELECT sum(v), avg(v) FROM t_comp WHERE a = 5 AND b = 'y'
SELECT min(k), max(k) FROM t_text
SELECT min(ts), max(ts) FROM t_ts WHERE ts > '-infinity' AND ts < 'infinity'
SELECT min(u), max(u) FROM t_uuid
SELECT sum(c), avg(c) FROM t_nulls
SELECT count(DISTINCT grp) FROM t_int
SELECT bool_and(flag), bool_or(flag) FROM t_int
SELECT string_agg(k, ',' ORDER BY k) FROM t_text WHERE k LIKE 'a%'
SELECT count(*) FILTER (WHERE flag) FROM t_int
SELECT max(a) FROM t_nulls WHERE id = 3

-- group: group by having distinct
SELECT grp, count(*) FROM t_int GROUP BY grp ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp
SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) > 1000 ORDER BY grp
SELECT flag, count(*), min(id), max(id) FROM t_int GROUP BY flag ORDER BY flag
SELECT b, count(*) FROM t_comp GROUP BY b ORDER BY b
SELECT a, count(*) FROM t_comp GROUP BY a HAVING count(*) = 6 ORDER BY a
SELECT note, count(*) FROM t_text GROUP BY note ORDER BY note NULLS FIRST
SELECT a, count(*) FROM t_nulls GROUP BY a ORDER BY a NULLS LAST
SELECT b IS NULL, count(*) FROM t_nulls GROUP BY 1 ORDER BY 1
SELECT DISTINCT grp FROM t_int
SELECT DISTINCT grp FROM t_int ORDER BY grp
SELECT DISTINCT b FROM t_comp
SELECT DISTINCT a FROM t_nulls
SELECT DISTINCT ON (grp) grp, id FROM t_int ORDER BY grp, id
SELECT grp, count(*) FROM t_int WHERE id = 8 GROUP BY grp
SELECT DISTINCT name FROM t_int WHERE id = 9
SELECT label, count(*) FROM t_uuid GROUP BY label HAVING count(*) > 13 ORDER BY label
SELECT payload, count(*) FROM t_ts GROUP BY payload ORDER BY payload
SELECT date_trunc('month', ts), count(*) FROM t_ts WHERE ts > '2000-01-02 00:00:00+00' AND ts < 'infinity' GROUP BY 1 ORDER BY 1

-- group: like
SELECT * FROM t_text WHERE k LIKE 'key0%'
SELECT * FROM t_text WHERE k LIKE 'key05%'
SELECT * FROM t_text WHERE k LIKE 'key1%'
SELECT * FROM t_text WHERE k LIKE 'Key%'
SELECT * FROM t_text WHERE k LIKE 'Key3%'
SELECT * FROM t_text WHERE k LIKE 'a%'
SELECT * FROM t_text WHERE k LIKE 'abc%'
SELECT * FROM t_text WHERE k LIKE 'abc _'
SELECT * FROM t_text WHERE k LIKE 'ab_'
SELECT * FROM t_text WHERE k LIKE 'ñ%'
SELECT * FROM t_text WHERE k LIKE 'ñ1%'
SELECT * FROM t_text WHERE k LIKE 'é%'
SELECT * FROM t_text WHERE k LIKE '日本%'
SELECT * FROM t_text WHERE k LIKE '%'
SELECT * FROM t_text WHERE k LIKE '100\%'
SELECT * FROM t_text WHERE k LIKE '100%%'
SELECT * FROM t_text WHERE k LIKE 'a\_%'
SELECT * FROM t_text WHERE k LIKE 'key050'
SELECT * FROM t_text WHERE k LIKE 'KEY%'
SELECT * FROM t_text WHERE k ILIKE 'KEY0%'
SELECT * FROM t_text WHERE k NOT LIKE 'key%'
SELECT * FROM t_text WHERE k LIKE 'zz%' OR k LIKE 'ZZ%'
SELECT * FROM t_text WHERE note LIKE 'note 1%'
SELECT * FROM t_comp WHERE b LIKE 'x%'
SELECT * FROM t_int WHERE name LIKE 'name 1_'

-- group: is null
SELECT * FROM t_nulls WHERE a IS NULL
SELECT * FROM t_nulls WHERE a IS NOT NULL AND b IS NULL
SELECT * FROM t_nulls WHERE c IS NULL AND d IS NULL
SELECT id FROM t_nulls WHERE a IS NULL OR b IS NULL
SELECT id FROM t_nulls WHERE NOT (a IS NULL)
SELECT id FROM t_nulls WHERE a IS DISTINCT FROM 3
SELECT id FROM t_nulls WHERE a IS NOT DISTINCT FROM NULL
SELECT id FROM t_nulls WHERE coalesce(a, -1) = -1
SELECT * FROM t_text WHERE note IS NULL
SELECT * FROM t_text WHERE k IS NULL
SELECT * FROM t_text WHERE k IS NOT NULL AND note IS NULL
SELECT id FROM t_nulls WHERE d IS NULL AND id > 200
SELECT id, a = NULL FROM t_nulls WHERE id = 3

-- group: whole table
SELECT * FROM t_int
SELECT * FROM t_text
SELECT * FROM t_comp
SELECT * FROM t_uuid
SELECT * FROM t_ts
SELECT * FROM t_nulls
SELECT id, name FROM t_int WHERE grp = 3
SELECT id FROM t_int WHERE flag AND amount > 50
SELECT id FROM t_int WHERE NOT flag AND grp IN (1, 2)
SELECT id FROM t_int WHERE name = 'name 77'
SELECT id FROM t_int WHERE amount = 12.30
SELECT id FROM t_int WHERE id % 17 = 0
SELECT k FROM t_text WHERE n > 2010
SELECT k FROM t_text WHERE length(k) = 1
SELECT k FROM t_text WHERE note = 'p'
SELECT a, b FROM t_comp WHERE v > 2800
SELECT a, b FROM t_comp WHERE w = 'ä@-3'
SELECT u FROM t_uuid WHERE n > 290
SELECT u FROM t_uuid WHERE label = 'label 7'
SELECT ts FROM t_ts WHERE n % 50 = 0
SELECT id FROM t_nulls WHERE c > 300
SELECT id FROM t_nulls WHERE b = 'b7'
SELECT id FROM t_nulls WHERE d > '2024-10-01 00:00:00+00'
SELECT * FROM ONLY t_int WHERE grp = 11
SELECT id, name FROM t_int WHERE (id, grp) = (5, 5)
SELECT true FROM t_int WHERE id = 5
SELECT 1 FROM t_nulls WHERE id < 4

-- group: casts
SELECT * FROM t_int WHERE id = '7'
SELECT * FROM t_int WHERE id = '7'::int8
SELECT * FROM t_int WHERE id = 7::int2
SELECT * FROM t_int WHERE id = CAST(7 AS int4)
SELECT * FROM t_int WHERE id = '-7'::bigint
SELECT * FROM t_int WHERE id = 7.0
SELECT * FROM t_int WHERE id = 7.5
SELECT * FROM t_int WHERE id = 7.6::int8
SELECT * FROM t_int WHERE id = 1e1
SELECT * FROM t_int WHERE id = '007'
SELECT * FROM t_int WHERE id = ' 8 '
SELECT * FROM t_int WHERE id = '+9'
SELECT * FROM t_int WHERE id = '8.0'
SELECT * FROM t_int WHERE id = 'abc'
SELECT * FROM t_int WHERE id = 32768::int2
SELECT * FROM t_text WHERE k = 'abc'::text
SELECT * FROM t_text WHERE k = 'abc'::varchar
SELECT * FROM t_text WHERE k = CAST('key050' AS varchar(10))
SELECT * FROM t_text WHERE k = 'key100'::name
SELECT * FROM t_text WHERE k = 'Key2'::bpchar
SELECT * FROM t_text WHERE k = 'key0500'::varchar(6)
SELECT * FROM t_comp WHERE a = '5' AND b = 'x'::text
SELECT * FROM t_comp WHERE a = 5::int8 AND b = 'y'
SELECT * FROM t_comp WHERE a = 5.0 AND b = 'y'
SELECT * FROM t_uuid WHERE u = 'e4774cdd-a079-3f86-414e-8b9140bb6db4'::uuid
SELECT * FROM t_uuid WHERE u = CAST('ab7bb2a1-9e6c-92e7-c198-8bb3afbe4c7a' AS uuid)
SELECT * FROM t_ts WHERE ts = '2024-01-01 00:00:00+00'::timestamptz
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00'::timestamp with time zone
SELECT * FROM t_ts WHERE ts = '2024-01-02 03:00:00+09'::timestamptz::timestamp
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00'::timestamp
SELECT * FROM t_ts WHERE ts = '2024-01-01'::date
SELECT * FROM t_nulls WHERE id = '42'::int4
SELECT * FROM t_nulls WHERE id = 42::numeric

-- group: literal forms
SELECT * FROM t_int WHERE id = - -5
SELECT * FROM t_int WHERE id = -(-5)
SELECT * FROM t_int WHERE id = -'-5'
SELECT * FROM t_int WHERE id = 0001000000000000
SELECT * FROM t_int WHERE id = 11.
SELECT * FROM t_text WHERE k = $$abc$$
SELECT * FROM t_text WHERE k = U&'\00FCber'
SELECT * FROM t_text WHERE k = 'abc' COLLATE "C"
SELECT * FROM t_text WHERE k = 'ABC'::citext
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+07'::timestamptz::timestamp
SELECT * FROM t_ts WHERE ts = '20240101 070000+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00:00:00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00.000000+00'
SELECT * FROM t_ts WHERE ts = '2024-1-1 7:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00 +00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00 Z'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00 z'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+0000'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00 GMT'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00 Europe/Berlin'
SELECT * FROM t_ts WHERE ts = ' 2024-01-01 07:00:00+00 '
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00.5+00'
SELECT * FROM t_ts WHERE ts = '0099-01-01 00:00:00+00 BC'
SELECT * FROM t_ts WHERE ts = '99-01-01 00:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 12:00:00 PM+00'
SELECT * FROM t_ts WHERE ts = 'J2460311'
SELECT * FROM t_uuid WHERE u = ' e4774cdd-a079-3f86-414e-8b9140bb6db4'
SELECT * FROM t_uuid WHERE u = '{e4774cdda0793f86414e8b9140bb6db4}'
SELECT * FROM t_int WHERE id = '  -7'
SELECT * FROM t_int WHERE id = '-0'
SELECT * FROM t_int WHERE id = '1_000'
SELECT * FROM t_comp WHERE a = ' 5' AND b = 'x'
SELECT * FROM t_comp WHERE a = 5 AND b = 'x' AND a = 10
SELECT * FROM t_comp WHERE a = 10 AND a = 5 AND b = 'x'
SELECT * FROM t_int WHERE id = 5 AND id = 50
SELECT * FROM t_int WHERE id = 50 AND id = 5
SELECT * FROM t_text WHERE k = 'abc' AND k = 'zebra'
SELECT * FROM t_text WHERE k = 'Key2'::char(10)
SELECT * FROM t_nulls WHERE id = 2.0

-- group: select list expressions
SELECT id * 2, name || '!', amount::int, -id FROM t_int WHERE id = 11
SELECT id + 1 AS next, upper(name) FROM t_int WHERE id = -11
SELECT k, length(k), octet_length(k), upper(k), lower(k) FROM t_text WHERE k = 'Ärger'
SELECT k || '|' || n, md5(k) FROM t_text WHERE k = '日本語'
SELECT a + v, b || b, coalesce(w, '?') FROM t_comp WHERE a = 7 AND b = 'xy'
SELECT u::text, upper(u::text), n * n FROM t_uuid WHERE u = '270c1b08-4f3f-146e-b578-7075158d9c53'
SELECT ts + interval '1 day', extract(epoch FROM ts), to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') FROM t_ts WHERE ts = '2024-01-21 10:00:00+00'
SELECT coalesce(a, 0), nullif(b, 'b1'), c * 2, d IS NULL FROM t_nulls WHERE id = 12
SELECT CASE WHEN flag THEN 'yes' ELSE 'no' END, amount / 3 FROM t_int WHERE id = 12
SELECT id, id / 0 FROM t_int WHERE id = 13
SELECT id, 1 / (id - 13) FROM t_int WHERE id = 13
SELECT id * 2, name FROM t_int WHERE grp = 4
SELECT k, n::text || 'x' FROM t_text WHERE n BETWEEN 100 AND 110
SELECT row(id, name) FROM t_int WHERE id = 14
SELECT 'x' AS "Quoted Name", id AS "ID" FROM t_int WHERE id = 15
SELECT * , id FROM t_int WHERE id = 16
SELECT id, now() IS NOT NULL FROM t_int WHERE id = 18
SELECT nonexistent FROM t_int WHERE id = 19
SELECT id FROM t_int WHERE id = 19 AND nonexistent = 1

-- The groups "merge …" run statements over several shards whose answer needs the shards' rows
-- merged: ORDER BY, LIMIT/OFFSET, aggregates, GROUP BY, HAVING, DISTINCT. Every ORDER BY ends in
-- a unique key, so the order is total and checked; t_types covers the sortable types.
-- group: merge order by
SELECT * FROM t_int WHERE id > 0 ORDER BY id
SELECT * FROM t_int WHERE id < 0 ORDER BY id DESC
SELECT id, name FROM t_int ORDER BY name, id
SELECT id, name FROM t_int ORDER BY name DESC, id
SELECT id, amount FROM t_int ORDER BY amount, id
SELECT id, amount FROM t_int ORDER BY amount DESC, id DESC
SELECT id, grp, amount FROM t_int ORDER BY grp DESC, amount, id
SELECT id, flag FROM t_int ORDER BY flag, id
SELECT id FROM t_int ORDER BY grp, name, id
SELECT name FROM t_int ORDER BY id DESC
SELECT name FROM t_int WHERE id BETWEEN -60 AND 60 ORDER BY amount, id
SELECT id, grp FROM t_int ORDER BY 2, 1
SELECT grp, name, id FROM t_int ORDER BY 1, 3
SELECT id AS i, name AS nm FROM t_int ORDER BY nm, i
SELECT id, id * -1 AS neg FROM t_int WHERE id BETWEEN -200 AND 200 ORDER BY neg
SELECT id FROM t_int WHERE id > -9223372036854775808 ORDER BY id * -1
SELECT id, amount FROM t_int ORDER BY amount * -1, id
SELECT id, name FROM t_int ORDER BY lower(name), id
SELECT id, name FROM t_int ORDER BY length(name) DESC, name
SELECT id, grp FROM t_int ORDER BY abs(grp - 5), id
SELECT id, amount FROM t_int ORDER BY amount::int, id
SELECT id FROM t_int WHERE id BETWEEN 2 AND 20 ORDER BY id DESC
SELECT id, name FROM t_int WHERE id BETWEEN 20 AND 30 ORDER BY name, id
SELECT * FROM t_int WHERE id >= -160 AND id < -40 ORDER BY grp, id
SELECT * FROM t_int WHERE grp = 3 ORDER BY amount DESC, id
SELECT * FROM t_int WHERE id IN (-150, 0, 50, 175, 1000000000000) ORDER BY id DESC
SELECT id, name FROM t_int WHERE id IN (-151, -99, 1, 26, 176) ORDER BY name
SELECT k FROM t_text ORDER BY k DESC
SELECT k, n FROM t_text ORDER BY n, k
SELECT k, note FROM t_text ORDER BY note NULLS FIRST, k
SELECT k, note FROM t_text ORDER BY note DESC NULLS LAST, k DESC
SELECT k FROM t_text ORDER BY length(k), k
SELECT k FROM t_text ORDER BY lower(k), k
SELECT k FROM t_text ORDER BY upper(k) DESC, k
SELECT k, octet_length(k) FROM t_text ORDER BY 2, 1
SELECT k FROM t_text WHERE k >= 'a' AND k < 'abd' ORDER BY k DESC
SELECT k, n FROM t_text WHERE k > 'key' ORDER BY n DESC, k
SELECT a, b, v FROM t_comp ORDER BY v DESC
SELECT a, b FROM t_comp ORDER BY b, a
SELECT w FROM t_comp ORDER BY w
SELECT a, b FROM t_comp WHERE a BETWEEN 4 AND 11 ORDER BY a DESC, b
SELECT a, b, v FROM t_comp ORDER BY a, v DESC
SELECT u, n FROM t_uuid ORDER BY u DESC
SELECT u FROM t_uuid ORDER BY n
SELECT u, label FROM t_uuid ORDER BY label, u
SELECT n FROM t_uuid ORDER BY u::text
SELECT u FROM t_uuid WHERE u > '80000000-0000-0000-0000-000000000000' ORDER BY u
SELECT ts, n FROM t_ts ORDER BY ts DESC
SELECT ts, payload FROM t_ts ORDER BY payload, ts
SELECT n FROM t_ts ORDER BY ts
SELECT ts FROM t_ts WHERE ts >= '2024-01-01 00:00:00+00' AND ts < '2024-02-01 00:00:00+00' ORDER BY ts DESC
SELECT ts, n FROM t_ts ORDER BY date_trunc('day', ts), n DESC
SELECT n, extract(epoch FROM ts) FROM t_ts ORDER BY 2 DESC

-- group: merge order by nulls
SELECT id, a FROM t_nulls ORDER BY a, id
SELECT id, a FROM t_nulls ORDER BY a DESC, id
SELECT id, a FROM t_nulls ORDER BY a NULLS FIRST, id DESC
SELECT id, a FROM t_nulls ORDER BY a DESC NULLS LAST, id
SELECT id, b FROM t_nulls ORDER BY b, id
SELECT id, b FROM t_nulls ORDER BY b NULLS FIRST, id
SELECT id, c FROM t_nulls ORDER BY c DESC NULLS LAST, id
SELECT id, c FROM t_nulls ORDER BY c NULLS FIRST, id
SELECT id, d FROM t_nulls ORDER BY d DESC NULLS LAST, id
SELECT id FROM t_nulls ORDER BY a NULLS FIRST, b DESC NULLS LAST, id
SELECT id, a, b FROM t_nulls ORDER BY b NULLS FIRST, a DESC NULLS FIRST, id
SELECT id, coalesce(a, -1) FROM t_nulls ORDER BY 2, 1
SELECT id FROM t_nulls ORDER BY a IS NULL, a DESC, id
SELECT id, a FROM t_nulls WHERE id BETWEEN 20 AND 60 ORDER BY a NULLS FIRST, id
SELECT id, c FROM t_nulls WHERE id < 30 ORDER BY c DESC, id
SELECT id, a * -1 FROM t_nulls ORDER BY a * -1 NULLS FIRST, id
SELECT note, k FROM t_text ORDER BY note NULLS FIRST, k DESC

-- group: merge limit offset
SELECT * FROM t_int ORDER BY id LIMIT 5
SELECT * FROM t_int ORDER BY id DESC LIMIT 5
SELECT * FROM t_int ORDER BY id LIMIT 5 OFFSET 3
SELECT * FROM t_int ORDER BY id OFFSET 372
SELECT * FROM t_int ORDER BY id LIMIT 0
SELECT * FROM t_int ORDER BY id LIMIT 0 OFFSET 10
SELECT * FROM t_int ORDER BY id LIMIT 10 OFFSET 100000
SELECT * FROM t_int ORDER BY id OFFSET 100000
SELECT * FROM t_int ORDER BY id LIMIT ALL
SELECT * FROM t_int ORDER BY id DESC LIMIT ALL OFFSET 340
SELECT id FROM t_int ORDER BY id LIMIT NULL
SELECT id FROM t_int ORDER BY id OFFSET 0 ROWS
SELECT * FROM t_int ORDER BY id FETCH FIRST 3 ROWS ONLY
SELECT * FROM t_int ORDER BY id DESC OFFSET 2 ROWS FETCH FIRST 4 ROWS ONLY
SELECT * FROM t_int ORDER BY id FETCH FIRST ROW ONLY
SELECT id, name FROM t_int ORDER BY name, id LIMIT 12
SELECT id, name FROM t_int ORDER BY name DESC, id LIMIT 12 OFFSET 12
SELECT id, amount FROM t_int ORDER BY amount DESC, id LIMIT 7
SELECT id, grp FROM t_int ORDER BY grp, id LIMIT 20 OFFSET 30
SELECT id FROM t_int WHERE id > -9223372036854775808 ORDER BY id * -1 LIMIT 4
SELECT id FROM t_int WHERE id BETWEEN 2 AND 20 ORDER BY id LIMIT 3
SELECT id FROM t_int WHERE id BETWEEN 2 AND 20 ORDER BY id LIMIT 3 OFFSET 20
SELECT id FROM t_int WHERE id BETWEEN 20 AND 30 ORDER BY id DESC LIMIT 4
SELECT id FROM t_int WHERE id > -60 AND id < 60 ORDER BY id LIMIT 10 OFFSET 45
SELECT id, name FROM t_int WHERE grp = 7 ORDER BY id LIMIT 5
SELECT id FROM t_int WHERE id > 1000 ORDER BY id LIMIT 2
SELECT id FROM t_int WHERE id < -1000 ORDER BY id DESC LIMIT 2
SELECT id FROM t_int LIMIT 100000
SELECT id, name FROM t_int WHERE id > 0 LIMIT 100000 OFFSET 0
SELECT k FROM t_text ORDER BY k DESC LIMIT 10 OFFSET 5
SELECT k, n FROM t_text ORDER BY n DESC, k LIMIT 15
SELECT k FROM t_text ORDER BY length(k) DESC, k LIMIT 5
SELECT k FROM t_text WHERE k >= 'key' ORDER BY k LIMIT 3 OFFSET 198
SELECT a, b FROM t_comp ORDER BY a, b LIMIT 8 OFFSET 100
SELECT a, b, v FROM t_comp ORDER BY v DESC LIMIT 6
SELECT u FROM t_uuid ORDER BY u DESC LIMIT 5
SELECT u, n FROM t_uuid ORDER BY n LIMIT 5 OFFSET 295
SELECT u, label FROM t_uuid ORDER BY label, u LIMIT 9
SELECT ts FROM t_ts ORDER BY ts DESC LIMIT 4 OFFSET 1
SELECT ts, payload FROM t_ts ORDER BY payload DESC, ts LIMIT 6
SELECT id, a FROM t_nulls ORDER BY a NULLS FIRST, id LIMIT 10
SELECT id, a FROM t_nulls ORDER BY a, id LIMIT 10 OFFSET 195
SELECT id, b FROM t_nulls ORDER BY b DESC, id LIMIT 10 OFFSET 70
SELECT id, d FROM t_nulls ORDER BY d DESC NULLS LAST, id LIMIT 5

-- group: merge aggregates
SELECT count(*) FROM t_int WHERE id > 0
SELECT count(*) FROM t_int WHERE id BETWEEN 20 AND 30
SELECT count(*) FROM t_int WHERE id BETWEEN 2 AND 20
SELECT count(id), count(name), count(*) FROM t_int
SELECT count(a) FROM t_nulls
SELECT sum(grp) FROM t_int
SELECT sum(id) FROM t_int
SELECT sum(id) FROM t_int WHERE id BETWEEN -200 AND 200
SELECT sum(amount) FROM t_int WHERE id > 0
SELECT sum(amount) FROM t_int WHERE id BETWEEN 2 AND 20
SELECT min(id), max(id) FROM t_int WHERE id BETWEEN -120 AND 120
SELECT min(grp), max(grp), min(amount), max(amount) FROM t_int
SELECT min(name), max(name) FROM t_int
SELECT avg(grp) FROM t_int
SELECT avg(id) FROM t_int WHERE id BETWEEN -200 AND 200
SELECT avg(id) FROM t_int
SELECT avg(amount) FROM t_int
SELECT avg(amount) FROM t_int WHERE grp = 3
SELECT avg(amount) FROM t_int WHERE id BETWEEN 20 AND 30
SELECT avg(n) FROM t_text
SELECT avg(v), sum(v) FROM t_comp
SELECT avg(v) FROM t_comp WHERE a BETWEEN 4 AND 11
SELECT count(*) FROM t_comp WHERE b = 'x'
SELECT avg(c), sum(c), count(c) FROM t_nulls WHERE id > 50
SELECT sum(a), avg(a) FROM t_nulls
SELECT avg(a) FROM t_nulls WHERE id < 10
SELECT sum(n), avg(n) FROM t_uuid
SELECT sum(n), avg(n), min(payload), max(payload) FROM t_ts
SELECT count(*), sum(amount), avg(amount), min(id), max(id) FROM t_int WHERE id > 500 AND id < 600
SELECT sum(grp), avg(grp), min(name), max(name) FROM t_int WHERE grp = 99
SELECT count(a), sum(a), avg(a), min(a), max(a) FROM t_nulls WHERE a IS NULL
SELECT sum(c), count(c), count(*) FROM t_nulls WHERE id % 5 = 0
SELECT min(k), max(k) FROM t_text WHERE k > 'a'
SELECT min(note), max(note) FROM t_text
SELECT min(w), max(w) FROM t_comp
SELECT min(b), max(b) FROM t_nulls
SELECT min(ts), max(ts) FROM t_ts
SELECT min(ts), max(ts) FROM t_ts WHERE n BETWEEN 0 AND 100
SELECT min(d), max(d) FROM t_nulls
SELECT min(u::text), max(u::text) FROM t_uuid WHERE n > 0
SELECT min(u::text), max(u::text), count(u) FROM t_uuid WHERE label = 'label 5'
SELECT min(a), max(a), min(c), max(c) FROM t_nulls
SELECT min(u), max(u) FROM t_uuid WHERE n > 0
SELECT count(*), max(id) FROM t_int WHERE flag
SELECT count(DISTINCT id) FROM t_int
SELECT count(DISTINCT id) FROM t_int WHERE id > 0
SELECT count(DISTINCT k) FROM t_text
SELECT count(DISTINCT u) FROM t_uuid
SELECT count(DISTINCT id), count(*) FROM t_nulls
SELECT count(DISTINCT grp) FROM t_int WHERE id > 0
SELECT count(DISTINCT a) FROM t_nulls
SELECT count(DISTINCT note) FROM t_text
SELECT count(*) + 1, sum(grp) * 2 FROM t_int
SELECT max(id) - min(id) FROM t_int WHERE id BETWEEN -200 AND 200

-- group: merge group by
SELECT grp, sum(amount), avg(amount), min(id), max(id) FROM t_int GROUP BY grp ORDER BY grp
SELECT grp, flag, count(*) FROM t_int GROUP BY grp, flag ORDER BY grp, flag
SELECT flag, grp, sum(amount) FROM t_int GROUP BY flag, grp ORDER BY flag DESC, grp DESC
SELECT grp, count(*) FROM t_int WHERE id > 0 GROUP BY grp
SELECT grp, count(*) FROM t_int WHERE id BETWEEN 20 AND 30 GROUP BY grp ORDER BY grp
SELECT grp, count(*) FROM t_int WHERE id BETWEEN 2 AND 20 GROUP BY grp ORDER BY grp
SELECT grp % 3, count(*) FROM t_int GROUP BY grp % 3 ORDER BY 1
SELECT grp % 3 AS m, sum(grp) FROM t_int GROUP BY m ORDER BY m
SELECT id % 5 AS r, count(*), min(name) FROM t_int WHERE id BETWEEN -200 AND 200 GROUP BY 1 ORDER BY 1
SELECT length(name), count(*) FROM t_int GROUP BY length(name) ORDER BY length(name)
SELECT amount > 50, count(*) FROM t_int GROUP BY 1 ORDER BY 1
SELECT grp, count(*) FROM t_int GROUP BY grp ORDER BY count(*) DESC, grp
SELECT grp, sum(amount) AS s FROM t_int GROUP BY grp ORDER BY s, grp
SELECT grp, max(amount) FROM t_int GROUP BY grp ORDER BY 2 DESC, 1 LIMIT 3
SELECT grp, count(*) FROM t_int GROUP BY grp ORDER BY grp LIMIT 5 OFFSET 2
SELECT grp, avg(amount) FROM t_int GROUP BY grp ORDER BY avg(amount) DESC, grp LIMIT 4
SELECT grp, count(*) FROM t_int GROUP BY grp ORDER BY grp OFFSET 3
SELECT count(*), sum(amount) FROM t_int LIMIT 1 OFFSET 0
SELECT count(*) FROM t_int OFFSET 1
SELECT DISTINCT grp FROM t_int ORDER BY grp OFFSET 5
SELECT count(*) FROM t_int GROUP BY grp ORDER BY grp
SELECT grp FROM t_int GROUP BY grp ORDER BY grp
SELECT grp, count(*) FROM t_int WHERE id > 500 AND id < 600 GROUP BY grp
SELECT grp, name, count(*) FROM t_int WHERE grp = 11 GROUP BY grp, name ORDER BY name
SELECT flag, count(DISTINCT grp) FROM t_int GROUP BY flag ORDER BY flag
SELECT grp, count(DISTINCT id) FROM t_int GROUP BY grp ORDER BY grp
SELECT a, count(*) FROM t_nulls GROUP BY a ORDER BY a NULLS FIRST
SELECT a, count(*), sum(c) FROM t_nulls GROUP BY a ORDER BY a DESC
SELECT b, count(*) FROM t_nulls GROUP BY b ORDER BY b
SELECT a, b IS NULL, count(*) FROM t_nulls GROUP BY a, b IS NULL ORDER BY 1, 2
SELECT b, min(d), max(d) FROM t_nulls GROUP BY b ORDER BY b NULLS FIRST
SELECT a, count(b), count(c), count(d), avg(c) FROM t_nulls GROUP BY a ORDER BY a
SELECT note, count(*), min(k), max(k) FROM t_text GROUP BY note ORDER BY note
SELECT length(k), count(*) FROM t_text GROUP BY 1 ORDER BY 1
SELECT b, sum(v), avg(v) FROM t_comp GROUP BY b ORDER BY b
SELECT a % 4, b, count(*) FROM t_comp GROUP BY 1, 2 ORDER BY 1, 2
SELECT label, min(u::text), max(u::text), count(*) FROM t_uuid GROUP BY label ORDER BY label
SELECT n % 4, count(*), min(u::text) FROM t_uuid GROUP BY 1 ORDER BY 1
SELECT payload, min(ts), max(ts), sum(n) FROM t_ts GROUP BY payload ORDER BY payload DESC
SELECT date_trunc('month', ts) AS m, count(*) FROM t_ts GROUP BY m ORDER BY m

-- group: merge having
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 37 ORDER BY grp
SELECT grp, sum(amount) FROM t_int GROUP BY grp HAVING sum(amount) < 2000 ORDER BY grp
SELECT grp, avg(amount) FROM t_int GROUP BY grp HAVING avg(amount) > -4 ORDER BY grp
SELECT grp, min(id), max(id) FROM t_int GROUP BY grp HAVING min(id) < -100 ORDER BY grp DESC
SELECT grp FROM t_int GROUP BY grp HAVING max(amount) >= 99 ORDER BY grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 1000
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 10 AND sum(amount) > -150 ORDER BY count(*) DESC, grp
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING grp > 5 ORDER BY grp
SELECT a, count(*) FROM t_nulls GROUP BY a HAVING count(*) >= 18 ORDER BY a NULLS FIRST
SELECT a, sum(c) FROM t_nulls GROUP BY a HAVING sum(c) IS NOT NULL ORDER BY a
SELECT b, count(*) FROM t_nulls GROUP BY b HAVING count(*) < 20 ORDER BY b
SELECT note, count(*) FROM t_text GROUP BY note HAVING count(*) > 11 ORDER BY note
SELECT b, max(v) FROM t_comp GROUP BY b HAVING max(v) > 2900 ORDER BY b
SELECT label, count(*) FROM t_uuid GROUP BY label HAVING min(n) < 5 ORDER BY label
SELECT payload, count(*) FROM t_ts GROUP BY payload HAVING max(ts) > '2024-03-01 00:00:00+00' ORDER BY payload
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(*) > 5 ORDER BY grp LIMIT 3
SELECT grp, sum(amount) FROM t_int WHERE id > 0 GROUP BY grp HAVING sum(amount) > 800 ORDER BY sum(amount) DESC, grp LIMIT 4 OFFSET 1
SELECT count(*) FROM t_int HAVING count(*) > 0
SELECT count(*) FROM t_int HAVING count(*) > 100000
SELECT grp, count(*) FROM t_int GROUP BY grp HAVING count(DISTINCT flag) = 2 ORDER BY grp
SELECT a % 5, count(*) FROM t_comp GROUP BY a % 5 HAVING avg(v) > 1000 ORDER BY 1

-- group: merge distinct
SELECT DISTINCT grp FROM t_int ORDER BY grp DESC
SELECT DISTINCT grp, flag FROM t_int ORDER BY grp, flag
SELECT DISTINCT grp, flag FROM t_int
SELECT DISTINCT grp FROM t_int WHERE id > 0 ORDER BY grp
SELECT DISTINCT grp FROM t_int WHERE id BETWEEN 20 AND 30 ORDER BY grp
SELECT DISTINCT grp FROM t_int WHERE id BETWEEN 2 AND 20
SELECT DISTINCT grp % 3 FROM t_int ORDER BY 1
SELECT DISTINCT amount FROM t_int ORDER BY amount LIMIT 10
SELECT DISTINCT grp FROM t_int ORDER BY grp LIMIT 4 OFFSET 2
SELECT DISTINCT id FROM t_int WHERE id BETWEEN -10 AND 10 ORDER BY id
SELECT DISTINCT note FROM t_text ORDER BY note NULLS FIRST
SELECT DISTINCT note FROM t_text
SELECT DISTINCT length(k) FROM t_text ORDER BY 1 DESC
SELECT DISTINCT b FROM t_comp ORDER BY b
SELECT DISTINCT a FROM t_comp ORDER BY a DESC LIMIT 5
SELECT DISTINCT a FROM t_nulls ORDER BY a NULLS FIRST
SELECT DISTINCT b FROM t_nulls ORDER BY b DESC
SELECT DISTINCT a, b FROM t_nulls ORDER BY a, b
SELECT DISTINCT a, b IS NULL FROM t_nulls ORDER BY 1, 2
SELECT DISTINCT label FROM t_uuid ORDER BY label
SELECT DISTINCT payload FROM t_ts ORDER BY payload DESC
SELECT DISTINCT date_trunc('month', ts) FROM t_ts ORDER BY 1

-- group: merge types
SELECT id, i2 FROM t_types ORDER BY i2, id
SELECT id, i8 FROM t_types ORDER BY i8, id
SELECT id, f4 FROM t_types ORDER BY f4, id
SELECT id, f4 FROM t_types ORDER BY f4 DESC, id
SELECT id, f8 FROM t_types ORDER BY f8, id
SELECT id, f8 FROM t_types ORDER BY f8 NULLS FIRST, id DESC
SELECT id, num FROM t_types ORDER BY num, id
SELECT id, num FROM t_types ORDER BY num DESC, id
SELECT id, amt FROM t_types ORDER BY amt, id
SELECT id, by FROM t_types ORDER BY by, id
SELECT id, by FROM t_types ORDER BY by DESC, id
SELECT id, bo FROM t_types ORDER BY bo DESC NULLS LAST, id
SELECT id, d FROM t_types ORDER BY d DESC, id
SELECT id, tsn FROM t_types ORDER BY tsn, id
SELECT id, vc FROM t_types ORDER BY vc, id
SELECT id, bc FROM t_types ORDER BY bc, id
SELECT id, u FROM t_types ORDER BY u, id
SELECT id, tz FROM t_types ORDER BY tz DESC, id
SELECT id FROM t_types ORDER BY bo, d DESC, id
SELECT id, f8, f4 FROM t_types ORDER BY f8 * -1, f4, id
SELECT id, f8 FROM t_types ORDER BY f8 DESC, id LIMIT 5
SELECT id, f4 FROM t_types ORDER BY f4, id LIMIT 5 OFFSET 3
SELECT id, num FROM t_types ORDER BY num DESC NULLS LAST, id LIMIT 6
SELECT id, by FROM t_types ORDER BY by, id LIMIT 5
SELECT id, bc FROM t_types ORDER BY bc DESC, id LIMIT 5
SELECT id, d FROM t_types ORDER BY d NULLS FIRST, id LIMIT 5
SELECT id, f8 FROM t_types WHERE id BETWEEN 30 AND 80 ORDER BY f8, id
SELECT count(*), count(f4), count(f8), count(num), count(by) FROM t_types
SELECT sum(i2), avg(i2), min(i2), max(i2) FROM t_types
SELECT sum(i8), avg(i8), min(i8), max(i8) FROM t_types
SELECT min(f4), max(f4) FROM t_types
SELECT min(f8), max(f8) FROM t_types
SELECT min(f8), max(f8) FROM t_types WHERE f8 < 'Infinity'
SELECT sum(num), avg(num) FROM t_types
SELECT sum(num), avg(num) FROM t_types WHERE num > '-Infinity' AND num < 'Infinity'
SELECT min(num), max(num) FROM t_types
SELECT min(num), max(num) FROM t_types WHERE num > '-Infinity' AND num < 'Infinity'
SELECT sum(amt), avg(amt), min(amt), max(amt) FROM t_types
SELECT sum(amt), avg(amt) FROM t_types WHERE id > 200
SELECT min(encode(by, 'hex')), max(encode(by, 'hex')) FROM t_types
SELECT min(d), max(d), min(tsn), max(tsn) FROM t_types
SELECT min(vc), max(vc), min(bc), max(bc) FROM t_types
SELECT min(u::text), max(u::text), min(tz), max(tz) FROM t_types
SELECT count(DISTINCT id) FROM t_types
SELECT bo, count(*), sum(i2) FROM t_types GROUP BY bo ORDER BY bo NULLS FIRST
SELECT bc, count(*) FROM t_types GROUP BY bc ORDER BY bc
SELECT vc, count(*), min(id) FROM t_types GROUP BY vc ORDER BY vc DESC
SELECT by, count(*) FROM t_types GROUP BY by ORDER BY by LIMIT 5
SELECT f4 > 0, count(*) FROM t_types GROUP BY 1 ORDER BY 1
SELECT extract(year FROM d) AS y, count(*) FROM t_types GROUP BY y ORDER BY y
SELECT DISTINCT bc FROM t_types ORDER BY bc
SELECT DISTINCT bo FROM t_types ORDER BY bo
SELECT DISTINCT vc FROM t_types ORDER BY vc
SELECT DISTINCT i2 FROM t_types ORDER BY i2 DESC LIMIT 10

-- group: merge within one range
SELECT * FROM t_int WHERE id BETWEEN 1 AND 24 ORDER BY name DESC, id
SELECT id, amount FROM t_int WHERE id >= 25 AND id < 50 ORDER BY amount, id
SELECT id, grp FROM t_int WHERE id BETWEEN 51 AND 74 ORDER BY grp DESC, id LIMIT 5
SELECT id FROM t_int WHERE id BETWEEN 100 AND 149 ORDER BY id DESC LIMIT 3 OFFSET 2
SELECT id FROM t_int WHERE id BETWEEN 100 AND 149 ORDER BY id FETCH FIRST 4 ROWS ONLY
SELECT id, name FROM t_int WHERE id BETWEEN -100 AND -51 ORDER BY lower(name), id
SELECT id FROM t_int WHERE id BETWEEN -150 AND -101 ORDER BY id * -1 LIMIT 5
SELECT id, grp FROM t_int WHERE id BETWEEN 25 AND 49 ORDER BY 2, 1 LIMIT 0
SELECT id, grp FROM t_int WHERE id BETWEEN 75 AND 99 ORDER BY 2 DESC, 1 OFFSET 15
SELECT count(*), sum(amount), avg(amount), min(amount), max(amount) FROM t_int WHERE id BETWEEN 1 AND 24
SELECT count(*), sum(id), avg(id) FROM t_int WHERE id BETWEEN -49 AND -2
SELECT min(name), max(name), count(DISTINCT id) FROM t_int WHERE id BETWEEN 150 AND 174
SELECT count(DISTINCT grp) FROM t_int WHERE id BETWEEN 1 AND 24
SELECT sum(amount), avg(amount), count(*) FROM t_int WHERE id BETWEEN 25 AND 49 AND grp = 99
SELECT grp, count(*), sum(amount) FROM t_int WHERE id BETWEEN 25 AND 49 GROUP BY grp ORDER BY grp
SELECT grp, count(*) FROM t_int WHERE id BETWEEN 75 AND 99 GROUP BY grp HAVING count(*) > 2 ORDER BY grp
SELECT flag, count(*), avg(amount) FROM t_int WHERE id BETWEEN 51 AND 74 GROUP BY flag ORDER BY flag
SELECT grp, max(amount) FROM t_int WHERE id BETWEEN -100 AND -51 GROUP BY grp ORDER BY 2 DESC, 1 LIMIT 3
SELECT DISTINCT grp FROM t_int WHERE id BETWEEN 100 AND 149 ORDER BY grp DESC
SELECT DISTINCT flag, grp % 2 FROM t_int WHERE id BETWEEN 150 AND 174 ORDER BY 1, 2
SELECT id, a FROM t_nulls WHERE id BETWEEN 25 AND 49 ORDER BY a NULLS FIRST, id
SELECT id, b FROM t_nulls WHERE id BETWEEN 50 AND 74 ORDER BY b DESC NULLS LAST, id
SELECT id, c FROM t_nulls WHERE id BETWEEN 75 AND 99 ORDER BY c DESC, id LIMIT 5
SELECT id, d FROM t_nulls WHERE id BETWEEN 200 AND 224 ORDER BY d NULLS FIRST, id
SELECT count(a), count(b), sum(c), avg(c), min(d), max(d) FROM t_nulls WHERE id BETWEEN 100 AND 124
SELECT a, count(*) FROM t_nulls WHERE id BETWEEN 125 AND 149 GROUP BY a ORDER BY a NULLS FIRST
SELECT DISTINCT b FROM t_nulls WHERE id BETWEEN 150 AND 174 ORDER BY b
SELECT k, n FROM t_text WHERE k >= 'key050' AND k < 'key100' ORDER BY n DESC, k LIMIT 5
SELECT k FROM t_text WHERE k >= 'key100' AND k < 'key150' ORDER BY length(k) DESC, k DESC
SELECT note, count(*) FROM t_text WHERE k >= 'key100' AND k < 'key150' GROUP BY note ORDER BY note
SELECT min(note), max(note), sum(n), avg(n) FROM t_text WHERE k >= 'key050' AND k < 'key100'
SELECT a, b, v FROM t_comp WHERE a BETWEEN 11 AND 14 ORDER BY v DESC LIMIT 7
SELECT b, sum(v), avg(v) FROM t_comp WHERE a BETWEEN 11 AND 14 GROUP BY b ORDER BY b
SELECT u, n FROM t_uuid WHERE u >= '20000000-0000-0000-0000-000000000000' AND u < '43de481c-ae63-944b-81db-6fd5567a12bb' ORDER BY n LIMIT 5
SELECT count(*), min(n), max(n), avg(n) FROM t_uuid WHERE u >= '20000000-0000-0000-0000-000000000000' AND u < '43de481c-ae63-944b-81db-6fd5567a12bb'
SELECT ts, n FROM t_ts WHERE ts >= '2024-02-01 00:00:00+00' AND ts < '2024-02-15 12:00:00+00' ORDER BY payload, ts
SELECT payload, count(*), min(ts), max(ts) FROM t_ts WHERE ts >= '2024-02-01 00:00:00+00' AND ts < '2024-02-15 12:00:00+00' GROUP BY payload ORDER BY payload
SELECT id, f8 FROM t_types WHERE id BETWEEN 10 AND 39 ORDER BY f8, id
SELECT id, f4 FROM t_types WHERE id BETWEEN 40 AND 74 ORDER BY f4 DESC, id
SELECT id, num FROM t_types WHERE id BETWEEN 76 AND 109 ORDER BY num NULLS FIRST, id
SELECT id, by FROM t_types WHERE id BETWEEN 110 AND 149 ORDER BY by DESC, id
SELECT id, bc, vc FROM t_types WHERE id BETWEEN 10 AND 39 ORDER BY bc, vc, id
SELECT id, d, tsn FROM t_types WHERE id BETWEEN 40 AND 74 ORDER BY d DESC NULLS LAST, id
SELECT id, u, tz FROM t_types WHERE id BETWEEN 76 AND 109 ORDER BY tz, id LIMIT 5
SELECT sum(i2), avg(i2), sum(i8), avg(i8), sum(amt), avg(amt) FROM t_types WHERE id BETWEEN 110 AND 149
SELECT min(f4), max(f4), min(f8), max(f8), min(num), max(num) FROM t_types WHERE id BETWEEN 10 AND 39
SELECT bo, count(*), min(d), max(d) FROM t_types WHERE id BETWEEN 40 AND 74 GROUP BY bo ORDER BY bo
SELECT DISTINCT bc FROM t_types WHERE id BETWEEN 76 AND 109 ORDER BY bc DESC
SELECT vc, count(*) FROM t_types WHERE id BETWEEN 110 AND 149 GROUP BY vc HAVING count(*) > 1 ORDER BY vc
SELECT DISTINCT i2 FROM t_types WHERE id BETWEEN 150 AND 201 ORDER BY i2 LIMIT 4

-- group: float sums and windows
SELECT sum(f8) FROM t_types
SELECT avg(f8) FROM t_types
SELECT avg(f4) FROM t_types
SELECT avg(f4) FROM t_types WHERE id BETWEEN 1 AND 150 AND f4 <> 'NaN'
SELECT bo, avg(f4), avg(f4 * 2), count(f4) FROM t_types WHERE f4 <> 'NaN' GROUP BY bo ORDER BY bo
SELECT avg(f4) FILTER (WHERE id % 2 = 0), avg(i2 + 1), avg(f4) FROM t_types WHERE id IN (201, 205, 206)
SELECT avg(f4) FROM t_types WHERE id IN (203, 204)
SELECT avg(f4) FROM t_types WHERE id > 1000
SELECT avg(f4::float8), sum(f4) FROM t_types WHERE id < 200
SELECT sum(f4), avg(f8) FROM t_types WHERE id < 100
SELECT bo, sum(f8) FROM t_types GROUP BY bo ORDER BY bo
SELECT grp, sum(amount::float8) FROM t_int GROUP BY grp ORDER BY grp
SELECT grp, avg(amount::float8), count(*) FROM t_int GROUP BY grp HAVING avg(amount::float8) > 0 ORDER BY 2 DESC, grp
SELECT sum(f8), avg(f8), sum(f4) FROM t_types WHERE id BETWEEN 1 AND 150 AND f8 <> 'NaN' AND f4 <> 'NaN'
SELECT bo, sum(f8) AS s FROM t_types WHERE id <= 150 AND f8 <> 'NaN' GROUP BY bo ORDER BY s DESC LIMIT 2
SELECT sum(f8) FROM t_types WHERE id > 1000
SELECT avg(f8) FROM t_types WHERE id IN (201, 202)
SELECT sum(f8) FROM t_types WHERE id IN (206, 1)
SELECT id, row_number() OVER (ORDER BY id) FROM t_int ORDER BY id
SELECT id, sum(amount) OVER (PARTITION BY grp) FROM t_int ORDER BY id
SELECT id, rank() OVER (ORDER BY amount DESC) FROM t_int ORDER BY id
SELECT id, lag(id) OVER (ORDER BY id) FROM t_int WHERE id > 0 ORDER BY id
SELECT id, ntile(4) OVER (ORDER BY id), percent_rank() OVER (ORDER BY amount, id) FROM t_int ORDER BY id
SELECT id, first_value(name) OVER w, last_value(name) OVER w FROM t_int WINDOW w AS (PARTITION BY grp ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY id
SELECT id, sum(amount) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t_int WHERE id BETWEEN -120 AND 130 ORDER BY id
SELECT id, count(*) OVER (ORDER BY amount RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) FROM t_int ORDER BY id
SELECT k, lead(k) OVER (ORDER BY k COLLATE "C"), n FROM t_text ORDER BY k COLLATE "C"
SELECT a, b, dense_rank() OVER (PARTITION BY a ORDER BY v DESC) FROM t_comp ORDER BY a, b
SELECT id, cume_dist() OVER (PARTITION BY a ORDER BY c NULLS FIRST) FROM t_nulls ORDER BY id
SELECT grp, id, row_number() OVER (PARTITION BY grp ORDER BY id) AS r FROM t_int ORDER BY r, grp LIMIT 10
SELECT id FROM t_int ORDER BY row_number() OVER (ORDER BY amount DESC, id) LIMIT 5
SELECT grp, sum(amount), rank() OVER (ORDER BY sum(amount) DESC) FROM t_int GROUP BY grp ORDER BY grp
SELECT id, nth_value(id, 3) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM t_int WHERE id > 0 ORDER BY id
SELECT count(*) OVER (), id FROM t_int WHERE id BETWEEN 20 AND 60 ORDER BY id LIMIT 3
SELECT id, avg(amount) OVER (PARTITION BY flag ORDER BY id) FROM t_int WHERE id IN (1, 2, 3, 50, 51, 150) ORDER BY id
SELECT DISTINCT ON (grp) grp, id FROM t_int ORDER BY grp, id DESC
SELECT DISTINCT ON (b) b, a FROM t_comp ORDER BY b, a
SELECT DISTINCT ON (a) a, id FROM t_nulls ORDER BY a, id
SELECT id FROM t_int WHERE id < 0 UNION SELECT id FROM t_int WHERE id > 100 ORDER BY id
SELECT grp FROM t_int UNION SELECT a FROM t_comp
SELECT id FROM t_int INTERSECT SELECT a FROM t_comp ORDER BY 1
SELECT id FROM t_int EXCEPT SELECT id FROM t_nulls ORDER BY 1
SELECT grp FROM t_int UNION ALL SELECT n FROM t_text
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) FROM t_int
SELECT string_agg(name, ',' ORDER BY id) FROM t_int WHERE id > 0
SELECT array_agg(id ORDER BY id) FROM t_int WHERE id BETWEEN 20 AND 30
SELECT stddev(amount), variance(amount) FROM t_int
SELECT count(DISTINCT grp), count(DISTINCT flag) FROM t_int
SELECT sum(DISTINCT grp), avg(DISTINCT grp) FROM t_int
SELECT grp, count(*) FROM t_int GROUP BY ROLLUP (grp) ORDER BY grp NULLS FIRST
SELECT grp, flag, count(*) FROM t_int GROUP BY GROUPING SETS ((grp), (flag))
SELECT count(*) FROM (SELECT DISTINCT grp FROM t_int) s
-- group: count of a query's rows (SQLAlchemy's Query.count())
SELECT count(*) AS count_1 FROM (SELECT t_int.id AS t_int_id, t_int.name AS t_int_name FROM t_int WHERE t_int.grp = 3) AS anon_1
SELECT count(*) FROM (SELECT id FROM t_int) s
SELECT count(*) FROM (SELECT id FROM t_int WHERE id BETWEEN -60 AND 60 ORDER BY id) s
SELECT count(name) FROM (SELECT name FROM t_int WHERE id > 100) s
SELECT count(*) FROM (SELECT id FROM t_int WHERE id = 5) s
SELECT count(*) FROM (SELECT id FROM t_int WHERE false) s
SELECT count(*) FROM (SELECT id FROM t_int LIMIT 7) s
SELECT count(*) FROM (SELECT id, lower(name) FROM t_int) s
SELECT count(*) FROM (SELECT id FROM t_int WHERE id IN (SELECT n FROM t_text)) s
SELECT count(*) FROM (SELECT generate_series(1, 3) FROM t_int) s
SELECT grp, count(*) FROM (SELECT grp FROM t_int ORDER BY id LIMIT 50) s GROUP BY grp ORDER BY grp

-- group: dml int8
DELETE FROM t_int WHERE id = 1001
INSERT INTO t_int VALUES (1001, 1, 'new 1001', 10.5, true)
SELECT * FROM t_int WHERE id = 1001
INSERT INTO t_int VALUES (1001, 1, 'dup', 10.5, true)
UPDATE t_int SET name = 'changed', amount = amount + 1 WHERE id = 1001
SELECT * FROM t_int WHERE id = 1001
DELETE FROM t_int WHERE id = 1001
SELECT * FROM t_int WHERE id = 1001
DELETE FROM t_int WHERE id = -175
INSERT INTO t_int (id, grp, name, amount, flag) VALUES (-175, 5, 'name -175', 0, false)
SELECT * FROM t_int WHERE id = -175
UPDATE t_int SET grp = grp WHERE id = 50
SELECT * FROM t_int WHERE id = 50
UPDATE t_int SET flag = NOT flag WHERE id = 3
UPDATE t_int SET name = 'name ' || id WHERE id = 100 RETURNING id, name
DELETE FROM t_int WHERE id = 9999 RETURNING *
INSERT INTO t_int VALUES (52, 2, 'name 52', 1, false) ON CONFLICT (id) DO NOTHING
SELECT * FROM t_int WHERE id = 52
INSERT INTO t_int VALUES (52, 2, 'name 52 again', 2, false) ON CONFLICT (id) DO UPDATE SET name = excluded.name
SELECT * FROM t_int WHERE id = 52
DELETE FROM t_int WHERE id = 52
SELECT * FROM t_int WHERE id = 52
UPDATE t_int SET amount = 0 WHERE grp = 99
DELETE FROM t_int WHERE id = 2000 OR id = -2000
UPDATE t_int SET amount = amount WHERE id BETWEEN 20 AND 21

-- group: dml text
DELETE FROM t_text WHERE k = 'new key'
INSERT INTO t_text VALUES ('new key', 5000, 'inserted')
SELECT * FROM t_text WHERE k = 'new key'
UPDATE t_text SET note = 'updated' WHERE k = 'new key'
SELECT * FROM t_text WHERE k = 'new key'
DELETE FROM t_text WHERE k = 'new key'
SELECT * FROM t_text WHERE k = 'new key'
UPDATE t_text SET n = n WHERE k = ''
SELECT * FROM t_text WHERE k = ''
UPDATE t_text SET note = note WHERE k = 'ü' RETURNING *
INSERT INTO t_text VALUES ('Ärger', 0, 'dup')
DELETE FROM t_text WHERE k = 'Ω'
INSERT INTO t_text VALUES ('Ω', 6000, 'omega')
SELECT * FROM t_text WHERE k = 'Ω'
DELETE FROM t_text WHERE k = 'Ω' RETURNING k, n

-- group: dml composite
DELETE FROM t_comp WHERE a = 100 AND b = 'new'
INSERT INTO t_comp VALUES (100, 'new', 1, 'w')
SELECT * FROM t_comp WHERE a = 100 AND b = 'new'
UPDATE t_comp SET w = 'w2', v = v + 1 WHERE a = 100 AND b = 'new'
SELECT * FROM t_comp WHERE a = 100 AND b = 'new'
DELETE FROM t_comp WHERE a = 100 AND b = 'new'
SELECT * FROM t_comp WHERE a = 100 AND b = 'new'
UPDATE t_comp SET w = w WHERE a = 5 AND b = 'x'
SELECT * FROM t_comp WHERE a = 5 AND b = 'x'
UPDATE t_comp SET w = w WHERE a = 5
DELETE FROM t_comp WHERE b = 'nothing'
INSERT INTO t_comp (a, b, v) VALUES (5, 'x', 0)

-- group: dml uuid
DELETE FROM t_uuid WHERE u = '11111111-2222-3333-4444-555555555555'
INSERT INTO t_uuid VALUES ('11111111-2222-3333-4444-555555555555', 7777, 'new')
SELECT * FROM t_uuid WHERE u = '11111111-2222-3333-4444-555555555555'
UPDATE t_uuid SET label = 'renamed' WHERE u = '11111111-2222-3333-4444-555555555555'
SELECT * FROM t_uuid WHERE u = '11111111-2222-3333-4444-555555555555'
DELETE FROM t_uuid WHERE u = '11111111-2222-3333-4444-555555555555'
SELECT * FROM t_uuid WHERE u = '11111111-2222-3333-4444-555555555555'
UPDATE t_uuid SET n = n WHERE u = 'cb78e542-4910-93eb-8eeb-4d125372a098' RETURNING n

-- group: dml timestamptz
DELETE FROM t_ts WHERE ts = '2030-06-01 12:00:00+00'
INSERT INTO t_ts VALUES ('2030-06-01 12:00:00+00', 9000, 'future')
SELECT * FROM t_ts WHERE ts = '2030-06-01 12:00:00+00'
SELECT * FROM t_ts WHERE ts = '2030-06-01 14:00:00+02'
UPDATE t_ts SET payload = 'future2' WHERE ts = '2030-06-01 12:00:00+00'
SELECT * FROM t_ts WHERE ts = '2030-06-01 12:00:00+00'
DELETE FROM t_ts WHERE ts = '2030-06-01 12:00:00+00'
SELECT * FROM t_ts WHERE ts = '2030-06-01 12:00:00+00'
DELETE FROM t_ts WHERE ts = '2024-01-01 03:30:00+00'
INSERT INTO t_ts VALUES ('2024-01-01 03:30:00+00', 9001, 'between')
SELECT * FROM t_ts WHERE ts = '2024-01-01 03:30:00+00'
DELETE FROM t_ts WHERE ts = '2024-01-01 03:30:00+00'

-- group: dml nulls
DELETE FROM t_nulls WHERE id = 500
INSERT INTO t_nulls (id) VALUES (500)
SELECT * FROM t_nulls WHERE id = 500
UPDATE t_nulls SET a = NULL, b = 'set' WHERE id = 500
SELECT * FROM t_nulls WHERE id = 500
UPDATE t_nulls SET b = NULL WHERE id = 500 RETURNING *
DELETE FROM t_nulls WHERE id = 500
SELECT * FROM t_nulls WHERE id = 500
UPDATE t_nulls SET c = c WHERE id = 7
SELECT * FROM t_nulls WHERE id = 7

-- group: session time zone
SET TimeZone = 'Asia/Kolkata'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 12:30:00+05:30'
SELECT * FROM t_ts WHERE ts = '2024-01-01 12:30:00'
SELECT ts, n FROM t_ts WHERE n BETWEEN 10 AND 15
SELECT * FROM t_nulls WHERE id = 2
SET TimeZone = 'America/New_York'
SELECT * FROM t_ts WHERE ts = '2024-01-01 02:00:00'
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00'
SELECT ts FROM t_ts WHERE ts < '2000-01-01 00:00:00+00'
RESET TimeZone
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+00'
SHOW TimeZone

-- group: errors
SELECT * FROM t_missing WHERE id = 1
SELECT * FROM t_int WHERE id = 1 AND
SELECT * FROM t_text WHERE k = 5
SELECT * FROM t_int WHERE id = 'x'
SELECT * FROM t_uuid WHERE u = '1234'
SELECT * FROM t_ts WHERE ts = 'not a time'
INSERT INTO t_int VALUES (NULL, 1, 'null key', 0, false)
INSERT INTO t_int (id) VALUES (77777)
UPDATE t_int SET grp = NULL WHERE id = 5

-- group: casts that change the key value, and UPDATEs that assign the key
-- group: casts that change the key value
SELECT * FROM t_text WHERE k = 'abc  '::char(5)
SELECT * FROM t_text WHERE k = 'abc '::char(4)
SELECT * FROM t_text WHERE k = 'abcd'::varchar(3)
SELECT * FROM t_ts WHERE ts = '2024-01-01 07:00:00+07'::timestamp
SELECT * FROM t_ts WHERE ts = '2024-01-01 05:00:00+00'::date

-- group: dml key change
DELETE FROM t_int WHERE id = 1003
DELETE FROM t_int WHERE id = 59
INSERT INTO t_int VALUES (1003, 3, 'moving', 1, true)
UPDATE t_int SET id = 59 WHERE id = 1003
SELECT * FROM t_int WHERE id = 59
SELECT * FROM t_int WHERE id = 1003
SELECT id, name FROM t_int WHERE name = 'moving'
DELETE FROM t_int WHERE id = 59
SELECT id, name FROM t_int WHERE name = 'moving'

-- Global indexes (setup.sql: accounts, parts, events, metrics; splits.sql spreads their rows and
-- their index entries over the shards). A SELECT whose WHERE narrows an indexed column reads the
-- index's entries, then the rows they name (or the index alone when it stores every column).
-- Writes start by deleting what they insert, so that the second run starts where the first did.

-- group: global index lookups
SELECT * FROM accounts WHERE email = 'user1@example.com'
SELECT * FROM accounts WHERE email = 'user299@example.com'
SELECT id, name FROM accounts WHERE email = 'nobody@example.com'
SELECT id, email FROM accounts WHERE email = 'shared1@example.com' ORDER BY id
SELECT count(*) FROM accounts WHERE email = 'shared0@example.com'
SELECT count(*), sum(balance), min(id), max(id) FROM accounts WHERE email = 'shared2@example.com'
SELECT * FROM accounts WHERE email = 'MixedCase@Example.com'
SELECT * FROM accounts WHERE email = 'mixedcase@example.com'
SELECT id FROM accounts WHERE email IN ('user1@example.com', 'user101@example.com', 'user201@example.com', 'nobody') ORDER BY id
SELECT id, email FROM accounts WHERE email IN ('shared2@example.com', 'user3@example.com') ORDER BY id
SELECT id FROM accounts WHERE email IN ('none1', 'none2')
SELECT id FROM accounts WHERE email BETWEEN 'user10' AND 'user11' ORDER BY id
SELECT id, email FROM accounts WHERE email > 'user29' AND email < 'user3' ORDER BY email
SELECT email FROM accounts WHERE email >= 'user9' ORDER BY email LIMIT 5
SELECT email FROM accounts WHERE email >= 'user9' ORDER BY email LIMIT 5 OFFSET 3
SELECT email FROM accounts WHERE email < 'user1' ORDER BY email
SELECT email FROM accounts WHERE email <= 'late@example.com' ORDER BY email
SELECT id, email FROM accounts WHERE email LIKE 'user12%' ORDER BY email
SELECT count(*) FROM accounts WHERE email LIKE 'user2%'
SELECT id FROM accounts WHERE email LIKE 'shared%' ORDER BY id DESC
SELECT id FROM accounts WHERE email LIKE 'nomatch%'
SELECT id FROM accounts WHERE email LIKE 'user1_@example.com' ORDER BY id
SELECT id, email FROM accounts WHERE email = 'user1@example.com' OR email = 'user2@example.com' ORDER BY id
SELECT id, name, city FROM accounts WHERE email LIKE 'user4%' AND city = 'Paris' ORDER BY id
SELECT id FROM accounts WHERE email LIKE 'user1%' AND tier = 3 AND balance > 0 ORDER BY id
SELECT id FROM accounts WHERE email LIKE 'user1%' AND name = 'no such name'
SELECT id FROM accounts WHERE email = 'user5@example.com' AND id = 5
SELECT id FROM accounts WHERE email = 'user5@example.com' AND id = 6
SELECT tier, count(*) FROM accounts WHERE email LIKE 'user1%' GROUP BY tier ORDER BY tier NULLS FIRST
SELECT city, count(*), sum(balance) FROM accounts WHERE email >= 'user2' AND email < 'user3' GROUP BY city ORDER BY city NULLS LAST
SELECT DISTINCT tier FROM accounts WHERE email LIKE 'shared%' ORDER BY tier NULLS FIRST
SELECT DISTINCT email FROM accounts WHERE email LIKE 'shared%' ORDER BY email
SELECT count(DISTINCT email), count(email), count(*) FROM accounts WHERE email LIKE 'shared%'
SELECT avg(balance), min(created), max(created) FROM accounts WHERE email BETWEEN 'user100' AND 'user150'
SELECT id, upper(email) AS e, balance * 2 AS b2 FROM accounts WHERE email = 'user33@example.com'
SELECT a.id, a.code FROM accounts a WHERE a.email = 'user44@example.com'
SELECT email, id FROM accounts WHERE email LIKE 'user27%' ORDER BY email DESC LIMIT 3
SELECT id FROM accounts WHERE email LIKE 'user%' ORDER BY id LIMIT 10 OFFSET 100
SELECT count(*) FROM accounts WHERE email IS NULL
SELECT id FROM accounts WHERE email IS NULL AND id < 60 ORDER BY id
SELECT count(*) FROM accounts WHERE email IS NOT NULL

-- group: unique global index
SELECT * FROM accounts WHERE code = 'C0001'
SELECT * FROM accounts WHERE code = 'c0001'
SELECT id, code FROM accounts WHERE code = 'C0013'
SELECT id, code FROM accounts WHERE code = 'C9999'
SELECT id FROM accounts WHERE code IN ('C0002', 'C0150', 'C0299', 'C0300', 'X') ORDER BY id
SELECT id, code FROM accounts WHERE code BETWEEN 'C0045' AND 'C0055' ORDER BY code
SELECT code FROM accounts WHERE code > 'C0290' ORDER BY code
SELECT code FROM accounts WHERE code < 'C0005' ORDER BY code
SELECT count(*) FROM accounts WHERE code LIKE 'C01%'
SELECT code, balance FROM accounts WHERE code = 'C0120'
SELECT code, balance FROM accounts WHERE code IN ('C0120', 'C0121', 'C0122') ORDER BY code
SELECT sum(balance), count(*) FROM accounts WHERE code LIKE 'C02%'
SELECT code, balance FROM accounts WHERE code >= 'C0200' AND code < 'C0210' AND balance > 0 ORDER BY code
SELECT count(*) FROM accounts WHERE code IS NULL
SELECT id FROM accounts WHERE code IS NULL ORDER BY id

-- group: covering index reads
SELECT city, name, tier FROM accounts WHERE city = 'Paris' ORDER BY name, tier /*ties*/
SELECT name FROM accounts WHERE city = 'Oslo' ORDER BY name /*ties*/
SELECT count(*) FROM accounts WHERE city = 'Berlin'
SELECT count(*) FROM accounts WHERE city = 'berlin'
SELECT city, count(*) FROM accounts WHERE city IN ('Rome', 'Lima', 'Nowhere') GROUP BY city ORDER BY city
SELECT city, count(*), min(tier), max(tier) FROM accounts WHERE city > 'M' GROUP BY city ORDER BY city
SELECT DISTINCT city FROM accounts WHERE city >= 'B' AND city < 'P' ORDER BY city
SELECT city, tier FROM accounts WHERE city = 'Zürich' AND tier = 2 /*ties*/
SELECT name, tier FROM accounts WHERE city = 'São Paulo' ORDER BY name, tier LIMIT 4 /*ties*/
SELECT tier, count(*) FROM accounts WHERE city LIKE 'B%' GROUP BY tier ORDER BY tier NULLS LAST
SELECT count(*) FROM accounts WHERE city IS NULL
SELECT name FROM accounts WHERE city IS NULL AND tier = 1 /*ties*/
SELECT id, city FROM accounts WHERE city = 'Bern' ORDER BY id
SELECT id, city, balance FROM accounts WHERE city = 'Bern' AND balance < 0 ORDER BY id
SELECT * FROM accounts WHERE city = 'Lima' ORDER BY id LIMIT 3
SELECT v, tag FROM parts WHERE tag = 'tag4' ORDER BY v
SELECT count(*), sum(v) FROM parts WHERE tag IN ('tag0', 'tag8')
SELECT tag, count(*) FROM parts WHERE tag >= 'tag5' GROUP BY tag ORDER BY tag
SELECT a, b, v FROM parts WHERE tag = 'tag7' ORDER BY a, b
SELECT * FROM parts WHERE tag = 'tag2' AND a > 40 ORDER BY a, b
SELECT count(*) FROM parts WHERE tag IS NULL
SELECT score, kind FROM events WHERE kind = 'buy' ORDER BY score /*ties*/
SELECT kind, count(*), sum(score) FROM events WHERE kind IN ('login', 'logout') GROUP BY kind ORDER BY kind
SELECT max(score) FROM events WHERE kind = 'view'

-- group: multi-column global index
SELECT id, tier, created FROM accounts WHERE tier = 2 AND created = '2024-01-14 02:00:00+00'
SELECT id FROM accounts WHERE tier = 3 ORDER BY id
SELECT id, created FROM accounts WHERE tier = 1 AND created < '2024-01-15 00:00:00+00' ORDER BY id
SELECT id, created FROM accounts WHERE tier = 4 AND created BETWEEN '2024-02-01 00:00:00+00' AND '2024-03-01 00:00:00+00' ORDER BY created, id
SELECT count(*) FROM accounts WHERE tier IN (0, 4)
SELECT tier, count(*) FROM accounts WHERE tier IN (1, 2, 3) AND created > '2024-05-01 00:00:00+00' GROUP BY tier ORDER BY tier
SELECT id FROM accounts WHERE tier = 0 AND created IS NULL ORDER BY id
SELECT count(*) FROM accounts WHERE tier IS NULL
SELECT id, tier FROM accounts WHERE tier > 3 AND email LIKE 'user1%' ORDER BY id
SELECT min(created), max(created) FROM accounts WHERE tier = 2

-- group: parts composite key through its index
SELECT a, b FROM parts WHERE tag = 'tag1' ORDER BY a, b
SELECT * FROM parts WHERE tag = 'tag3' AND b = 'zz' ORDER BY a
SELECT b, count(*) FROM parts WHERE tag LIKE 'tag%' GROUP BY b ORDER BY b
SELECT a, b, tag FROM parts WHERE tag BETWEEN 'tag2' AND 'tag3' ORDER BY tag, a, b

-- group: hash-sharded table with global indexes
SELECT * FROM events WHERE ts = '2024-03-05 00:00:00+00' ORDER BY id
SELECT id, kind FROM events WHERE ts = '2024-03-01 00:37:00+00'
SELECT id, ts FROM events WHERE ts = '2024-03-01 01:37:00+01'
SELECT id FROM events WHERE ts = '2024-02-01 00:00:00+00'
SELECT id, ts FROM events WHERE ts IN ('2024-03-01 01:14:00+00', '2024-03-02 00:00:00+00', '2024-03-05 00:00:00+00') ORDER BY id
SELECT id, ts FROM events WHERE ts BETWEEN '2024-03-03 00:00:00+00' AND '2024-03-03 06:00:00+00' ORDER BY ts, id
SELECT count(*) FROM events WHERE ts >= '2024-03-08 00:00:00+00'
SELECT count(*) FROM events WHERE ts < '2024-03-02 00:00:00+00'
SELECT id, ts FROM events WHERE ts > '2024-03-09 00:00:00+00' ORDER BY ts, id LIMIT 5
SELECT id, ts FROM events WHERE ts > '2024-03-04 00:00:00+00' ORDER BY ts DESC, id DESC LIMIT 4 OFFSET 2
SELECT kind, count(*) FROM events WHERE ts >= '2024-03-04 00:00:00+00' AND ts < '2024-03-06 00:00:00+00' GROUP BY kind ORDER BY kind
SELECT date_trunc('day', ts) AS d, count(*) FROM events WHERE ts >= '2024-03-02 00:00:00+00' GROUP BY d ORDER BY d
SELECT DISTINCT kind FROM events WHERE ts = '2024-03-05 00:00:00+00' ORDER BY kind
SELECT id, payload FROM events WHERE ts < '2024-03-01 06:00:00+00' AND payload IS NULL ORDER BY id
SELECT id FROM events WHERE kind = 'click' AND score > 90 ORDER BY id
SELECT id, payload FROM events WHERE kind = 'logout' AND ts < '2024-03-01 12:00:00+00' ORDER BY id
SELECT count(*), min(id), max(id) FROM events WHERE kind = 'view'
SELECT id FROM events WHERE kind LIKE 'log%' AND id < 30 ORDER BY id
SELECT id FROM events WHERE kind = 'nope'
SELECT * FROM events WHERE id = 123
SELECT id, kind FROM events WHERE id IN (1, 8, 64, 399) ORDER BY id
SELECT count(*), sum(score) FROM events
SELECT id, ts FROM metrics WHERE ts = '2024-05-01 01:00:00+00'
SELECT count(*) FROM metrics WHERE ts BETWEEN '2024-05-01 00:30:00+00' AND '2024-05-01 01:30:00+00'
SELECT host, count(*), sum(v) FROM metrics WHERE host IN ('host1', 'host4') GROUP BY host ORDER BY host
SELECT id FROM metrics WHERE host = 'host2' AND v > 40 ORDER BY id

-- group: global index writes
DELETE FROM accounts WHERE id = 1001
DELETE FROM accounts WHERE id = 1002
DELETE FROM accounts WHERE id = 1003
DELETE FROM accounts WHERE id = 1004
DELETE FROM accounts WHERE id = 1005
INSERT INTO accounts VALUES (1001, 'new1@example.com', 'N0001', 'new one', 'Oslo', 1, 5, '2025-01-01 00:00:00+00')
SELECT id, email, code FROM accounts WHERE email = 'new1@example.com'
SELECT id, name, tier FROM accounts WHERE code = 'N0001'
SELECT name, tier FROM accounts WHERE city = 'Oslo' AND name = 'new one'
SELECT id FROM accounts WHERE tier = 1 AND created = '2025-01-01 00:00:00+00'
INSERT INTO accounts VALUES (1002, 'new2@example.com', 'N0002', 'new two', 'Lima', 2, 6, NULL), (1003, NULL, NULL, 'new three', NULL, NULL, 7, NULL)
SELECT id, email FROM accounts WHERE email LIKE 'new%' ORDER BY id
SELECT id FROM accounts WHERE code LIKE 'N%' ORDER BY id
UPDATE accounts SET email = 'renamed1@example.com' WHERE id = 1001
SELECT id FROM accounts WHERE email = 'new1@example.com'
SELECT id, email FROM accounts WHERE email = 'renamed1@example.com'
UPDATE accounts SET city = 'Rome', name = 'moved one' WHERE id = 1001
SELECT name FROM accounts WHERE city = 'Oslo' AND name LIKE '%one'
SELECT name, tier FROM accounts WHERE city = 'Rome' AND name = 'moved one'
UPDATE accounts SET tier = 4 WHERE id = 1001 RETURNING id, tier, city
SELECT name, tier FROM accounts WHERE city = 'Rome' AND name = 'moved one'
SELECT id FROM accounts WHERE tier = 4 AND created = '2025-01-01 00:00:00+00'
UPDATE accounts SET code = 'N0003' WHERE id = 1003
SELECT id, code FROM accounts WHERE code = 'N0003'
UPDATE accounts SET balance = balance + 100 WHERE code = 'N0002'
SELECT code, balance FROM accounts WHERE code = 'N0002'
UPDATE accounts SET email = NULL WHERE id = 1002
SELECT id FROM accounts WHERE email = 'new2@example.com'
SELECT count(*) FROM accounts WHERE email IS NULL
UPDATE accounts SET id = 1004 WHERE id = 1003
SELECT id, code FROM accounts WHERE code = 'N0003'
SELECT id FROM accounts WHERE id = 1003
DELETE FROM accounts WHERE id = 1004 RETURNING id, code
SELECT id FROM accounts WHERE code = 'N0003'
INSERT INTO accounts VALUES (1005, 'upsert@example.com', 'N0005', 'upsert', 'Paris', 0, 1, NULL) ON CONFLICT (id) DO UPDATE SET email = excluded.email
SELECT id, email, code FROM accounts WHERE email = 'upsert@example.com'
INSERT INTO accounts VALUES (1005, 'upserted@example.com', 'N0005', 'upsert', 'Bern', 0, 1, NULL) ON CONFLICT (id) DO UPDATE SET email = excluded.email, city = excluded.city
SELECT id FROM accounts WHERE email = 'upsert@example.com'
SELECT id, email FROM accounts WHERE email = 'upserted@example.com'
SELECT name, tier FROM accounts WHERE city = 'Bern' AND name = 'upsert'
INSERT INTO accounts VALUES (1005, 'x@example.com', 'N0005', 'upsert', 'Bern', 0, 1, NULL) ON CONFLICT (id) DO NOTHING
SELECT id, email FROM accounts WHERE email = 'x@example.com'
UPDATE accounts SET tier = tier WHERE email = 'user7@example.com'
UPDATE accounts SET name = 'n' || id WHERE id BETWEEN 1001 AND 1005
SELECT name, tier FROM accounts WHERE city IN ('Rome', 'Lima', 'Bern') AND name LIKE 'n100%' ORDER BY name
DELETE FROM accounts WHERE id = 1001
DELETE FROM accounts WHERE id = 1002
DELETE FROM accounts WHERE id = 1005
SELECT id FROM accounts WHERE email LIKE 'new%' OR email LIKE 'renamed%' OR email LIKE 'upsert%'
SELECT count(*) FROM accounts WHERE code LIKE 'N%'
SELECT count(*) FROM accounts

-- group: unique violations
DELETE FROM accounts WHERE id = 1010
DELETE FROM accounts WHERE id = 1011
DELETE FROM accounts WHERE id = 1012
DELETE FROM accounts WHERE id = 1013
INSERT INTO accounts VALUES (1010, NULL, 'C0001', 'dup', NULL, NULL, 0, NULL)
INSERT INTO accounts VALUES (1010, NULL, 'C0260', 'dup', NULL, NULL, 0, NULL)
INSERT INTO accounts VALUES (1010, NULL, 'C0299', 'dup', NULL, NULL, 0, NULL)
SELECT id FROM accounts WHERE id = 1010
SELECT id, code FROM accounts WHERE code IN ('C0001', 'C0260', 'C0299') ORDER BY id
INSERT INTO accounts VALUES (1010, NULL, 'U1010', 'ok', NULL, NULL, 0, NULL)
INSERT INTO accounts VALUES (1011, NULL, 'U1010', 'dup', NULL, NULL, 0, NULL)
INSERT INTO accounts VALUES (1011, NULL, 'U1011', 'ok', NULL, NULL, 0, NULL), (1012, NULL, 'U1011', 'dup', NULL, NULL, 0, NULL)
SELECT id, code FROM accounts WHERE code LIKE 'U%' ORDER BY id
INSERT INTO accounts VALUES (1011, NULL, NULL, 'null code', NULL, NULL, 0, NULL), (1012, NULL, NULL, 'null code', NULL, NULL, 0, NULL)
SELECT id, code FROM accounts WHERE code IS NULL AND id > 1000 ORDER BY id
UPDATE accounts SET code = 'C0002' WHERE id = 1011
UPDATE accounts SET code = 'C0290' WHERE id = 1011
UPDATE accounts SET code = 'U1010' WHERE id = 1012
SELECT id, code FROM accounts WHERE id IN (1010, 1011, 1012) ORDER BY id
UPDATE accounts SET code = 'U1011' WHERE id = 1011
SELECT id, code FROM accounts WHERE code = 'U1011'
UPDATE accounts SET code = NULL WHERE id = 1011
UPDATE accounts SET code = 'U1011' WHERE id = 1012
SELECT id, code FROM accounts WHERE code LIKE 'U%' ORDER BY id
INSERT INTO accounts VALUES (1013, NULL, 'C0003', 'dup', NULL, NULL, 0, NULL) ON CONFLICT (id) DO NOTHING
INSERT INTO accounts VALUES (1010, NULL, 'U1011', 'clash', NULL, NULL, 0, NULL) ON CONFLICT (id) DO UPDATE SET code = excluded.code
SELECT id, code, name FROM accounts WHERE code IN ('U1010', 'U1011') ORDER BY id
UPDATE accounts SET code = 'c0001' WHERE id = 1010
SELECT id, code FROM accounts WHERE code IN ('C0001', 'c0001') ORDER BY id
DELETE FROM accounts WHERE id = 1010
DELETE FROM accounts WHERE id = 1011
DELETE FROM accounts WHERE id = 1012
SELECT count(*) FROM accounts WHERE id > 1000

-- group: parts writes
DELETE FROM parts WHERE a = 100 AND b = 'x'
DELETE FROM parts WHERE a = 100 AND b = 'y'
INSERT INTO parts VALUES (100, 'x', 1, 'tag4')
INSERT INTO parts VALUES (100, 'y', 2, 'newtag')
SELECT a, b, v FROM parts WHERE tag = 'tag4' AND a = 100
SELECT v, tag FROM parts WHERE tag = 'newtag'
UPDATE parts SET tag = 'newtag', v = 11 WHERE a = 100 AND b = 'x'
SELECT a, b, v FROM parts WHERE tag = 'newtag' ORDER BY a, b
SELECT count(*) FROM parts WHERE tag = 'tag4'
UPDATE parts SET b = 'w' WHERE a = 100 AND b = 'y'
SELECT a, b, v FROM parts WHERE tag = 'newtag' ORDER BY a, b
DELETE FROM parts WHERE a = 100 AND b = 'w'
DELETE FROM parts WHERE a = 100 AND b = 'x'
SELECT a, b FROM parts WHERE tag = 'newtag'

-- group: hash-sharded table writes
DELETE FROM events WHERE id = 5001
DELETE FROM events WHERE id = 5002
DELETE FROM events WHERE id = 5003
INSERT INTO events VALUES (5001, '2024-04-01 00:00:00+00', 'buy', 'new', 50)
SELECT id, kind, score FROM events WHERE ts = '2024-04-01 00:00:00+00'
SELECT score FROM events WHERE kind = 'buy' AND score = 50 ORDER BY score /*ties*/
INSERT INTO events VALUES (5002, '2024-03-05 00:00:00+00', 'view', NULL, 1), (5003, '2024-04-01 00:00:00+00', 'refund', 'r', 99)
SELECT id, kind FROM events WHERE ts = '2024-03-05 00:00:00+00' ORDER BY id
SELECT id, kind FROM events WHERE ts = '2024-04-01 00:00:00+00' ORDER BY id
SELECT count(*) FROM events WHERE ts >= '2024-03-31 00:00:00+00'
UPDATE events SET ts = '2024-04-02 00:00:00+00' WHERE id = 5001
SELECT id FROM events WHERE ts = '2024-04-01 00:00:00+00' ORDER BY id
SELECT id, ts FROM events WHERE ts > '2024-04-01 12:00:00+00' ORDER BY id
UPDATE events SET kind = 'refund', score = score + 1 WHERE id = 5001 RETURNING id, kind, score
SELECT kind, score FROM events WHERE kind = 'refund' ORDER BY score
SELECT id, kind FROM events WHERE kind = 'buy' AND id > 5000
UPDATE events SET id = 5004 WHERE id = 5003
SELECT id, ts, kind FROM events WHERE kind = 'refund' ORDER BY id
INSERT INTO events VALUES (5004, '2024-04-03 00:00:00+00', 'view', 'again', 2) ON CONFLICT (id) DO UPDATE SET ts = excluded.ts, payload = excluded.payload
SELECT id, ts, payload FROM events WHERE ts >= '2024-04-01 00:00:00+00' ORDER BY id
INSERT INTO events VALUES (5001, '2024-04-01 00:00:00+00', 'dup', NULL, 0)
DELETE FROM events WHERE id = 5001
DELETE FROM events WHERE id = 5002
DELETE FROM events WHERE id = 5004
SELECT id FROM events WHERE ts >= '2024-03-31 00:00:00+00'
SELECT count(*) FROM events WHERE kind = 'refund'
SELECT count(*) FROM events WHERE ts = '2024-03-05 00:00:00+00'
DELETE FROM metrics WHERE id = 9001
INSERT INTO metrics VALUES (9001, '2024-05-01 01:00:00+00', 'host1', 7)
SELECT id, host FROM metrics WHERE ts = '2024-05-01 01:00:00+00' ORDER BY id
UPDATE metrics SET host = 'hostX', v = 8 WHERE id = 9001
SELECT id, v FROM metrics WHERE host = 'hostX'
DELETE FROM metrics WHERE id = 9001
SELECT id FROM metrics WHERE host = 'hostX'

-- group: reads after index writes
SELECT count(*), count(email), count(DISTINCT email), count(code), count(city) FROM accounts
SELECT city, count(*) FROM accounts WHERE city IS NOT NULL GROUP BY city ORDER BY city
SELECT id, email, code FROM accounts WHERE email LIKE 'user10%' ORDER BY id
SELECT code FROM accounts WHERE code >= 'C0295' ORDER BY code
SELECT count(*) FROM events WHERE ts BETWEEN '2024-03-01 00:00:00+00' AND '2024-03-11 00:00:00+00'
SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind
SELECT count(*), sum(v) FROM parts

-- group: global index edge cases
SELECT a.name FROM accounts a WHERE a.city = 'Oslo' ORDER BY a.name /*ties*/
SELECT accounts.name, accounts.tier FROM accounts WHERE accounts.city = 'Rome' ORDER BY 1, 2 /*ties*/
SELECT name FROM public.accounts WHERE city = 'Lima' ORDER BY name /*ties*/
SELECT "name" FROM accounts WHERE "city" = 'Bern' ORDER BY "name" /*ties*/
SELECT name FROM accounts WHERE city = 'Oslo' ORDER BY id
SELECT name FROM accounts WHERE city = 'Oslo' ORDER BY balance, id
SELECT lower(name) AS l, tier + 1 AS t FROM accounts WHERE city = 'Paris' AND balance > 100 ORDER BY l, t /*ties*/
SELECT count(*) FROM accounts WHERE city = 'Oslo' AND created IS NULL
SELECT 1 AS one FROM accounts WHERE city = 'Oslo' LIMIT 1
SELECT count(1) FROM accounts WHERE city = 'Oslo'
SELECT count(*) FROM accounts WHERE city = 'Nowhere'
SELECT city, max(name), min(tier) FROM accounts WHERE city IN ('Oslo', 'Rome') GROUP BY city ORDER BY city
SELECT tableoid::regclass AS t, name FROM accounts WHERE city = 'Oslo' ORDER BY name LIMIT 1
SELECT tableoid::regclass AS t, email FROM accounts WHERE email = 'user1@example.com'
SELECT a.* FROM accounts a WHERE a.city = 'Bern' ORDER BY a.id LIMIT 5
SELECT row_to_json(a)::text AS j FROM accounts a WHERE a.city = 'Bern' AND a.id < 40 ORDER BY a.id
SELECT id FROM accounts WHERE email = NULL
SELECT id FROM accounts WHERE email IN ('user1@example.com', NULL) ORDER BY id
SELECT id FROM accounts WHERE city = ''
SELECT count(*) FROM accounts WHERE email LIKE '%'
SELECT id FROM accounts WHERE email LIKE 'user1\_%' ORDER BY id
SELECT id FROM accounts WHERE city LIKE 'Z_rich' ORDER BY id
SELECT count(*) FROM accounts WHERE city LIKE 'Zü%'
SELECT count(*) FROM accounts WHERE city ILIKE 'oslo'
SELECT id FROM accounts WHERE email BETWEEN SYMMETRIC 'user11' AND 'user10' ORDER BY id
SELECT id FROM accounts WHERE NOT (email <> 'user1@example.com')
SELECT id FROM accounts WHERE email = 'user1@example.com' OR id = 2 ORDER BY id
SELECT count(*), sum(balance) FROM accounts WHERE code = 'C0001' AND code = 'C0002'
SELECT max(balance), min(email) FROM accounts WHERE email = 'nobody@example.com'
SELECT city, count(*) FROM accounts WHERE email = 'nobody@example.com' GROUP BY city
SELECT id FROM accounts WHERE email = 'user1@example.com' LIMIT 0
SELECT id FROM accounts WHERE city = 'Oslo'::varchar(2)
SELECT count(*) FROM accounts WHERE city = 'Oslo'::char(2)
SELECT count(*) FROM accounts WHERE city = 'Os'::char(4)
SELECT id FROM accounts WHERE code = 'C0001 '::char(6)
SELECT count(*) FROM accounts WHERE tier = 2.5
SELECT count(*) FROM accounts WHERE tier = '2'
SELECT count(*) FROM accounts WHERE tier IN (1.0, 2)
SELECT count(*) FROM accounts WHERE tier < 2.5
SELECT count(*) FROM accounts WHERE tier > 1.5 AND tier <= 3
SELECT count(*) FROM accounts WHERE tier = 9999999999
SELECT id FROM accounts WHERE (tier, created) = (2, '2024-01-09 19:00:00+00')
SELECT count(*) FROM accounts WHERE (tier, created) > (3, '2024-06-01 00:00:00+00')
SELECT id FROM accounts WHERE tier = 1 AND created = '2024-01-01 13:00:00+00'
SELECT id FROM accounts WHERE tier = 1 AND created = '2024-01-01'::date
SELECT id FROM events WHERE ts = '2024-03-05 00:00:00+00' AND id = 100
SELECT id FROM events WHERE ts = '2024-03-05'::date ORDER BY id
SELECT count(*) FROM events WHERE ts = '2024-03-05 00:00:00'::timestamp
SELECT count(*) FROM events WHERE ts > 'infinity'
SELECT count(*) FROM events WHERE ts < '-infinity'
SELECT count(*) FROM events WHERE ts > '-infinity'
SELECT id, name FROM accounts WHERE email = 'user1@example.com' FOR UPDATE
SELECT count(*) FROM accounts WHERE email = 'user2@example.com' AND email LIKE 'user%'
SELECT count(*) FROM accounts WHERE email > 'user2' AND email > 'user3' AND email < 'user4'

-- group: global index lookups in another time zone
SET TimeZone = 'Asia/Kolkata'
SELECT id, ts FROM events WHERE ts = '2024-03-01 06:07:00'
SELECT id, ts FROM events WHERE ts = '2024-03-01 00:37:00+00'
SELECT count(*) FROM events WHERE ts >= '2024-03-05' AND ts < '2024-03-06'
SELECT id FROM events WHERE ts = '2024-03-05'::date ORDER BY id
SELECT id, created FROM accounts WHERE tier = 1 AND created < '2024-01-05 00:00:00' ORDER BY id
RESET TimeZone
SELECT id, ts FROM events WHERE ts = '2024-03-01 06:07:00'

-- group: global index writes by indexed column
DELETE FROM accounts WHERE id = 1020
DELETE FROM accounts WHERE id = 1021
INSERT INTO accounts VALUES (1020, 'atomic@example.com', 'A1020', 'atomic', 'Oslo', 1, 1, NULL), (1, 'again@example.com', 'A0001', 'dup key', 'Oslo', 1, 1, NULL)
SELECT id FROM accounts WHERE email = 'atomic@example.com'
SELECT id FROM accounts WHERE code = 'A1020'
SELECT name FROM accounts WHERE city = 'Oslo' AND name = 'atomic'
INSERT INTO accounts VALUES (1020, 'atomic@example.com', 'A1020', 'atomic', 'Oslo', 1, 1, NULL), (1021, 'atomic2@example.com', 'C0100', 'dup code', 'Rome', 1, 1, NULL)
SELECT id FROM accounts WHERE email LIKE 'atomic%'
SELECT count(*) FROM accounts WHERE id IN (1020, 1021)
INSERT INTO accounts VALUES (1020, 'tmp@example.com', 'T1020', 'tmp', 'Oslo', 1, 1, NULL), (1021, 'tmp@example.com', 'T1021', 'tmp', 'Rome', 2, 2, NULL)
SELECT id, code FROM accounts WHERE email = 'tmp@example.com' ORDER BY id
UPDATE accounts SET email = 'user1@example.com' WHERE email = 'tmp@example.com'
SELECT id FROM accounts WHERE email = 'user1@example.com' ORDER BY id
UPDATE accounts SET city = 'Lima' WHERE code = 'T1020' RETURNING id, city
SELECT name FROM accounts WHERE city = 'Lima' AND name = 'tmp'
UPDATE accounts SET code = 'T' || code WHERE email = 'user1@example.com' AND id > 1000
SELECT id, code FROM accounts WHERE code LIKE 'TT%' ORDER BY id
DELETE FROM accounts WHERE email = 'user1@example.com' AND id > 1000 RETURNING id
SELECT id FROM accounts WHERE email = 'user1@example.com' ORDER BY id
SELECT count(*) FROM accounts WHERE code LIKE 'T%'
SELECT count(*) FROM accounts

-- group: hash-sharded secondary indexes
SELECT v FROM metrics WHERE host = 'host3' ORDER BY v /*ties*/
SELECT host, v FROM metrics WHERE host = 'host0' AND v < 10 ORDER BY v /*ties*/
SELECT id, v FROM metrics WHERE host IN ('host2', 'host5') AND id < 40 ORDER BY id
SELECT count(*) FROM metrics WHERE host LIKE 'host%'
SELECT count(*) FROM metrics WHERE host > 'host3'
SELECT id, ts FROM metrics WHERE ts = '2024-05-01 02:00:00+00'
SELECT id FROM metrics WHERE ts IN ('2024-05-01 00:01:00+00', '2024-05-01 03:59:00+00', '2024-05-02 00:00:00+00') ORDER BY id
SELECT ts FROM metrics WHERE ts BETWEEN '2024-05-01 01:55:00+00' AND '2024-05-01 02:05:00+00' ORDER BY ts
SELECT ts, host FROM metrics WHERE ts > '2024-05-01 03:50:00+00' ORDER BY ts DESC LIMIT 3
SELECT host, count(*) FROM metrics WHERE ts < '2024-05-01 01:00:00+00' GROUP BY host ORDER BY host
SELECT * FROM metrics WHERE ts = '2024-05-01 00:42:00+00'
DELETE FROM metrics WHERE id = 9002
DELETE FROM metrics WHERE id = 9003
INSERT INTO metrics VALUES (9002, '2024-05-01 02:00:00+00', 'host9', 1), (9003, '2024-06-01 00:00:00+00', 'host9', 2)
SELECT id, v FROM metrics WHERE host = 'host9' ORDER BY id
SELECT id, host FROM metrics WHERE ts = '2024-05-01 02:00:00+00' ORDER BY id
UPDATE metrics SET ts = '2024-06-02 00:00:00+00', v = 3 WHERE id = 9003
SELECT id, ts, v FROM metrics WHERE ts >= '2024-06-01 00:00:00+00' ORDER BY id
SELECT v FROM metrics WHERE host = 'host9' ORDER BY v
UPDATE metrics SET host = 'host1' WHERE host = 'host9'
SELECT count(*) FROM metrics WHERE host = 'host9'
SELECT count(*), sum(v) FROM metrics WHERE host = 'host1'
DELETE FROM metrics WHERE id = 9002
DELETE FROM metrics WHERE id = 9003
SELECT count(*), sum(v) FROM metrics WHERE host = 'host1'

-- group: global index writes over many rows
UPDATE accounts SET tier = tier + 10 WHERE id BETWEEN 40 AND 60
SELECT id, tier FROM accounts WHERE tier >= 10 ORDER BY id
SELECT count(*) FROM accounts WHERE tier = 2
UPDATE accounts SET tier = tier - 10 WHERE tier >= 10
SELECT count(*) FROM accounts WHERE tier >= 10
SELECT tier, count(*) FROM accounts GROUP BY tier ORDER BY tier NULLS FIRST
DELETE FROM parts WHERE a >= 200
INSERT INTO parts VALUES (200, 'q', 200, 'scratch'), (201, 'q', 201, 'scratch'), (202, 'q', 202, 'scratch'), (203, 'q', 203, 'scratch'), (204, 'q', 204, 'scratch'), (205, 'q', 205, 'scratch'), (206, 'q', 206, 'scratch'), (207, 'q', 207, 'scratch'), (208, 'q', 208, 'scratch'), (209, 'q', 209, 'scratch')
SELECT a, v FROM parts WHERE tag = 'scratch' ORDER BY a
UPDATE parts SET tag = 'scratch2', v = v + 1 WHERE tag = 'scratch' AND a % 2 = 0
SELECT tag, count(*), sum(v) FROM parts WHERE tag LIKE 'scratch%' GROUP BY tag ORDER BY tag
DELETE FROM parts WHERE tag = 'scratch2' RETURNING a, b
SELECT a FROM parts WHERE tag LIKE 'scratch%' ORDER BY a
DELETE FROM parts WHERE a >= 200
SELECT count(*) FROM parts WHERE tag LIKE 'scratch%'

-- group: global indexes in transaction blocks
DELETE FROM accounts WHERE id = 1030
BEGIN
INSERT INTO accounts VALUES (1030, 'block@example.com', 'B1030', 'block', 'Oslo', 3, 3, NULL)
SELECT id, code FROM accounts WHERE email = 'block@example.com'
UPDATE accounts SET email = 'block2@example.com' WHERE id = 1030
SELECT id FROM accounts WHERE email LIKE 'block%'
ROLLBACK
SELECT id FROM accounts WHERE email LIKE 'block%'
SELECT id FROM accounts WHERE code = 'B1030'
BEGIN
INSERT INTO accounts VALUES (1030, 'block@example.com', 'B1030', 'block', 'Oslo', 3, 3, NULL)
COMMIT
SELECT id, email FROM accounts WHERE email = 'block@example.com'
SELECT name, tier FROM accounts WHERE city = 'Oslo' AND name = 'block'
BEGIN
INSERT INTO accounts VALUES (1031, NULL, 'B1030', 'clash', NULL, NULL, 0, NULL)
ROLLBACK
DELETE FROM accounts WHERE id = 1030
SELECT id FROM accounts WHERE code LIKE 'B%'

-- group: global index values that need quoting
DELETE FROM accounts WHERE id = 1040
DELETE FROM accounts WHERE id = 1041
DELETE FROM accounts WHERE id = 1042
INSERT INTO accounts VALUES (1040, 'o''brien@example.com', 'Q''1', 'quote', 'São Paulo', 1, 1, NULL)
INSERT INTO accounts VALUES (1041, '', 'Q\2', 'empty email', '', 2, 2, NULL)
INSERT INTO accounts VALUES (1042, 'back\slash@example.com', '', 'empty code', 'Zürich', 3, 3, NULL)
SELECT id, code FROM accounts WHERE email = 'o''brien@example.com'
SELECT id, email FROM accounts WHERE code = 'Q''1'
SELECT id, email FROM accounts WHERE code = 'Q\2'
SELECT id, code FROM accounts WHERE email = ''
SELECT id FROM accounts WHERE email < 'a' ORDER BY id
SELECT id, email FROM accounts WHERE email LIKE 'back\\%' ORDER BY id
SELECT id, email FROM accounts WHERE code = ''
SELECT name, tier FROM accounts WHERE city = ''
SELECT name, tier FROM accounts WHERE city = 'São Paulo' AND name = 'quote'
SELECT count(*) FROM accounts WHERE city >= 'S' AND city < 'T'
SELECT id, email FROM accounts WHERE email LIKE 'o''%' ORDER BY id
DELETE FROM accounts WHERE id = 1040
DELETE FROM accounts WHERE id = 1041
DELETE FROM accounts WHERE id = 1042
SELECT id FROM accounts WHERE email = 'o''brien@example.com' OR code = 'Q\2'

-- group: global index lookups with other clauses
SELECT name AS balance FROM accounts WHERE city = 'Oslo' ORDER BY balance /*ties*/
SELECT balance AS name FROM accounts WHERE city = 'Oslo' ORDER BY name /*ties*/
SELECT name, count(*) FROM accounts WHERE city = 'Paris' GROUP BY name HAVING count(*) > 1 ORDER BY name
SELECT name FROM accounts WHERE city = 'Oslo' AND tier = 2 ORDER BY 1 /*ties*/
SELECT * FROM accounts WHERE email LIKE 'user1%' ORDER BY balance DESC, id LIMIT 3
SELECT id FROM accounts WHERE email LIKE 'user1%' ORDER BY id OFFSET 100
SELECT id FROM accounts WHERE email = 'user1@example.com' AND email = 'user2@example.com'
SELECT id FROM accounts WHERE code IN (SELECT code FROM accounts WHERE id = 5)
SELECT id, tier FROM accounts WHERE email LIKE 'user3%' AND tier IS NULL ORDER BY id
SELECT CASE WHEN tier > 2 THEN 'high' ELSE 'low' END AS band, count(*) FROM accounts WHERE city = 'Rome' GROUP BY band ORDER BY band
SELECT id, coalesce(email, '-') AS e FROM accounts WHERE code BETWEEN 'C0010' AND 'C0020' ORDER BY id

-- group: ON CONFLICT and the unique global index
-- (An ON CONFLICT that a UNIQUE global index would decide is refused with 0A000: see the last group.)
DELETE FROM accounts WHERE id = 1050
INSERT INTO accounts VALUES (1050, NULL, 'X1050', 'fresh', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
SELECT id, code FROM accounts WHERE code = 'X1050'
INSERT INTO accounts VALUES (1050, NULL, 'Y1050', 'again', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
SELECT id, code, name FROM accounts WHERE id = 1050
SELECT id FROM accounts WHERE code = 'Y1050'
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'clash', NULL, NULL, 0, NULL) ON CONFLICT (id) DO UPDATE SET code = excluded.code
INSERT INTO accounts VALUES (1050, NULL, 'Z1050', 'moved', NULL, NULL, 0, NULL) ON CONFLICT (id) DO UPDATE SET code = excluded.code, name = excluded.name
SELECT id, code, name FROM accounts WHERE code IN ('X1050', 'Z1050', 'C0004') ORDER BY id
DELETE FROM accounts WHERE id = 1050
SELECT id, name FROM accounts WHERE code = 'C0004'

-- group: ON CONFLICT decided by a UNIQUE global index
-- accounts_code is a UNIQUE global index: the shards' accounts tables have no unique index on
-- code (the uniqueness is kept in accounts@accounts_code), so an ON CONFLICT it would decide
-- (no conflict target, or its columns) is refused with 0A000 rather than misanswered.
-- Code 'C0004' belongs to row 4 (another shard than 1050's).
DELETE FROM accounts WHERE id = 1050
-- PostgreSQL: INSERT 0 0 (the conflict on code is skipped).
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
-- The same with code 'C9999' of row 301, in the same range as 1050 (same shard).
INSERT INTO accounts VALUES (1050, NULL, 'C9999', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
-- PostgreSQL: INSERT 0 0.
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO NOTHING
-- PostgreSQL: INSERT 0 1 (row 4 updated).
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO UPDATE SET name = accounts.name
-- No conflict at all — PostgreSQL: INSERT 0 1.
INSERT INTO accounts VALUES (1050, NULL, 'Z1050', 'no conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO NOTHING
SELECT id, code FROM accounts WHERE id = 1050
DELETE FROM accounts WHERE id = 1050

-- group: a UNIQUE global index's values swapped by one UPDATE
-- PostgreSQL checks a (non-deferrable) unique index row by row: swapping two rows' codes in one
-- UPDATE fails with 23505 whatever the order; pgrange writes a UNIQUE index's entries row by
-- row too (equal values share a range, so one shard sees both).
DELETE FROM accounts WHERE id = 1060
DELETE FROM accounts WHERE id = 1061
INSERT INTO accounts VALUES (1060, NULL, 'S1', 'swap', NULL, NULL, 0, NULL), (1061, NULL, 'S2', 'swap', NULL, NULL, 0, NULL)
-- 23505 (duplicate key value violates unique constraint "accounts_code").
UPDATE accounts SET code = CASE id WHEN 1060 THEN 'S2' ELSE 'S1' END WHERE id IN (1060, 1061)
SELECT id, code FROM accounts WHERE id IN (1060, 1061) ORDER BY id
DELETE FROM accounts WHERE id = 1060
DELETE FROM accounts WHERE id = 1061
