"""Leakage and bias quick audit (paper 001, Appendix D): one similarity pass over the sources.

Each item's source is cut into word n-gram shingles (default 5 words; every CJK
character counts as a word), sketched with MinHash and compared through LSH
banding against (a) the other items of the dataset (near-duplicates), (b) the
prompts the app sends for reruns (their fixed part: instructions, examples) and
(c) a corpus folder the user names (``.txt``/``.md`` files, ``.jsonl``, and
``.parquet`` when pyarrow is installed). A candidate pair is verified with the
MinHash estimate of its Jaccard similarity; an item is flagged per set when the
best match reaches the set's threshold, naming that document and the similarity.
What is compared of an item is ``base.leakage_parts``: the source for most kinds; for a
tool-response QA item, whose response is shared by design with the other questions on
it, the question, and near-duplicates must also have a near-identical gold.

Library choice (measured on this 2-core machine, 1,000-word documents, 128
permutations): ``rensa`` (Rust, no dependencies) computes the signatures of
100,000 documents in ~3.5 s from pre-hashed shingles; ``datasketch`` 2.0 took
~530 s for the same (SHA-1 per token in Python) and pulls in scipy. So rensa
does the MinHash; the banding is done here in numpy because rensa's LSH answers
"has a duplicate" for a signature matrix but not which document is the closest.
Shingles are hashed in numpy (a polynomial hash over the UTF-8 bytes, computed
with prefix sums) because Python-level splitting and hashing alone took ~45 s
per 100,000 documents here.
"""

from __future__ import annotations

import json
from functools import lru_cache
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reviewer.errors import ReviewerError
from reviewer.jobs import JobContext, silent

SEED = 1
# Word hashes are 32-bit (byte-level arithmetic is the costly part, and 32-bit halves it);
# shingles of n word hashes are mixed into 64 bits.
_P = np.uint32(0x01000193)  # FNV-1 32-bit prime: odd, so invertible modulo 2**32
_P_INV = np.uint32(pow(0x01000193, -1, 2**32))
_MIX = np.uint64(0x9E3779B97F4A7C15)
_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])")
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[[32, 9, 10, 11, 12, 13]] = True
_BATCH_BYTES = 8_000_000


def _prepare(text: str) -> bytes:
    text = text.lower()
    if not text.isascii() and _CJK.search(text):
        text = _CJK.sub(r" \1 ", text)
    return text.encode("utf-8", "replace")


_POWERS: dict[int, np.ndarray] = {}


def _powers(base: np.uint32, n: int) -> np.ndarray:
    """base**0 .. base**(n-1) modulo 2**32 (cached and grown, so each batch does not redo it)."""
    have = _POWERS.get(int(base))
    if have is None or have.size < n:
        size = max(n, _BATCH_BYTES * 2)
        out = np.full(size, base, dtype=np.uint32)
        out[0] = 1
        with np.errstate(over="ignore"):
            have = _POWERS[int(base)] = np.cumprod(out, dtype=np.uint32)
    return have[:n]


def _batch_shingles(docs: list[bytes], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Shingle hashes of a batch of documents: (flat hashes, per-document counts)."""
    blob = b" ".join(docs)
    b = np.frombuffer(blob, dtype=np.uint8)
    counts = np.zeros(len(docs), dtype=np.int64)
    if b.size == 0:
        return np.zeros(0, np.uint64), counts
    space = _IS_SPACE[b]
    # +1 where a word starts, -1 after it ends (the text is padded with a space on each side)
    edges = np.diff(np.concatenate(([True], space, [True])).view(np.int8))
    starts = np.flatnonzero(edges == -1)
    ends = np.flatnonzero(edges == 1) - 1  # inclusive
    if starts.size == 0:
        return np.zeros(0, np.uint64), counts
    with np.errstate(over="ignore"):
        # word hash = sum b[j] * P^(e-j) = P^e * (C[e] - C[s-1]) with C = prefix sum of b[j] * P^-j
        c = np.cumsum(b * _powers(_P_INV, b.size), dtype=np.uint32)
        before = np.where(starts > 0, c[np.maximum(starts - 1, 0)], np.uint32(0))
        words = ((c[ends] - before) * _powers(_P, b.size)[ends]).astype(np.uint64)
        # which document each word is in (documents are joined by one space)
        doc_starts = np.cumsum([0] + [len(d) + 1 for d in docs[:-1]])
        doc_of = np.searchsorted(doc_starts, starts, side="right") - 1
        per_doc_words = np.bincount(doc_of, minlength=len(docs))
        if words.size < n:
            m = 0
        else:
            m = words.size - n + 1
        h = words[:m].copy()
        for k in range(1, n):
            h = h * _MIX + words[k:m + k]
    if m:
        valid = doc_of[:m] == doc_of[n - 1:m + n - 1]
        shingles, owner = h[valid], doc_of[:m][valid]
    else:
        shingles, owner = np.zeros(0, np.uint64), np.zeros(0, np.int64)
    counts = np.bincount(owner, minlength=len(docs)).astype(np.int64)
    # A document shorter than n words is one shingle of all its words.
    short = np.flatnonzero((counts == 0) & (per_doc_words > 0))
    if short.size:
        extra_h, extra_owner = [], []
        first_word = np.searchsorted(doc_of, short, side="left")
        with np.errstate(over="ignore"):
            for d, f in zip(short, first_word):
                acc = np.uint64(0)
                for w in words[f:f + per_doc_words[d]]:
                    acc = acc * _MIX + w
                extra_h.append(acc)
                extra_owner.append(d)
        shingles = np.concatenate((shingles, np.array(extra_h, dtype=np.uint64)))
        owner = np.concatenate((owner, np.array(extra_owner, dtype=np.int64)))
        order = np.argsort(owner, kind="stable")
        shingles, owner = shingles[order], owner[order]
        counts = np.bincount(owner, minlength=len(docs)).astype(np.int64)
    return shingles, counts


def signatures(texts: list[str], ngram: int = 5, num_perm: int = 128, ctx: JobContext | None = None) -> np.ndarray:
    """MinHash signatures (one row of ``num_perm`` uint32 per text; an empty text gets all 0xFFFFFFFF)."""
    import rensa

    ctx = ctx or silent()
    rows: list[np.ndarray] = []
    batch: list[bytes] = []
    size = 0

    def flush():
        nonlocal batch, size
        if not batch:
            return
        flat, counts = _batch_shingles(batch, ngram)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.uint64)
        matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(flat, offsets, num_perm, SEED)
        rows.append(np.asarray(matrix.to_rows(), dtype=np.uint32).reshape(len(batch), num_perm))
        batch, size = [], 0

    for i, text in enumerate(texts):
        data = _prepare(text or "")
        batch.append(data)
        size += len(data)
        if size >= _BATCH_BYTES:
            flush()
            ctx.check_cancelled()
            ctx.progress(i + 1, len(texts), "sketching documents")
    flush()
    return np.concatenate(rows) if rows else np.zeros((0, num_perm), dtype=np.uint32)


@lru_cache(maxsize=64)
def lsh_params(threshold: float, num_perm: int, recall: float = 0.95) -> tuple[int, int]:
    """(bands, rows per band): of the settings under which a pair exactly at ``threshold``
    becomes a candidate with probability >= ``recall``, the one with the least false-positive
    area below the threshold (datasketch's MinHashLSH weighs both kinds of error; here a missed
    pair is a missed flag while a false candidate only costs one verification)."""
    xs = np.linspace(0, threshold, 200)
    best, best_fp = (num_perm, 1), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            if 1 - (1 - threshold ** r) ** b < recall:
                continue
            fp = np.trapz(1 - (1 - xs ** r) ** b, xs)
            if fp < best_fp:
                best, best_fp = (b, r), fp
    return best


def _band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One 64-bit key per (document, band): shape (n, bands)."""
    n = sig.shape[0]
    s = sig[:, : bands * rows].astype(np.uint64).reshape(n, bands, rows)
    with np.errstate(over="ignore"):
        key = np.zeros((n, bands), dtype=np.uint64)
        for k in range(rows):
            key = key * _MIX + s[:, :, k] + np.uint64(k + 1)
    return key


def candidate_pairs(query: np.ndarray, ref: np.ndarray | None, threshold: float,
                    max_bucket: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """(query index, reference index) pairs sharing at least one LSH band; ``ref`` None = the
    query set against itself (each unordered pair once, no self pairs). Buckets larger than
    ``max_bucket`` (boiler-plate shared by very many documents) are capped to their first
    members, each still compared with all of them, so one template cannot explode the pass."""
    num_perm = query.shape[1]
    bands, rows = lsh_params(threshold, num_perm)
    same = ref is None
    ref = query if same else ref
    nq = query.shape[0]
    qk = _band_keys(query, bands, rows)
    rk = qk if same else _band_keys(ref, bands, rows)
    out_q, out_r = [], []
    for band in range(bands):
        if same:
            keys, ids, side = qk[:, band], np.arange(nq), np.zeros(nq, dtype=bool)
        else:
            keys = np.concatenate((qk[:, band], rk[:, band]))
            ids = np.concatenate((np.arange(nq), np.arange(rk.shape[0])))
            side = np.concatenate((np.zeros(nq, dtype=bool), np.ones(rk.shape[0], dtype=bool)))
        order = np.argsort(keys, kind="stable")
        k_sorted = keys[order]
        boundaries = np.flatnonzero(np.diff(k_sorted)) + 1
        starts = np.concatenate(([0], boundaries))
        sizes = np.diff(np.concatenate((starts, [k_sorted.size])))
        for s, size in zip(starts[sizes > 1], sizes[sizes > 1]):
            members = order[s:s + size]
            m_ids, m_side = ids[members], side[members]
            if same:
                m_ids = m_ids[:max_bucket]
                a, b = np.triu_indices(m_ids.size, 1)
                out_q.append(m_ids[a])
                out_r.append(m_ids[b])
            else:
                q_ids, r_ids = m_ids[~m_side], m_ids[m_side][:max_bucket]
                if q_ids.size and r_ids.size:
                    out_q.append(np.repeat(q_ids, r_ids.size))
                    out_r.append(np.tile(r_ids, q_ids.size))
    if not out_q:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    pairs = np.unique(np.stack((np.concatenate(out_q), np.concatenate(out_r)), axis=1), axis=0)
    return pairs[:, 0], pairs[:, 1]


def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """MinHash estimate of the Jaccard similarity, row by row."""
    return (a == b).mean(axis=1)


@dataclass(frozen=True)
class Match:
    index: int  # the document of the comparison set
    similarity: float


def best_matches(query: np.ndarray, ref: np.ndarray | None, threshold: float,
                 also: np.ndarray | None = None) -> dict[int, Match]:
    """Per query document, its most similar document at or above ``threshold``
    (``ref`` None: among the query set itself, never itself). ``also`` (with ``ref`` None
    only): a second signature per document that must be as similar too; a pair's
    similarity is then the lower of the two (an empty second part matches an empty one)."""
    if query.shape[0] == 0 or (ref is not None and ref.shape[0] == 0):
        return {}
    if also is not None and ref is not None:
        raise ValueError("a second part is compared within one set only")
    qi, ri = candidate_pairs(query, ref, threshold)
    if qi.size == 0:
        return {}
    refs = query if ref is None else ref
    sims = np.concatenate([similarity(query[qi[s:s + 200_000]], refs[ri[s:s + 200_000]])
                           for s in range(0, qi.size, 200_000)])
    if also is not None:
        sims = np.minimum(sims, np.concatenate([similarity(also[qi[s:s + 200_000]], also[ri[s:s + 200_000]])
                                                for s in range(0, qi.size, 200_000)]))
    empty_q = (query[qi] == np.uint32(0xFFFFFFFF)).all(axis=1)
    keep = (sims >= threshold) & ~empty_q
    qi, ri, sims = qi[keep], ri[keep], sims[keep]
    if ref is None:  # symmetric: each pair counts for both documents
        qi, ri, sims = np.concatenate((qi, ri)), np.concatenate((ri, qi)), np.concatenate((sims, sims))
    order = np.lexsort((ri, -sims, qi))
    out: dict[int, Match] = {}
    for q, r, s in zip(qi[order], ri[order], sims[order]):
        if int(q) not in out:
            out[int(q)] = Match(int(r), float(s))
    return out


# -- the comparison sets -------------------------------------------------------

CORPUS_SUFFIXES = (".txt", ".md", ".jsonl", ".parquet")


def _jsonl_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("text", "content", "document", "body", "source"):
            if isinstance(value.get(key), str):
                return value[key]
        return " ".join(_jsonl_text(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_jsonl_text(v) for v in value)
    return ""


def corpus_documents(folder: str | Path) -> Iterator[tuple[str, str]]:
    """(name, text) of every document of a corpus folder, walked in sorted order.

    ``.txt``/``.md``: one document per file; ``.jsonl``: one per line (its
    "text"/"content"/"document"/"body" field, else all its strings), named
    ``file:line``; ``.parquet``: one per row of its "text" column (else its first
    string column), needs pyarrow. A bad line or file raises an error naming it.
    """
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise ReviewerError(f"{root}: the leakage corpus folder does not exist or is not a folder")
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES):
        rel = path.relative_to(root).as_posix()
        suffix = path.suffix.lower()
        if suffix in (".txt", ".md"):
            yield rel, path.read_text(encoding="utf-8", errors="replace")
        elif suffix == ".jsonl":
            with path.open(encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        yield f"{rel}:{n}", _jsonl_text(json.loads(line))
                    except ValueError as exc:
                        raise ReviewerError(f"{path}: line {n}: not JSON ({exc})") from None
        else:
            yield from _parquet_documents(path, rel)


def _parquet_documents(path: Path, rel: str) -> Iterator[tuple[str, str]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ReviewerError(f"{path}: reading Parquet needs pyarrow, which is not installed "
                            "(pip install pyarrow), or convert the file to JSONL") from None
    table = pq.read_table(path)
    names = [f.name for f in table.schema if str(f.type) in ("string", "large_string")]
    if not names:
        raise ReviewerError(f"{path}: no text column to compare")
    column = "text" if "text" in names else names[0]
    for n, value in enumerate(table.column(column).to_pylist()):
        yield f"{rel}#{n}", value or ""
