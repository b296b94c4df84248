"""A generated usage log replayed into a gpubill database, for the export benchmarks.

replayed_database() makes (or, with --keep, reuses) a work directory holding the log of
`instances` x `days` from the log generator and an SQLite database with it replayed.
"""

import atexit
import os
import shutil
import subprocess
import tempfile


def replayed_database(gpubill, gen_log, instances, days, keep, prefix):
    """Returns (work directory, database path, environment naming the database)."""
    work = keep or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(work, exist_ok=True)
    if not keep:
        atexit.register(shutil.rmtree, work, True)
    log = os.path.join(work, "u%d-%d.jsonl" % (instances, days))
    db = os.path.join(work, "u%d-%d.db" % (instances, days))
    env = dict(os.environ, GPUBILL_DB=db)
    if not os.path.exists(db):
        subprocess.run([gen_log, "--instances", str(instances), "--days", str(days), "--out", log],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([gpubill, "init"], check=True, env=env, stdout=subprocess.DEVNULL)
        subprocess.run([gpubill, "replay", log], check=True, env=env, stdout=subprocess.DEVNULL)
    return work, db, env
