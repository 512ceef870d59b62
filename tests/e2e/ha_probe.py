"""What the HA suite runs inside a network namespace (under nsenter), with psycopg2 (libpq) as an application
would connect. The password is the first line of stdin; results go to stdout, one line each, flushed at once.

  ha_probe.py writer HOST USER DBNAME FIRST_ID
      One long-lived session through HOST (the -rw Service) that reconnects only when it breaks, as a pool holds
      a connection: INSERTs ids 1, 2, 3, ... into table writes, autocommit, and prints "ack N" once the commit of
      N returned, "broken N ERROR" when it failed (N is then not acknowledged) and "connected" after (re)connects.
  ha_probe.py watcher USER DBNAME ADDRESSES_FILE
      Asks every instance by its Pod IP (the file holds "name ip" lines, re-read each round) ten times a second,
      over a connection of its own, whether it accepts writes, and four times a second prints
      "sample EPOCH NAME,NAME": the instances whose answer in the last 0.3 s was yes.
"""
import sys
import threading
import time

import psycopg2


def connect(host, user, password, dbname, timeout):
    connection = psycopg2.connect(host=host, port=5432, user=user, password=password, dbname=dbname,
                                  connect_timeout=timeout, application_name="opctl-e2e-ha", keepalives=1,
                                  keepalives_idle=2, keepalives_interval=1, keepalives_count=3)
    connection.autocommit = True
    return connection


def close_quietly(connection):
    """Closes a connection that may already be broken."""
    try:
        connection.close()
    except psycopg2.Error:
        pass


def writer(host, user, dbname, first_id, password):
    next_id = first_id - 1
    connection = None
    while True:
        if connection is None:
            try:
                connection = connect(host, user, password, dbname, 3)
                print("connected", flush=True)
            except psycopg2.Error as error:
                print(f"unreachable {str(error).strip()[:120]!r}", flush=True)
                time.sleep(0.2)
                continue
        next_id += 1
        try:
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO writes (id) VALUES (%s)", (next_id,))
            print(f"ack {next_id}", flush=True)
        except psycopg2.Error as error:
            print(f"broken {next_id} {str(error).strip()[:160]!r}", flush=True)
            close_quietly(connection)
            connection = None
            time.sleep(0.1)


class Instance(threading.Thread):
    """Keeps one connection to an instance (reconnecting when it breaks) and asks it every 0.1 s whether it
    accepts writes; `latest` is (time the answer came, writable)."""

    def __init__(self, name, ip, user, password, dbname):
        super().__init__(daemon=True)
        self.name, self.ip, self.user, self.password, self.dbname = name, ip, user, password, dbname
        self.latest = (0.0, False)
        self.retired = False

    def run(self):
        connection = None
        while not self.retired:
            try:
                if connection is None:
                    connection = connect(self.ip, self.user, self.password, self.dbname, 2)
                with connection.cursor() as cursor:
                    cursor.execute("SELECT NOT pg_is_in_recovery() AND "
                                   "current_setting('transaction_read_only') = 'off'")
                    self.latest = (time.time(), bool(cursor.fetchone()[0]))
            except psycopg2.Error:
                self.latest = (time.time(), False)
                if connection is not None:
                    close_quietly(connection)
                connection = None
            time.sleep(0.1)


def watcher(user, dbname, addresses_file, password):
    instances = {}
    while True:
        try:
            with open(addresses_file) as lines:
                addresses = dict(line.split() for line in lines if len(line.split()) == 2)
        except OSError:
            addresses = {}
        for name, ip in addresses.items():
            if name not in instances or instances[name].ip != ip:
                if name in instances:
                    instances[name].retired = True
                instances[name] = Instance(name, ip, user, password, dbname)
                instances[name].start()
        now = time.time()
        # Writable now: answered so within the last 0.3 s (each instance is asked every 0.1 s).
        writable = [name for name, instance in instances.items()
                    if instance.latest[1] and now - instance.latest[0] < 0.3]
        print(f"sample {now:.2f} {','.join(sorted(writable))}", flush=True)
        time.sleep(0.25)


def main():
    password = sys.stdin.readline().rstrip("\n")
    if sys.argv[1] == "writer":
        writer(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), password)
    else:
        watcher(sys.argv[2], sys.argv[3], sys.argv[4], password)


if __name__ == "__main__":
    main()
