-- The tables, views, functions and other objects of the write differential test, made through
-- pgrange (while each table is still one range) and on the reference server alike (without
-- pgrange's own syntax: reference_sql in tests/support/differential.cpp). One statement per line.
--
-- A statement after `-- provides: F` provides feature F. When pgrange refuses it (0A000 naming
-- the construct: allowed) or fails it (a failure of the test), neither side runs it, F is
-- missing, the statement after `-- unless: F` runs instead, and the corpus groups that require
-- F are skipped (counted in the summary).
--
-- Where rows live after splits.sql (shards s1, s2, s3):
--   a        ids 1-49 s1, 50- s2
--   b        ids 1-19 s1, 20-49 s3, 50-79 s2, 80- s1    (with a: 1-19 and 50-79 on one shard)
--   c        (x, y): x < 10 s2, [10, (20,'q')) s3, [(20,'q'), 30) s1, x >= 30 s2
--   u        no primary key: unsharded, on s3
--   h        hash-sharded by id, 4 buckets on s1, s2, s3, s1
--   g        ids 1-39 s3, 40- s1; global indexes g_email (UNIQUE) and g_grp, spread
--   p        ids 0-19 s2, 20-39 s3, 40- s1               (parent of the fk_* tables)
--   fk_cascade  ids 1-29 s1, 30- s3                       (p_id in 1-30)
--   fk_set      ids 1-14 s3, 15-24 s1, 25- s2             (p_null, p_def in 31-45)
--   fk_block    ids 1-9 s2, 10-19 s3, 20- s1              (p_restrict 46-52, p_noaction 53-60)
--   uq       ids 1-24 s1, 25- s2; UNIQUE email, UNIQUE NULLS NOT DISTINCT (a, b), UNIQUE
--            DEFERRABLE code
--   arch     ids below 1000 s3, 1000-1999 s1, 2000- s2 (where writes put what they move)
--   obj      ids 1-9 s1, 10- s3; columns of a type and a domain made here
--   rf       a reference table (the test's configuration): every shard holds all of its rows
--   fk_rf    ids 1-19 s2, 20- s3; rf_id REFERENCES rf ON DELETE / ON UPDATE CASCADE

-- group: tables
CREATE TABLE a (id int8 PRIMARY KEY, v text, n int4);
INSERT INTO a SELECT g, 'a' || g, CASE WHEN g % 17 = 0 THEN NULL ELSE g % 10 END FROM generate_series(1, 100) g;
CREATE TABLE b (id int8 PRIMARY KEY, w text, m int4);
INSERT INTO b SELECT g, 'b' || g, CASE WHEN g % 13 = 0 THEN NULL ELSE g % 7 END FROM generate_series(1, 100) g;
CREATE TABLE c (x int4, y text, a_id int8, note text, PRIMARY KEY (x, y));
INSERT INTO c SELECT x, y, x * 2, y || x FROM generate_series(1, 40) x, (VALUES ('p'), ('q'), ('r')) ys(y);
CREATE TABLE u (code int4, label text, factor int4);
INSERT INTO u SELECT g, 'L' || g, g + 1 FROM generate_series(0, 9) g;
INSERT INTO u VALUES (NULL, 'none', 0);
CREATE TABLE h (id int8, a_id int8, val int4, PRIMARY KEY (id) USING HASH WITH (bucket_count = 4));
-- Its buckets are on every shard from the start: one INSERT … VALUES (id, (id * 7) % 100 + 1, id % 5).
INSERT INTO h VALUES (1, 8, 1), (2, 15, 2), (3, 22, 3), (4, 29, 4), (5, 36, 0), (6, 43, 1), (7, 50, 2), (8, 57, 3), (9, 64, 4), (10, 71, 0), (11, 78, 1), (12, 85, 2), (13, 92, 3), (14, 99, 4), (15, 6, 0), (16, 13, 1), (17, 20, 2), (18, 27, 3), (19, 34, 4), (20, 41, 0), (21, 48, 1), (22, 55, 2), (23, 62, 3), (24, 69, 4), (25, 76, 0), (26, 83, 1), (27, 90, 2), (28, 97, 3), (29, 4, 4), (30, 11, 0), (31, 18, 1), (32, 25, 2), (33, 32, 3), (34, 39, 4), (35, 46, 0), (36, 53, 1), (37, 60, 2), (38, 67, 3), (39, 74, 4), (40, 81, 0), (41, 88, 1), (42, 95, 2), (43, 2, 3), (44, 9, 4), (45, 16, 0), (46, 23, 1), (47, 30, 2), (48, 37, 3), (49, 44, 4), (50, 51, 0), (51, 58, 1), (52, 65, 2), (53, 72, 3), (54, 79, 4), (55, 86, 0), (56, 93, 1), (57, 100, 2), (58, 7, 3), (59, 14, 4), (60, 21, 0);
CREATE TABLE g (id int8 PRIMARY KEY, email text, grp int4, score int4);
INSERT INTO g SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE 'g' || i || '@x' END, i % 6, (i * 3) % 50 FROM generate_series(1, 80) i;
CREATE UNIQUE INDEX g_email ON g (email);
CREATE INDEX g_grp ON g (grp) STORING (score);
CREATE TABLE arch (id int8 PRIMARY KEY, src text, ref int8, v text);
INSERT INTO arch SELECT i, 'seed', i / 100 + 1, 'v' || i FROM generate_series(50, 2950, 100) i;

-- group: foreign keys
-- Parent and children with every referential action, split at other points than the parent.
CREATE TABLE p (id int8 PRIMARY KEY, name text, tag text);
INSERT INTO p SELECT i, 'p' || i, CASE WHEN i % 3 = 0 THEN 'three' END FROM generate_series(0, 70) i;
-- provides: fk_cascade
CREATE TABLE fk_cascade (id int8 PRIMARY KEY, p_id int8 REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE, note text);
-- unless: fk_cascade
CREATE TABLE fk_cascade (id int8 PRIMARY KEY, p_id int8, note text);
INSERT INTO fk_cascade SELECT i, i % 30 + 1, 'k' || i FROM generate_series(1, 60) i;
-- provides: fk_set
CREATE TABLE fk_set (id int8 PRIMARY KEY, p_null int8 REFERENCES p (id) ON DELETE SET NULL ON UPDATE SET NULL, p_def int8 DEFAULT 0 REFERENCES p (id) ON DELETE SET DEFAULT ON UPDATE SET DEFAULT);
-- unless: fk_set
CREATE TABLE fk_set (id int8 PRIMARY KEY, p_null int8, p_def int8 DEFAULT 0);
INSERT INTO fk_set SELECT i, 31 + i % 15, 31 + (i * 7) % 15 FROM generate_series(1, 40) i;
-- The restricting keys are declared apart (ALTER TABLE), as pg_dump writes them.
CREATE TABLE fk_block (id int8 PRIMARY KEY, p_restrict int8, p_noaction int8);
INSERT INTO fk_block SELECT i, 46 + i % 7, CASE WHEN i % 5 = 0 THEN NULL ELSE 53 + (i * 3) % 8 END FROM generate_series(1, 30) i;
-- provides: fk_block
ALTER TABLE fk_block ADD CONSTRAINT fk_block_restrict FOREIGN KEY (p_restrict) REFERENCES p (id) ON DELETE RESTRICT ON UPDATE RESTRICT;
-- provides: fk_block
ALTER TABLE fk_block ADD CONSTRAINT fk_block_noaction FOREIGN KEY (p_noaction) REFERENCES p (id);

-- group: unique constraints
-- UNIQUE constraints: a column's, a table's over two columns with NULLS NOT DISTINCT, and a
-- deferrable one (which pgrange refuses over several shards: the groups that defer it are
-- skipped).
-- provides: unique
CREATE TABLE uq (id int8 PRIMARY KEY, email text UNIQUE, a int4, b int4, code int4, CONSTRAINT uq_ab UNIQUE NULLS NOT DISTINCT (a, b));
-- unless: unique
CREATE TABLE uq (id int8 PRIMARY KEY, email text, a int4, b int4, code int4);
-- provides: unique_deferrable
ALTER TABLE uq ADD CONSTRAINT uq_code UNIQUE (code) DEFERRABLE;
INSERT INTO uq SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'u' || i || '@x' END, i % 10, CASE WHEN i % 9 = 0 THEN NULL ELSE i / 10 END, i * 10 FROM generate_series(1, 50) i;

-- group: a reference table
-- Every shard holds all of rf's rows (its [[table]] entry says reference = true); fk_rf, spread,
-- references it.
CREATE TABLE rf (id int4 PRIMARY KEY, label text UNIQUE, rate int4);
INSERT INTO rf SELECT g, 'r' || g, CASE WHEN g % 4 = 0 THEN NULL ELSE g * 3 END FROM generate_series(1, 12) g;
-- provides: fk_rf
CREATE TABLE fk_rf (id int8 PRIMARY KEY, rf_id int4 REFERENCES rf (id) ON DELETE CASCADE ON UPDATE CASCADE, v text);
-- unless: fk_rf
CREATE TABLE fk_rf (id int8 PRIMARY KEY, rf_id int4, v text);
INSERT INTO fk_rf SELECT g, g % 12 + 1, 'f' || g FROM generate_series(1, 40) g;

-- group: views
-- Views: over a spread table (simple and updatable, and WITH CHECK OPTION), over a join of two
-- tables split differently, over the unsharded table, and over an aggregate.
-- provides: view_va
CREATE VIEW va AS SELECT id, v, n FROM a WHERE n IS NOT NULL;
-- provides: view_va_low
CREATE VIEW va_low AS SELECT id, v, n FROM a WHERE n < 5 WITH CHECK OPTION;
-- provides: view_vab
CREATE VIEW vab AS SELECT a.id, a.v, b.w FROM a JOIN b ON b.id = a.id;
-- provides: view_vu
CREATE VIEW vu AS SELECT code, label FROM u;
-- provides: view_vb_counts
CREATE VIEW vb_counts AS SELECT m, count(*) AS cnt FROM b GROUP BY m;

-- group: functions
-- SQL functions: reading another table (spread or unsharded), reading none, and writing one.
-- provides: fn_b_w
CREATE FUNCTION b_w(int8) RETURNS text LANGUAGE sql STABLE AS $$SELECT w FROM b WHERE id = $1$$;
-- provides: fn_u_label
CREATE FUNCTION u_label(int4) RETURNS text LANGUAGE sql STABLE AS $$SELECT label FROM u WHERE code = $1$$;
-- provides: fn_b_count
CREATE FUNCTION b_count() RETURNS int8 LANGUAGE sql STABLE AS $$SELECT count(*) FROM b$$;
-- provides: fn_twice
CREATE FUNCTION twice(int4) RETURNS int4 LANGUAGE sql IMMUTABLE AS $$SELECT $1 * 2$$;
-- provides: fn_bump_b
CREATE FUNCTION bump_b(int8) RETURNS int8 LANGUAGE sql AS $$UPDATE b SET m = coalesce(m, 0) + 100 WHERE id = $1 RETURNING id$$;

-- group: schema objects
-- Schema objects every shard needs: a type, a domain, a sequence, and a table using them.
-- provides: type_mood
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
-- provides: domain_posint
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
-- provides: seq_n
CREATE SEQUENCE seq_n START 1000;
-- group: a table of those types
-- requires: type_mood, domain_posint
-- provides: obj
CREATE TABLE obj (id int8 PRIMARY KEY, m mood, qty posint, note text);
-- requires: obj
INSERT INTO obj SELECT i, (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::mood, i, 'o' || i FROM generate_series(1, 20) i;
