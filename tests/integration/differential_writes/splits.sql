-- Through pgrange only, after setup.sql: every table split at its own points and its ranges
-- placed on the shards setup.sql lists. `\place TABLE (key) SHARD` moves the range holding that
-- key (without a key: every range of the table) to SHARD.
ALTER TABLE a SPLIT AT VALUES (50);
\place a (1) s1
\place a (50) s2
ALTER TABLE b SPLIT AT VALUES (20), (50), (80);
\place b (1) s1
\place b (20) s3
\place b (50) s2
\place b (80) s1
ALTER TABLE c SPLIT AT VALUES (10), (20, 'q'), (30);
\place c (1, 'p') s2
\place c (10, 'p') s3
\place c (20, 'q') s1
\place c (30, 'p') s2
\place u s3
ALTER TABLE g SPLIT AT VALUES (40);
\place g (1) s3
\place g (40) s1
ALTER INDEX g@g_email SPLIT AT VALUES ('g3'), ('g6');
ALTER INDEX g@g_email SCATTER;
ALTER INDEX g@g_grp SPLIT AT VALUES (2), (4);
ALTER INDEX g@g_grp SCATTER;
ALTER TABLE arch SPLIT AT VALUES (1000), (2000);
\place arch (1) s3
\place arch (1000) s1
\place arch (2000) s2
ALTER TABLE p SPLIT AT VALUES (20), (40);
\place p (0) s2
\place p (20) s3
\place p (40) s1
ALTER TABLE fk_cascade SPLIT AT VALUES (30);
\place fk_cascade (1) s1
\place fk_cascade (30) s3
ALTER TABLE fk_set SPLIT AT VALUES (15), (25);
\place fk_set (1) s3
\place fk_set (15) s1
\place fk_set (25) s2
ALTER TABLE fk_block SPLIT AT VALUES (10), (20);
\place fk_block (1) s2
\place fk_block (10) s3
\place fk_block (20) s1
ALTER TABLE fk_rf SPLIT AT VALUES (20);
\place fk_rf (1) s2
\place fk_rf (20) s3
ALTER TABLE uq SPLIT AT VALUES (25);
\place uq (1) s1
\place uq (25) s2
-- group: a table of those types
-- requires: obj
ALTER TABLE obj SPLIT AT VALUES (10);
\place obj (1) s1
\place obj (10) s3
