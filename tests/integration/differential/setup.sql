-- The tables and rows of the differential test, run on pgrange (while every table is still one
-- range) and on the reference server alike. One statement per line.
CREATE TABLE t_int (id int8 PRIMARY KEY, grp int4 NOT NULL, name text NOT NULL, amount numeric(12,2) NOT NULL, flag bool NOT NULL);
INSERT INTO t_int SELECT g, abs(g) % 10, 'name ' || g, ((g * 37) % 1000) / 10.0, g % 3 = 0 FROM generate_series(-200, 200) g WHERE g % 7 <> 3;
INSERT INTO t_int VALUES (-9223372036854775808, 11, 'min', -1, false), (9223372036854775807, 11, 'max', 1, true), (1000000000000, 12, 'trillion', 0.5, true), (-1000000000000, 12, 'minus trillion', 0.25, false);
CREATE TABLE t_text (k text PRIMARY KEY, n int4 NOT NULL, note text);
INSERT INTO t_text SELECT 'key' || lpad(g::text, 3, '0'), g, 'note ' || (g % 17) FROM generate_series(1, 200) g;
INSERT INTO t_text SELECT 'Key' || g, 1000 + g, CASE WHEN g % 2 = 0 THEN 'even' END FROM generate_series(1, 40) g;
INSERT INTO t_text SELECT 'ñ' || g, 2000 + g, 'spanish' FROM generate_series(1, 30) g;
INSERT INTO t_text VALUES ('', 0, 'empty'), (' space', 1, 'leading space'), ('a', 2, 'p'), ('ab', 3, 'p'), ('abc', 4, 'p'), ('abc ', 5, 'p trailing space'), ('abcd', 6, 'p'), ('abd', 7, 'p'), ('ABC', 8, 'upper'), ('Abc', 9, 'mixed'), ('é', 10, 'accent'), ('éa', 11, 'accent'), ('Ärger', 12, 'umlaut'), ('über', 13, 'umlaut'), ('ü', 14, 'umlaut'), ('zebra', 15, NULL), ('ZZZ', 16, NULL), ('zzz', 17, NULL), ('日本', 18, 'cjk'), ('日本語', 19, 'cjk'), ('emoji 😀', 20, 'emoji'), ('it''s', 21, 'quote'), ('100%', 22, 'percent'), ('a_b', 23, 'underscore'), ('back\slash', 24, 'backslash');
CREATE TABLE t_comp (a int4, b text, v int8 NOT NULL, w text, PRIMARY KEY (a, b));
INSERT INTO t_comp SELECT a, b, a * 100 + ord, b || '@' || a FROM generate_series(-10, 29) a, (VALUES ('x', 1), ('y', 2), ('Z', 3), ('ä', 4), ('', 5), ('xy', 6)) AS bs(b, ord);
CREATE TABLE t_uuid (u uuid PRIMARY KEY, n int4 NOT NULL, label text NOT NULL);
INSERT INTO t_uuid SELECT md5('u' || g)::uuid, g, 'label ' || (g % 23) FROM generate_series(1, 300) g;
INSERT INTO t_uuid VALUES ('00000000-0000-0000-0000-000000000000', 0, 'zero'), ('ffffffff-ffff-ffff-ffff-ffffffffffff', -1, 'max');
CREATE TABLE t_ts (ts timestamptz PRIMARY KEY, n int4 NOT NULL, payload text NOT NULL);
INSERT INTO t_ts SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '7 hours', g, 'p' || (g % 9) FROM generate_series(-50, 249) g;
INSERT INTO t_ts VALUES ('2024-01-01 00:00:00.000001+00', 1001, 'micro'), ('2024-01-01 00:00:00.123456+00', 1002, 'frac'), ('1999-12-31 23:59:59.999999+00', 1003, 'y2k-'), ('2000-01-01 00:00:00+00', 1004, 'y2k'), ('infinity', 1005, 'inf'), ('-infinity', 1006, '-inf');
CREATE TABLE t_nulls (id int4 PRIMARY KEY, a int4, b text, c numeric, d timestamptz);
INSERT INTO t_nulls SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE g % 11 END, CASE WHEN g % 4 = 0 THEN NULL ELSE 'b' || (g % 13) END, CASE WHEN g % 5 = 0 THEN NULL ELSE g * 1.25 END, CASE WHEN g % 6 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00:00+00' + g * interval '1 day' END FROM generate_series(1, 300) g;
