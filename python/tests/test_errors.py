"""Bad arguments raise Python exceptions, never crash the interpreter; pcglab's errors keep
their messages (ValueError for bad input, RuntimeError for bad setup)."""

import numpy as np
import pytest

import pcglab


def test_the_exception_types():
    assert issubclass(pcglab.InputError, ValueError)
    assert issubclass(pcglab.ItemFailure, pcglab.InputError)
    assert issubclass(pcglab.SetupError, RuntimeError)
    assert issubclass(pcglab.InternalError, RuntimeError)


@pytest.mark.parametrize(
    "call",
    [
        lambda: pcglab.birds.extract(None),
        lambda: pcglab.birds.extract(12),
        lambda: pcglab.birds.convert(["drop_block('b11', 3)"]),
        lambda: pcglab.birds.simulate(b"\xff" * 3, metric=3),
        lambda: pcglab.birds.classify(5),
        lambda: pcglab.birds.classify([None]),
        lambda: pcglab.birds.check_prompt(object()),
        lambda: pcglab.pcgrl.DungeonVecEnv("many"),
        lambda: pcglab.pcgrl.DungeonVecEnv(2**40),
        lambda: pcglab.pcgrl.DungeonVecEnv(4, seed=-1),
        lambda: pcglab.pcgrl.DungeonVecEnv(4).step(np.zeros(4, np.float32)),
        lambda: pcglab.pcgrl.DungeonVecEnv(4).step("abcd"),
        lambda: pcglab.pcgrl.accuracy(np.ones((16, 16), np.float64), "bat"),
        lambda: pcglab.pcgrl.accuracy(None, "bat"),
        lambda: pcglab.runs.open(None),
    ],
)
def test_wrong_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: pcglab.pcgrl.DungeonVecEnv(0), "n_envs 0"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(-5), "n_envs -5"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(2**31 - 1), "n_envs"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(4, max_board_scans=0), "max_board_scans"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(4, threads=-1), "threads"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(4).step(np.zeros(3, np.int64)), "shape (3,) is not (4,)"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(4).step(np.zeros((4, 1), np.int64)), "is not (4,)"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(2).step([0, 6]), "actions[1] = 6"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(2).step([-1, 0]), "actions[0] = -1"),
        (lambda: pcglab.pcgrl.DungeonVecEnv(1).step(np.array([2**40])), "actions[0]"),
        (lambda: pcglab.pcgrl.accuracy(np.ones((2, 16, 15), np.int64), "bat"), "shape"),
        (lambda: pcglab.pcgrl.accuracy(np.full((16, 16), 9), "bat"), "tile 9"),
        (lambda: pcglab.pcgrl.accuracy(np.zeros((0, 16, 16), np.int64), "bat"), "no level"),
        (lambda: pcglab.pcgrl.reward("x", np.ones((2, 16, 16), int), np.ones((3, 16, 16), int)), "holds 2"),
        (lambda: pcglab.pcgrl.reward("x", np.ones((1, 16, 16), int), np.ones((1, 16, 16), int), timeout=-1), "timeout"),
        (lambda: pcglab.pcgrl.expand_observations(np.zeros((2, 30, 31), np.uint8)), "31, 31"),
        (lambda: pcglab.birds.classify([np.zeros((4, 4), np.float32)]), "uint8"),
        (lambda: pcglab.birds.classify([np.zeros((4, 4, 2), np.uint8)]), "shape"),
        (lambda: pcglab.birds.classify([np.zeros((0, 4), np.uint8)]), "shape"),
        (lambda: pcglab.birds.classify([np.zeros((4, 4), np.uint8)], threads=0), "threads"),
        (lambda: pcglab.birds.simulate("<Level/>", metric="best"), "metric"),
        (lambda: pcglab.birds.simulate("<Level/>", settle_time=float("nan")), "settle_time"),
        (lambda: pcglab.birds.convert("", converter="9"), "9"),
        (lambda: pcglab.birds.score(".", trials=0), "trials"),
        (lambda: pcglab.birds.score(".", policy="1999"), "1999"),
    ],
)
def test_bad_values_raise_value_error_naming_them(call, words):
    with pytest.raises(ValueError) as e:
        call()
    assert words in str(e.value)


def test_setup_errors_are_runtime_errors_with_the_libraries_message(tmp_path):
    with pytest.raises(pcglab.SetupError) as e:
        pcglab.birds.extract("x", function="not a name")
    assert "not a name" in str(e.value)
    with pytest.raises(pcglab.SetupError) as e:
        pcglab.birds.classify([np.zeros((4, 4), np.uint8)], model="cnn:" + str(tmp_path / "none.safetensors"))
    assert "none.safetensors" in str(e.value)
    with pytest.raises(pcglab.SetupError) as e:
        pcglab.runs.open(tmp_path)
    assert "no batch store" in str(e.value) and str(tmp_path) in str(e.value)
    with pytest.raises(RuntimeError):
        pcglab.runs.open(tmp_path / "missing")


def test_huge_inputs_are_errors_or_results_not_crashes():
    text = "```\n" + "drop_block('b11', 3)\n" * 200000 + "```"
    assert pcglab.birds.extract(text).count("\n") == 200000
    with pytest.raises(pcglab.ItemFailure):
        pcglab.birds.convert("drop_block('b11', 3)\n" * 1000)  # the official height boundary
    with pytest.raises(pcglab.InputError):
        pcglab.birds.simulate("<" * 100000)
