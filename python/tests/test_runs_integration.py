"""pcglab.runs.open reads a batch's stored item outcomes: a finished run, a shard's partial run,
and a birds competition folder (one store per team)."""

import json

import pytest

import pcglab
from conftest import run_cli

GOOD = ("1" * 16 + "\n") * 16


def level_folder(tmp_path, bad=1, good=4):
    levels = tmp_path / "levels"
    levels.mkdir()
    for i in range(good):
        (levels / f"l{i}.txt").write_text(GOOD)
    for i in range(bad):
        (levels / f"bad{i}.txt").write_text("12x\n")
    return sorted(levels.iterdir())


def test_a_finished_run_as_rows_and_columns(tmp_path):
    files = level_folder(tmp_path)
    out = tmp_path / "out"
    run_cli("pcgrl", "eval", *files, "--out", out)
    table = pcglab.runs.open(out)
    log = json.loads((out / "logs" / "eval.json").read_text())
    items = log["outcomes"]
    assert len(table) == len(files) == len(items)
    assert table.columns[:6] == ["store", "stage", "key", "status", "kind", "message"]
    assert table.counts() == {"ok": 4, "error": 1}
    bad = table.where(status="error")
    assert len(bad) == 1 and bad[0]["kind"] == "bad-input" and "bad0.txt" in bad[0]["message"]
    logged = {i["key"]: i for i in items}
    for row in table:
        assert row["store"] == "logs/batch.sqlite"
        assert row["message"] == logged[row["key"]].get("message", "")
        assert row["metadata"] == logged[row["key"]]["metadata"]
        assert isinstance(row["seconds"], float)
    assert table["key"] == [r["key"] for r in table.rows]
    assert table.to_records()[0][2] == table[0]["key"]
    with pytest.raises(KeyError):
        table["nope"]


def test_a_partial_sharded_run(tmp_path):
    files = level_folder(tmp_path, bad=0, good=12)
    out = tmp_path / "out"
    run_cli("pcgrl", "eval", *files, "--out", out, "--shard", "1/2")
    first = pcglab.runs.open(out)
    assert 0 < len(first) < len(files)  # one shard's items, the others not run yet
    assert {r["store"] for r in first} == {"logs/shards/1-of-2.sqlite"}
    assert set(first["status"]) == {"ok"}
    run_cli("pcgrl", "eval", *files, "--out", out, "--shard", "2/2")
    both = pcglab.runs.open(out)
    assert len(both) == len(files) and len(set(both["key"])) == len(files)
    assert set(both["store"]) == {"logs/shards/1-of-2.sqlite", "logs/shards/2-of-2.sqlite"}


def test_a_birds_competition_has_a_store_per_team(tmp_path):
    comp = tmp_path / "comp"
    (comp / "alpha" / "raw" / "A").mkdir(parents=True)
    (comp / "beta" / "raw" / "B").mkdir(parents=True)
    (comp / "alpha" / "raw" / "A" / "alpha_A_1.txt").write_text("```\ndrop_block('b11', 10)\n```\n")
    (comp / "beta" / "raw" / "B" / "beta_B_1.txt").write_text("no code\n")
    run_cli("birds", "convert", comp)
    table = pcglab.runs.open(comp)
    assert table["store"] == ["alpha/logs/batch.sqlite", "beta/logs/batch.sqlite"]
    assert table["status"] == ["ok", "error"]
    failed = table.where(status="error")[0]
    assert failed["kind"] == "no-output" and failed["metadata"]["official_error"] == "Code not found."
    assert failed["message"].startswith(str(comp / "beta" / "raw" / "B" / "beta_B_1.txt"))
    assert table.where(stage="convert", status="ok")[0]["metadata"] == {"blocks": 1}
