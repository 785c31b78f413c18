#!/usr/bin/python3
"""Independent reference for pcglab's ViT: numpy + Pillow only (no torch, no transformers).

  vit_reference.py make DIR --size small|base --seed S
      writes a randomly initialised Hugging Face ViTForImageClassification checkpoint
      (config.json with id2label A..Z, model.safetensors in F32) with the exact HF tensor names.
  vit_reference.py forward DIR OUT.json IMAGE.png...
      preprocesses like ViTImageProcessor (PIL RGB, BILINEAR resize, x/255, (x-0.5)/0.5) and runs
      the forward pass; writes {"logits": [[..]], "probs": [[..]], "cls": [[..]]}.
"""
import json
import math
import struct
import sys

import numpy as np
from PIL import Image

SIZES = {
    "small": dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                  image_size=32, patch_size=8),
    "base": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                 image_size=224, patch_size=16),
}


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", info["dtype"]
        b, e = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + e], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return out


def make(directory, size, seed):
    cfg = dict(SIZES[size])
    cfg.update(num_channels=3, layer_norm_eps=1e-12, hidden_act="gelu", architectures=["ViTForImageClassification"],
               model_type="vit", qkv_bias=True,
               id2label={str(i): chr(65 + i) for i in range(26)}, label2id={chr(65 + i): i for i in range(26)})
    rng = np.random.default_rng(seed)
    H, I, P, S = cfg["hidden_size"], cfg["intermediate_size"], cfg["patch_size"], cfg["image_size"]
    T = (S // P) ** 2 + 1

    def w(*shape, std=0.02):
        return rng.normal(0.0, std, size=shape)

    t = {
        "vit.embeddings.cls_token": w(1, 1, H, std=0.5),
        "vit.embeddings.position_embeddings": w(1, T, H, std=0.5),
        "vit.embeddings.patch_embeddings.projection.weight": w(H, 3, P, P, std=0.05),
        "vit.embeddings.patch_embeddings.projection.bias": w(H),
        "vit.layernorm.weight": 1 + w(H, std=0.1),
        "vit.layernorm.bias": w(H, std=0.1),
        "classifier.weight": w(26, H, std=2.0 / math.sqrt(H)),
        "classifier.bias": w(26, std=0.1),
    }
    for i in range(cfg["num_hidden_layers"]):
        p = f"vit.encoder.layer.{i}."
        for n in ["attention.attention.query", "attention.attention.key", "attention.attention.value",
                  "attention.output.dense"]:
            t[p + n + ".weight"] = w(H, H, std=0.1 if size == "small" else 0.03)
            t[p + n + ".bias"] = w(H)
        for n in ["layernorm_before", "layernorm_after"]:
            t[p + n + ".weight"] = 1 + w(H, std=0.1)
            t[p + n + ".bias"] = w(H, std=0.1)
        t[p + "intermediate.dense.weight"] = w(I, H, std=0.05)
        t[p + "intermediate.dense.bias"] = w(I)
        t[p + "output.dense.weight"] = w(H, I, std=0.05)
        t[p + "output.dense.bias"] = w(H)
    with open(f"{directory}/config.json", "w") as f:
        json.dump(cfg, f, indent=2)
    write_safetensors(f"{directory}/model.safetensors", t)


def erf(x):
    """Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), vectorised; math.erf per element is too slow."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def forward(directory, out_path, images):
    cfg = json.load(open(f"{directory}/config.json"))
    t = read_safetensors(f"{directory}/model.safetensors")
    H, P, S, heads = cfg["hidden_size"], cfg["patch_size"], cfg["image_size"], cfg["num_attention_heads"]
    eps, d = cfg["layer_norm_eps"], H // heads
    result = {"logits": [], "probs": [], "cls": []}
    for path in images:
        img = Image.open(path).convert("RGB").resize((S, S), Image.BILINEAR)
        x = np.asarray(img).astype(np.float64) * (1 / 255)
        x = ((x.astype(np.float32) - 0.5) / 0.5).astype(np.float64).transpose(2, 0, 1)  # C,H,W
        n = S // P
        patches = x.reshape(3, n, P, n, P).transpose(1, 3, 0, 2, 4).reshape(n * n, 3 * P * P)
        wp = t["vit.embeddings.patch_embeddings.projection.weight"].reshape(H, -1)
        h = patches @ wp.T + t["vit.embeddings.patch_embeddings.projection.bias"]
        h = np.concatenate([t["vit.embeddings.cls_token"][0], h], 0) + t["vit.embeddings.position_embeddings"][0]
        for i in range(cfg["num_hidden_layers"]):
            p = f"vit.encoder.layer.{i}."
            lin = lambda v, name: v @ t[p + name + ".weight"].T + t[p + name + ".bias"]
            a = layer_norm(h, t[p + "layernorm_before.weight"], t[p + "layernorm_before.bias"], eps)
            q, k, v = (lin(a, "attention.attention." + n).reshape(-1, heads, d).transpose(1, 0, 2)
                       for n in ["query", "key", "value"])
            s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(1, 0, 2).reshape(-1, H)
            h = h + lin(ctx, "attention.output.dense")
            m = lin(layer_norm(h, t[p + "layernorm_after.weight"], t[p + "layernorm_after.bias"], eps),
                    "intermediate.dense")
            m = 0.5 * m * (1 + erf(m / math.sqrt(2)))
            h = h + lin(m, "output.dense")
        cls = h[0]
        pooled = layer_norm(h, t["vit.layernorm.weight"], t["vit.layernorm.bias"], eps)[0]
        logits = pooled @ t["classifier.weight"].T + t["classifier.bias"]
        e = np.exp(logits - logits.max())
        result["logits"].append(logits.tolist())
        result["probs"].append((e / e.sum()).tolist())
        result["cls"].append(cls.tolist())
    json.dump(result, open(out_path, "w"))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[sys.argv.index("--size") + 1], int(sys.argv[sys.argv.index("--seed") + 1]))
    elif sys.argv[1] == "forward":
        forward(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "resize":  # resize IN.png OUT.png W H: PIL bilinear, for the resize test
        Image.open(sys.argv[2]).resize((int(sys.argv[4]), int(sys.argv[5])), Image.BILINEAR).save(sys.argv[3])
    else:
        sys.exit(f"unknown mode {sys.argv[1]}")
