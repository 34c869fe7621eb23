#!/bin/sh
# Runs once inside the image while it is built (both routes): a database cluster in
# /var/lib/postgresql/data owned by postgres, open to the run's network without passwords
# (the containers live on the run's own bridge network only).
set -eu
install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data
su postgres -s /bin/sh -c '/usr/lib/postgresql/15/bin/initdb -D /var/lib/postgresql/data --auth=trust --username=postgres --encoding=UTF8 --locale=C.UTF-8 >/dev/null'
echo 'host all all 0.0.0.0/0 trust' >> /var/lib/postgresql/data/pg_hba.conf
# postgres puts its lock file and socket here; the package creates it at boot normally.
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
