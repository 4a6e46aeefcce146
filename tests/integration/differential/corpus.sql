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
SELECT * FROM t_text ORDER BY n LIMIT 20
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
