"""ChatGPT4PCG / Science Birds: the functions behind `pcglab birds ...`, on Python values.

extract(text, function="drop_block") -> str | None
    The official extractCode's output for an LLM response, or None where it returns null.
convert(code, function="drop_block", converter="1.4.1") -> str
    The official converter's level XML; ItemFailure (kind "bad-input") with the official message
    for a program it refuses.
simulate(level_xml, metric="moving", settle_time=0.0, early_stop=True, source="<level>")
    -> (stability, image): the evaluator's score and the 1024x1024 uint8 OCR image.
classify(images, model="builtin", threads=1) -> float32 array (images x labels)
    Letter probabilities of uint8 images; labels(model) names the columns.
check_prompt(text, rules=2024) -> dict
    The qualification check (rules, word_count, qualified, violations, notes).
score(folder, out=None, prompts=None, policy=2024, trials=10, ...) -> dict
    Scores and ranks a competition folder and writes the official result files.

Native code runs with the GIL released: other Python threads run meanwhile.
"""

import os as _os

from ._pcglab import birds as _native

extract = _native.extract
convert = _native.convert
simulate = _native.simulate
classify = _native.classify
labels = _native.labels
check_prompt = _native.check_prompt


def score(folder, out=None, prompts=None, policy=2024, trials=10, baselines=(), disqualified=(), weights=True):
    """Scores and ranks `folder` (a competition folder or a trial_scores.csv) as `pcglab birds
    score` does, writing the official outputs into `out` (default: <folder>/result). Returns a dict:
    out, competition_score, entries (rank, team, normalized_prompt_score, prompt_score), errors."""
    return _native.score(
        _os.fspath(folder), _os.fspath(out or ""), _os.fspath(prompts or ""), policy, trials,
        list(baselines), list(disqualified), weights,
    )


__all__ = ["extract", "convert", "simulate", "classify", "labels", "check_prompt", "score"]
