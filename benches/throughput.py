"""Bulk embedding throughput of keep against the raw ONNX Runtime of the
same model in Python, on the same texts, side by side in one run.

Usage: python -P benches/throughput.py target/release/keep STORE

STORE is a keep store with real text (for example after `keep put` of
the corpus of scripts/corpus.sh). Its notes' and parts' texts are
embedded (1) by onnxruntime in Python, batches of 64 in store order,
padded to the longest of each batch, truncated at 256 tokens, as
fastembed does, and (2) by `keep reindex --all` on a copy of the store.
Needs onnxruntime, tokenizers and numpy; prints one JSON line.
"""
import json, os, shutil, subprocess, sys, tempfile, time
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

KEEP, STORE = sys.argv[1], sys.argv[2]
MODEL = os.environ.get("KEEP_MODEL_DIR") or os.path.expanduser(
    "~/.local/share/keep/models/all-MiniLM-L6-v2-q8")


def store_texts():
    out = subprocess.run([KEEP, "--store", STORE, "export", "--no-vectors"],
                         check=True, capture_output=True, text=True).stdout
    texts = []
    for line in out.splitlines()[1:]:
        note = json.loads(line)
        texts += [t for t in [note["summary"]] + [p["summary"] for p in note.get("parts", [])] if t]
    return texts


def raw_python(texts):
    tok = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
    tok.enable_truncation(256)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count()
    session = ort.InferenceSession(os.path.join(MODEL, "model.onnx"), opts,
                                   providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    start = time.perf_counter()
    for i in range(0, len(texts), 64):
        enc = tok.encode_batch(texts[i:i + 64])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    return time.perf_counter() - start


def keep_reindex():
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "store")
        shutil.copytree(STORE, copy)
        start = time.perf_counter()
        out = subprocess.run([KEEP, "--store", copy, "reindex", "--all", "--json"],
                             check=True, capture_output=True, text=True).stdout
        return time.perf_counter() - start, json.loads(out)["embedded"]


texts = store_texts()
python_s = raw_python(texts)
keep_s, embedded = keep_reindex()
print(json.dumps({
    "texts": len(texts), "keep_embedded": embedded,
    "python_onnxruntime": ort.__version__,
    "python_texts_per_s": round(len(texts) / python_s, 1),
    "keep_texts_per_s": round(embedded / keep_s, 1),
    "keep_over_python": round((embedded / keep_s) / (len(texts) / python_s), 2),
}))
