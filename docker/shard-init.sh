#!/bin/sh
# Run once by the postgres image when a shard's data directory is made: range moves read the
# source shard's logical replication stream, a replication connection from the pgrange
# container that the image's own pg_hba.conf (replication from localhost only) would refuse.
echo "host replication all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
