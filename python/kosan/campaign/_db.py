"""The campaign's SQLite file: what is done, so that a campaign resumes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS kernels(
  name TEXT PRIMARY KEY, source TEXT, status TEXT, detail TEXT,
  order_deterministic INTEGER, ref_bits_lost REAL);
CREATE TABLE IF NOT EXISTS mutants(
  kernel TEXT, id TEXT, operator TEXT, file TEXT, line INTEGER, function TEXT,
  description TEXT, PRIMARY KEY(kernel, id));
CREATE TABLE IF NOT EXISTS ref_runs(
  kernel TEXT, seed INTEGER, passed INTEGER, output_hash TEXT, trace TEXT,
  false_alarms TEXT, seconds REAL, PRIMARY KEY(kernel, seed));
CREATE TABLE IF NOT EXISTS results(
  kernel TEXT, id TEXT, status TEXT, own INTEGER, kosan INTEGER, parts TEXT,
  equivalent INTEGER, draws TEXT, build_seconds REAL, run_seconds REAL,
  PRIMARY KEY(kernel, id));
"""


class Database:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(str(path))
        self.conn.row_factory = sqlite3.Row
        self.conn.executescript(SCHEMA)
        self.conn.commit()

    def close(self):
        self.conn.close()

    # meta: the campaign's settings, checked on resume
    def meta(self) -> dict:
        return {r["key"]: json.loads(r["value"]) for r in self.conn.execute("SELECT * FROM meta")}

    def set_meta(self, values: dict):
        with self.conn:
            for k, v in values.items():
                self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (k, json.dumps(v)))

    def kernel(self, name: str):
        return self.conn.execute("SELECT * FROM kernels WHERE name = ?", (name,)).fetchone()

    def set_kernel(self, name, source, status, detail="", order_deterministic=None, ref_bits_lost=None):
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO kernels VALUES(?, ?, ?, ?, ?, ?)",
                              (name, source, status, detail, order_deterministic, ref_bits_lost))

    def kernels(self):
        return self.conn.execute("SELECT * FROM kernels ORDER BY name").fetchall()

    def add_mutants(self, kernel: str, mutants: list[dict]):
        with self.conn:
            self.conn.execute("DELETE FROM mutants WHERE kernel = ?", (kernel,))
            self.conn.executemany(
                "INSERT INTO mutants VALUES(?, ?, ?, ?, ?, ?, ?)",
                [(kernel, m["id"], m["operator"], m.get("file", ""), m.get("line", 0),
                  m.get("function", ""), m.get("description", "")) for m in mutants])

    def mutants(self, kernel: str | None = None):
        if kernel is None:
            return self.conn.execute("SELECT * FROM mutants ORDER BY kernel, file, line, id").fetchall()
        return self.conn.execute("SELECT * FROM mutants WHERE kernel = ? ORDER BY file, line, id",
                                 (kernel,)).fetchall()

    def ref_runs(self, kernel: str):
        return {r["seed"]: r for r in
                self.conn.execute("SELECT * FROM ref_runs WHERE kernel = ?", (kernel,))}

    def add_ref_run(self, kernel, seed, passed, output_hash, trace, false_alarms, seconds):
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO ref_runs VALUES(?, ?, ?, ?, ?, ?, ?)",
                              (kernel, seed, int(passed), output_hash, trace,
                               json.dumps(false_alarms), seconds))

    def done(self) -> set[tuple[str, str]]:
        return {(r["kernel"], r["id"]) for r in self.conn.execute("SELECT kernel, id FROM results")}

    def add_result(self, r: dict):
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO results VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r["kernel"], r["id"], r["status"], int(r.get("own", 0)), int(r.get("kosan", 0)),
                 json.dumps(r.get("parts", [])), int(r.get("equivalent", 0)),
                 json.dumps(r.get("draws", [])), r.get("build_seconds", 0.0),
                 r.get("run_seconds", 0.0)))

    def results(self):
        return self.conn.execute(
            "SELECT r.*, m.operator, m.file, m.line, m.function, m.description FROM results r "
            "JOIN mutants m ON m.kernel = r.kernel AND m.id = r.id ORDER BY r.kernel, m.line, r.id"
        ).fetchall()
