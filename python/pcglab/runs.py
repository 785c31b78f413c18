"""Item outcomes of a batch run (any pcglab batch verb's --out folder), for notebooks.

    table = pcglab.runs.open("out/")
    table.where(status="error")["message"]

open(DIR) reads the run stores the batch driver wrote (DIR/logs/batch.sqlite, the shard stores
DIR/logs/shards/*.sqlite, and the same in each sub-folder, e.g. a birds competition's team
folders), of a finished run or of one still running or killed (the outcomes stored so far).
"""

import json as _json

from ._pcglab import runs as _native

COLUMNS = ("store", "stage", "key", "status", "kind", "message", "requests", "seconds", "metadata")


class Outcomes:
    """A small column table of item outcomes, without pandas.

    len(t), iter(t) (rows as dicts), t[i] (row i), t["status"] (a column as a list),
    t.columns, t.rows (the list of dicts), t.where(status="error", stage="simulate"),
    t.counts("status") ({value: rows}), t.to_records() (list of tuples in column order).
    metadata is decoded JSON (a dict).
    """

    def __init__(self, rows):
        self.rows = list(rows)
        self.columns = list(COLUMNS)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, index):
        if isinstance(index, str):
            if index not in self.columns:
                raise KeyError(f"{index!r} is not a column ({', '.join(self.columns)})")
            return [row[index] for row in self.rows]
        return self.rows[index]

    def where(self, **equal):
        for name in equal:
            if name not in self.columns:
                raise KeyError(f"{name!r} is not a column ({', '.join(self.columns)})")
        return Outcomes(r for r in self.rows if all(r[k] == v for k, v in equal.items()))

    def counts(self, column="status"):
        out = {}
        for value in self[column]:
            out[value] = out.get(value, 0) + 1
        return out

    def to_records(self):
        return [tuple(row[c] for c in self.columns) for row in self.rows]

    def __repr__(self):
        return f"Outcomes({len(self.rows)} rows: {self.counts() if self.rows else {}})"


def open(dir):  # noqa: A001 (pcglab.runs.open, as the issue names it)
    """The item outcomes stored under `dir` (a str or os.PathLike). SetupError (a RuntimeError)
    when it is not a folder or holds no batch store."""
    import os

    rows = _native.outcomes(os.fspath(dir))
    for row in rows:
        row["metadata"] = _json.loads(row["metadata"])
    return Outcomes(rows)


__all__ = ["open", "Outcomes", "COLUMNS"]
