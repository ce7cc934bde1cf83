"""A process that imports a big dataset and marks when its commit starts and ends.

    python commit_victim.py DB_URL DATASET_FILE MARKS_PREFIX

The real import (Store.import_dataset) runs unchanged; the only addition is a
wrapper around the dialect's ``do_commit`` (the call that sends COMMIT) writing
``MARKS_PREFIX.started`` just before and ``MARKS_PREFIX.done`` just after. A test
kills this process with SIGKILL at chosen moments and uses the marks to tell
whether the kill landed inside the commit. On SQLite the page cache is made
large so that the whole import is written to the WAL by the commit itself
(otherwise pages spill during the transaction and the commit is short).
"""

from __future__ import annotations

import os
import sys

from sqlalchemy import event

from reviewer.store import Store


def mark(path: str) -> None:
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)


def main() -> None:
    url, source, marks = sys.argv[1:4]
    store = Store(url)
    engine = store.engine
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def big_cache(dbapi_conn, _record):
            dbapi_conn.execute("PRAGMA cache_size=-2000000")

        engine.dispose()
    dialect = engine.dialect
    original = dialect.do_commit

    def do_commit(dbapi_connection):
        mark(marks + ".started")
        original(dbapi_connection)
        mark(marks + ".done")

    dialect.do_commit = do_commit
    store.import_dataset(source, format="toolselect", name="victim")
    mark(marks + ".exited")


if __name__ == "__main__":
    main()
