#!/bin/sh
# Run once by the postgres image when a shard's data directory is made.
#
# Range moves read the source shard's logical replication stream, a replication connection from
# the pgrange container that the image's own pg_hba.conf (replication from localhost only) would
# refuse.
echo "host replication all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
# The application role: no superuser; it owns the database, so what it makes through pgrange is
# its own. pgrange's own connections log in as postgres (internal_user in pgrange.toml).
psql -v ON_ERROR_STOP=1 --username postgres --dbname postgres <<'SQL'
CREATE ROLE app LOGIN PASSWORD 'secret';
ALTER DATABASE app OWNER TO app;
SQL
