-- Statements pgrange answers wrongly today, kept out of corpus.sql (run them after the corpus
-- with PGRANGE_DIFFERENTIAL_EXTRA=tests/integration/differential/known_wrong.sql). Same format.

-- group: ON CONFLICT decided by a UNIQUE global index
-- accounts_code is a UNIQUE global index: the shards' accounts tables have no unique index on
-- code (the uniqueness is kept in accounts@accounts_code), so ON CONFLICT cannot see it.
-- Code 'C0004' belongs to row 4 (another shard than 1050's).
DELETE FROM accounts WHERE id = 1050
-- PostgreSQL: INSERT 0 0 (the conflict on code is skipped); pgrange: 23505 from the index.
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
-- The same with code 'C9999' of row 301, in the same range as 1050 (same shard).
INSERT INTO accounts VALUES (1050, NULL, 'C9999', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING
-- PostgreSQL: INSERT 0 0; pgrange: 42P10 (no unique or exclusion constraint matching the
-- ON CONFLICT specification, from the shard).
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO NOTHING
-- PostgreSQL: INSERT 0 1 (row 4 updated); pgrange: 42P10.
INSERT INTO accounts VALUES (1050, NULL, 'C0004', 'conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO UPDATE SET name = accounts.name
-- No conflict at all — PostgreSQL: INSERT 0 1; pgrange: 42P10.
INSERT INTO accounts VALUES (1050, NULL, 'Z1050', 'no conflict', NULL, NULL, 0, NULL) ON CONFLICT (code) DO NOTHING
SELECT id, code FROM accounts WHERE id = 1050
DELETE FROM accounts WHERE id = 1050

-- group: a UNIQUE global index's values swapped by one UPDATE
-- PostgreSQL checks a (non-deferrable) unique index row by row: swapping two rows' codes in one
-- UPDATE fails with 23505 whatever the order. pgrange writes the index entries after the
-- statement (old entries out, new ones in) and answers UPDATE 2: the swap is applied.
DELETE FROM accounts WHERE id = 1060
DELETE FROM accounts WHERE id = 1061
INSERT INTO accounts VALUES (1060, NULL, 'S1', 'swap', NULL, NULL, 0, NULL), (1061, NULL, 'S2', 'swap', NULL, NULL, 0, NULL)
-- PostgreSQL: 23505 (duplicate key value violates unique constraint "accounts_code");
-- pgrange: UPDATE 2.
UPDATE accounts SET code = CASE id WHEN 1060 THEN 'S2' ELSE 'S1' END WHERE id IN (1060, 1061)
-- PostgreSQL: 1060 | S1, 1061 | S2; pgrange: 1060 | S2, 1061 | S1.
SELECT id, code FROM accounts WHERE id IN (1060, 1061) ORDER BY id
DELETE FROM accounts WHERE id = 1060
DELETE FROM accounts WHERE id = 1061
