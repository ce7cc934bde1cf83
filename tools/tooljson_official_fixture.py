"""Build tests/scoring/fixtures/tooljson_official.json: the official toolJSON scorer's verdicts on generated records.

Developer script, not shipped. It runs the OFFICIAL code of
LongFuncEval/toolJSONprocessing (``generate_qa_pairs/tasks/evals.py`` and
``calculate_exact_match`` of ``experimental_scripts/qa_evaluation.py``), read
from a checkout, on a seeded set of (metric, gold, prediction, model output,
code_exec_status, response) records full of adversarial cases, in the order
qa_evaluation.py calls it, and writes what it returned (or raised). The app
vendors nothing from that repository; tests/scoring/test_tooljson_official.py
replays the fixture against reviewer.scoring.tooljson.

    python tools/tooljson_official_fixture.py /path/to/toolJSONprocessing [--n 3000]

(get the checkout with ``git clone https://github.com/LongFuncEval/toolJSONprocessing``).
The official modules import sentence_transformers, pint and an LLM client at
top level; none of the metric functions used here needs them, so they are
replaced by stubs. ``check_direct_prompt_hallucination`` reaches the embedding
model only after its early exits; the stub model raises ``NeedsEmbedding``
there, recorded as ``"needs_embedding"``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import types
from pathlib import Path

COLUMNS = ["metric", "gold", "pred", "setup", "model_output", "code_exec_status", "response",
           "exact_match", "exact_match_error", "contains", "contains_error", "hallucination", "hallucination_error",
           "code_exec_passed"]
OUT = Path(__file__).resolve().parents[1] / "tests" / "scoring" / "fixtures" / "tooljson_official.json"


class NeedsEmbedding(Exception):
    pass


class _StubModel:
    def __init__(self, *a, **k):
        pass

    def encode(self, *a, **k):
        raise NeedsEmbedding


def _stub_modules() -> None:
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = _StubModel
    st.util = types.SimpleNamespace(pytorch_cos_sim=None)
    pint = types.ModuleType("pint")
    pint.UnitRegistry = object
    utils = types.ModuleType("generate_qa_pairs.tasks.utils")
    utils.generate = utils.get_lm = utils.convert_dict_to_list_of_objects = None
    sys.modules.update({"sentence_transformers": st, "pint": pint, "generate_qa_pairs.tasks.utils": utils})


def _load(repo: Path):
    _stub_modules()
    sys.path.insert(0, str(repo))
    from generate_qa_pairs.tasks import evals  # noqa: E402  (official)
    from generate_qa_pairs.tasks.data_structures import LongResponseQASample  # noqa: E402

    spec = importlib.util.spec_from_file_location("qa_evaluation", repo / "experimental_scripts" / "qa_evaluation.py")
    qa_evaluation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(qa_evaluation)
    return evals, LongResponseQASample, qa_evaluation.calculate_exact_match


NUMBER_TEXTS = [
    "19", "-19", "+19", "19.", "19.0", ".5", "-.5", "-0.5", "0.5", "1", "0", "-0", "2", "8.50", "8.5", "$8.5",
    "0.90e1", "9", "9e0", "1e3", "1000", "1E3", "-1e3", "1e-3", "1.5e+2", "150", "1,234", "1234", "1,234.5",
    "1e400", "-1e400", "about 3 to 4", "between 2 and 5.4", "USD 1.8 is greater than 1.65", "v2.", "2023-03-16",
    "-19 degrees", "19 - 20", "1-2", "3.14159", "3.14", "999999999999999999999", "0x1A", "½", "٣", "12abc",
    "no number here", "", " ", "none", "N/A", "-", ".", "e5", "5e", "5.e3", ".5e1", "5", "4.999", "6",
]
WORDS = ["ARS", "ars", "ARS.", "  ARS  ", "the ARS form", "Men's", "I don't know", "Black", "black.",
         "Gray/Black", "abc.", "abc..", "abc", "None", "none.", "10-K", "10-k.", "8-K", ""]
LISTS = ["a, b", "A, B.", "b, a", "a; b", "a, b, c", "Black, Gray/Black", "Gray/Black, Black, Black",
         "a,b,", "a, b.", "a., b.", "a, b. ", " a , b ", "a,,b", "x", "x.", "x..", "a, b..", "10-K, 8-K"]
NON_STR = [None, 8, 8.0, -19, 2.5, True, False, [], ["a", "b"], ["8"], {"k": "v"}, 0]
METRICS = ["accuracy_string", "approx_number_match", "unordered_list_str_match", "contains", "",
           "accuracy_string approx_number_match", "unordered_list_str_match+approx_number_match", "EXACT",
           "Accuracy_String"]
RESPONSE_POOL = [
    {"filings": [{"formType": "10-K", "size": 1200}, {"formType": "8-K", "size": 300}]},
    {"data": {"products": [{"name": "Trail Boot", "price": 8.5}, {"name": "ARS", "tags": ["a", "b"]}]}},
    {},
    [{"abc": 1}, {"x": None}],
]
CODE_POOL = [
    None,
    "def f(r):\n    return r['filings'][0]['formType']\n",
    "```python\ndef f(r):\n    return r.get('data').get('products')\n```",
    "def f(r):\n    return r['missing_key']\n",
    "def f(r):\n    print('hello')\n    return 1\n",
    'def f(r):\n    print("x")\n',
    "def f(r):\n    return r[ 'filings' ][0].get( \"size\" )\n",
    "def f(r):\n    return r['a\"b']\n",
    "no code at all",
    "def f(r):\n    print(r)\n    return r[0]['abc']\n",
]
OUTPUT_POOL = CODE_POOL + ["some text"]  # records name their model output by index (a small fixture)
STATUSES = ["", None, "Code execution error", ["10-K", "8-K"], 25, "ok", "Code execution error "]
SETUPS = ["direct_prompting", "direct_prompting_schema", "code_generation", "code_generation_schema",
          "cot_direct_prompting_schema"]


def _answer(rng: random.Random, pools: list[list]) -> object:
    pool = rng.choice(pools)
    value = rng.choice(pool)
    if isinstance(value, str) and rng.random() < 0.15:  # decorate: whitespace, case, trailing dot, prefix
        value = rng.choice(["", " ", "The answer is ", "≈"]) + value + rng.choice(["", ".", " ", "..", ". "])
        if rng.random() < 0.3:
            value = value.upper()
    return value


def _near(rng: random.Random, gold: object) -> object:
    """A prediction close to the gold: the adversarial cases are small edits of a right answer."""
    if not isinstance(gold, str):
        return rng.choice([gold, str(gold), [gold]])
    edits = [
        lambda g: g, lambda g: "-" + g, lambda g: "+" + g, lambda g: g + "e0", lambda g: g + "e1",
        lambda g: g + "E-1", lambda g: "0." + g.lstrip("-+") + "e1", lambda g: g + ".", lambda g: g + "..",
        lambda g: g.upper(), lambda g: " " + g + " ", lambda g: "The answer is " + g + ".",
        lambda g: ", ".join(reversed(g.split(","))), lambda g: g + ", " + g, lambda g: g.replace(",", ";"),
        lambda g: "$" + g, lambda g: g.replace(".", ""), lambda g: g + "0", lambda g: "- " + g,
    ]
    return rng.choice(edits)(gold)


def generate(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    golds = [NUMBER_TEXTS, WORDS, LISTS, [None, 8, "8", ["a"]]]
    preds = [NUMBER_TEXTS, NUMBER_TEXTS, WORDS, LISTS, NON_STR]
    out = []
    for _ in range(n):
        setup = rng.choice(SETUPS)
        code = "code_generation" in setup
        rec = {
            "metric": rng.choice(METRICS[:3] if rng.random() < 0.85 else METRICS[3:]),
            "gold": _answer(rng, golds),
            "pred": None,
            "setup": setup,
            "model_output": rng.randrange(len(OUTPUT_POOL)) if code else rng.choice([0, 0, len(OUTPUT_POOL) - 1]),
            "code_exec_status": rng.choice(STATUSES) if code else rng.choice(["", None]),
            "response": rng.randrange(len(RESPONSE_POOL)),
        }
        rec["pred"] = _near(rng, rec["gold"]) if rng.random() < 0.5 else _answer(rng, preds)
        out.append(rec)
    return out


def _call(fn):
    try:
        return fn(), None
    except NeedsEmbedding:
        return None, "needs_embedding"
    except Exception as exc:  # the official run would stop here; record which exception
        return None, type(exc).__name__


def run_official(repo: Path, records: list[dict]) -> None:
    evals, Sample, calculate_exact_match = _load(repo)
    for rec in records:
        task = Sample(api_response=RESPONSE_POOL[rec["response"]], question="", gold_answer=rec["gold"],
                      pred_answer=rec["pred"], model_output=OUTPUT_POOL[rec["model_output"]],
                      code_exec_status=rec["code_exec_status"], metrics=rec["metric"], task="t",
                      task_type="EXTRACTIVE", uid="u")
        # qa_evaluation.py: exact match first (it may change task.pred_answer), then contains, then hallucination.
        rec["exact_match"], rec["exact_match_error"] = _call(lambda: calculate_exact_match(task))
        rec["contains"], rec["contains_error"] = _call(lambda: evals.contains(task))
        if "code_generation" in rec["setup"]:
            rec["hallucination"], rec["hallucination_error"] = _call(
                lambda: evals.check_hallucinated_keys(task) or evals.check_codegen_hallucination(task))
        else:
            rec["hallucination"], rec["hallucination_error"] = _call(
                lambda: evals.check_direct_prompt_hallucination(task))
        # qa_aggregation.py's test of a passed code execution
        rec["code_exec_passed"] = rec["code_exec_status"] != "Code execution error"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path, help="a checkout of LongFuncEval/toolJSONprocessing")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--commit", help="the checkout's commit, when REPO is an export without .git")
    args = ap.parse_args(argv)
    commit = args.commit or subprocess.run(["git", "-C", str(args.repo), "rev-parse", "HEAD"],
                                           capture_output=True, text=True, check=True).stdout.strip()
    records = generate(args.n, args.seed)
    run_official(args.repo, records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One row per record, columns named once (a small fixture); an official exception is its class name.
    rows = [[rec.get(c) for c in COLUMNS] for rec in records]
    args.out.write_text(json.dumps({
        "source": "LongFuncEval/toolJSONprocessing", "commit": commit,
        "generator": "tools/tooljson_official_fixture.py", "seed": args.seed,
        "responses": RESPONSE_POOL, "model_outputs": OUTPUT_POOL, "columns": COLUMNS,
    }, ensure_ascii=False) [:-1] + ',\n"rows":[\n' + ",\n".join(
        json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in rows) + "\n]}\n")
    print(f"records: {len(records)}")
    print(f"wrote: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
