"""A throwaway PostgreSQL 15 server for the fleet-store tests and bench:
initdb and pg_ctl (Debian's postgresql-15) in a temporary directory,
listening on a Unix socket there only (no TCP), trust authentication,
stopped and removed by stop().  As root it runs as `nobody`, since the
server refuses to run as root.  start() raises Unavailable, with the
reason, only when the server cannot be started here."""
import os
import shutil
import subprocess
import tempfile

PG_BIN = "/usr/lib/postgresql/15/bin"


class Unavailable(Exception):
    pass


class Server:
    def __init__(self):
        self.dir = None

    def _as_owner(self, args):
        if os.geteuid() == 0:
            return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + args
        return args

    def start(self):
        for tool in ("initdb", "pg_ctl", "postgres"):
            if not os.path.exists(os.path.join(PG_BIN, tool)):
                raise Unavailable("%s/%s is missing: run make setup (setup/packages.txt installs postgresql-15)"
                                  % (PG_BIN, tool))
        self.dir = tempfile.mkdtemp(prefix="alphaprof-pg-")
        os.chmod(self.dir, 0o755)
        data = os.path.join(self.dir, "data")
        os.makedirs(data)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "nobody", "nogroup")
            shutil.chown(data, "nobody", "nogroup")
        self.user = "nobody" if os.geteuid() == 0 else None
        env = dict(os.environ, LC_ALL="C")
        p = subprocess.run(self._as_owner([os.path.join(PG_BIN, "initdb"), "-D", data, "--auth=trust", "-E", "UTF8",
                                           "--no-sync", "-U", "fleet"]),
                           capture_output=True, text=True, timeout=300, env=env, cwd=self.dir)
        if p.returncode != 0:
            self.stop()
            raise Unavailable("initdb failed: %s" % (p.stderr.strip()[-500:] or p.stdout.strip()[-500:]))
        p = subprocess.run(self._as_owner([os.path.join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-t", "60",
                                           "-l", os.path.join(self.dir, "log"), "-o",
                                           "-c listen_addresses='' -k %s -c fsync=off" % self.dir, "start"]),
                           capture_output=True, text=True, timeout=120, env=env, cwd=self.dir)
        if p.returncode != 0:
            log = ""
            try:
                with open(os.path.join(self.dir, "log")) as f:
                    log = f.read()[-800:]
            except OSError:
                pass
            self.stop()
            raise Unavailable("the server did not start: %s %s" % (p.stderr.strip()[-400:], log))
        self.data = data
        return self

    def uri(self, db="postgres"):
        return "postgresql:///%s?host=%s&user=fleet" % (db, self.dir)

    def psql(self, sql):
        p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.uri(), "-c", sql],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise AssertionError("psql: %s" % p.stderr)
        return p.stdout.strip()

    def stop(self):
        if self.dir and os.path.exists(os.path.join(self.dir, "data", "postmaster.pid")):
            subprocess.run(self._as_owner([os.path.join(PG_BIN, "pg_ctl"), "-D", os.path.join(self.dir, "data"),
                                           "-m", "immediate", "-w", "stop"]),
                           capture_output=True, text=True, timeout=120, cwd=self.dir)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
