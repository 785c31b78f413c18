"""pcglab.birds gives what the CLI gives for the same inputs (the same library calls)."""

import json
import os

import numpy as np
import pytest

import pcglab
from conftest import run_cli

PROGRAM = "drop_block('b11', 8)\ndrop_block('b11', 10)\ndrop_block('b31', 9)\ndrop_block('b13', 9)\n"
RESPONSE = f"Here is the level:\n```python\n{PROGRAM}```\nand a loop\nfor i in range(3):\n"


def test_extract_matches_the_cli(tmp_path):
    f = tmp_path / "r.txt"
    f.write_text(RESPONSE)
    assert pcglab.birds.extract(RESPONSE) == run_cli("birds", "extract", f).stdout
    assert pcglab.birds.extract(RESPONSE) == PROGRAM


def test_extract_without_code_is_none():
    assert pcglab.birds.extract("no fence here") is None
    assert pcglab.birds.extract("```python\nab_drop('b11', 3)\n```", function="ab_drop") == "ab_drop('b11', 3)\n"


def test_convert_matches_the_cli(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text(PROGRAM)
    xml = pcglab.birds.convert(PROGRAM)
    assert xml == run_cli("birds", "convert", f).stdout
    assert xml.startswith('<?xml version="1.0" encoding="utf-16"?>')


def test_a_refused_program_raises_the_official_message(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("drop_block('b99', 3)\n")
    with pytest.raises(pcglab.ItemFailure) as e:
        pcglab.birds.convert("drop_block('b99', 3)\n")
    assert str(e.value) == "BlockType does not exist."
    assert e.value.kind == "bad-input"
    assert isinstance(e.value, ValueError)
    assert str(e.value) in run_cli("birds", "convert", f).stderr


def test_simulate_matches_the_cli(tmp_path):
    xml = pcglab.birds.convert(PROGRAM)
    level = tmp_path / "level.xml"
    level.write_text(xml, encoding="utf-8")
    stability, image = pcglab.birds.simulate(xml)
    rows = json.loads(run_cli("--format", "json", "birds", "simulate", level).stdout)
    assert stability == pytest.approx(rows[0]["score"], abs=0)
    assert image.shape == (1024, 1024) and image.dtype == np.uint8
    assert image.min() == 0 and image.max() == 255  # blocks drawn black on white
    again, image2 = pcglab.birds.simulate(xml)
    assert again == stability and np.array_equal(image, image2)


def test_simulate_names_a_malformed_level():
    with pytest.raises(pcglab.InputError) as e:
        pcglab.birds.simulate("<Level><nope", source="mine.xml")
    assert "mine.xml" in str(e.value)


def test_classify_gives_a_softmax_per_image():
    _, image = pcglab.birds.simulate(pcglab.birds.convert(PROGRAM))
    white = np.full((64, 64), 255, np.uint8)
    p = pcglab.birds.classify([image, white, np.stack([image] * 3, axis=-1)])
    labels = pcglab.birds.labels()
    assert p.shape == (3, len(labels)) and p.dtype == np.float32
    assert labels[:3] == ["A", "B", "C"]
    assert np.allclose(p.sum(axis=1), 1, atol=1e-4)
    # an image's scores do not depend on the other images in the call; RGB = its grey
    assert np.array_equal(pcglab.birds.classify([image])[0], p[0])
    assert np.allclose(p[2], p[0], atol=1e-5)


def test_check_prompt_as_the_cli(tmp_path):
    text = "Build the letter é with drop_block.\n"
    f = tmp_path / "prompt.txt"
    f.write_text(text)
    check = pcglab.birds.check_prompt(text, rules=2023)
    assert check["qualified"] is False and check["rules"] == "2023"
    rules = [v["rule"] for v in check["violations"]]
    assert rules == ["disallowed-character", "missing-object"]
    cli = json.loads(run_cli("--format", "json", "birds", "check-prompt", "--rules", "2023", f).stdout)
    assert [row["check"] for row in cli] == rules
    assert [row["detail"] for row in cli] == [v["message"] for v in check["violations"]]
    assert pcglab.birds.check_prompt(text)["qualified"] is True  # 2024: no automatic checks
    with pytest.raises(ValueError):
        pcglab.birds.check_prompt(text, rules=1999)


def trial_scores_csv(path):
    lines = ["teamName,character,trial,stabilityScore,similarityScore,diversityScore"]
    for t, team in enumerate(["alpha", "beta", "gamma"]):
        for c in "ABC":
            for trial in range(1, 4):
                value = ((t + 1) * 7 + ord(c) + trial) % 10 / 10
                lines.append(f"{team},{c},{trial},{value},{(value + 0.3) % 1:.2f},0.5")
    path.write_text("\n".join(lines) + "\n")


def test_score_writes_what_the_cli_writes(tmp_path):
    csv = tmp_path / "trial_scores.csv"
    trial_scores_csv(csv)
    result = pcglab.birds.score(csv, out=tmp_path / "py", trials=3)
    run_cli("birds", "score", csv, "--out", tmp_path / "cli", "--trials", "3")
    assert result["out"] == str(tmp_path / "py")
    for name in ("result.json", "trial_scores.csv", "character_scores.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert sorted(e["rank"] for e in result["entries"]) == [1, 2, 3]
    assert result["errors"] == []


def test_score_of_a_missing_folder_is_a_setup_or_input_error(tmp_path):
    with pytest.raises((pcglab.SetupError, pcglab.InputError)) as e:
        pcglab.birds.score(tmp_path / "missing")
    assert "missing" in str(e.value)
    assert os.fspath(tmp_path / "missing") in str(e.value)
