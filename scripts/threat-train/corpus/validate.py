#!/usr/bin/env python3
"""Validate the threat-training corpus: parse, schema, file/label consistency, duplicates, counts."""
import collections, json, pathlib, re, sys

HERE = pathlib.Path(__file__).resolve().parent
INTENTS = {"override", "role", "disclose", "exfiltrate", "execute", "conceal", "safety_off", "forged"}
LANGS = {"en", "zh", "es", "de", "fr", "ja", "ru", "pt", "it", "ko", "nl", "pl", "tr", "ar", "hi"}
FILES = {  # file -> (label, english?)
    "threat_en.jsonl": ("threat", True),
    "threat_intl.jsonl": ("threat", False),
    "benign_en.jsonl": ("benign", True),
    "benign_intl.jsonl": ("benign", False),
}
errors, seen, near = [], {}, {}
summary = {}

def norm(t):
    return re.sub(r"[\W_]+", " ", t.lower()).strip()

for name, (want_label, english) in FILES.items():
    path = HERE / name
    by_intent, by_lang, n = collections.Counter(), collections.Counter(), 0
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{name}:{i}"
        if not line.strip():
            errors.append(f"{where}: blank line"); continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{where}: bad JSON ({e})"); continue
        if set(d) != {"text", "label", "intent", "lang"}:
            errors.append(f"{where}: keys {sorted(d)}")
        text, label, intent, lang = d.get("text"), d.get("label"), d.get("intent"), d.get("lang")
        if not isinstance(text, str) or not text.strip():
            errors.append(f"{where}: empty text"); continue
        if label not in ("threat", "benign"):
            errors.append(f"{where}: label {label!r}")
        if label != want_label:
            errors.append(f"{where}: label {label!r} in {name}")
        if label == "threat" and intent not in INTENTS:
            errors.append(f"{where}: threat intent {intent!r}")
        if label == "benign" and intent != "none":
            errors.append(f"{where}: benign intent {intent!r}")
        if lang not in LANGS:
            errors.append(f"{where}: lang {lang!r}")
        if english != (lang == "en"):
            errors.append(f"{where}: lang {lang!r} in {name}")
        if text in seen:
            errors.append(f"{where}: duplicate text of {seen[text]}")
        seen.setdefault(text, where)
        k = norm(text)
        if k in near and near[k] != seen[text]:
            print(f"note: near-duplicate {where} ~ {near[k]}")
        near.setdefault(k, where)
        n += 1
        by_intent[intent] += 1
        by_lang[lang] += 1
    summary[name] = (n, by_intent, by_lang)

for name, (n, by_intent, by_lang) in summary.items():
    print(f"{name}: {n} lines")
    print("  intent: " + ", ".join(f"{k}={v}" for k, v in sorted(by_intent.items())))
    print("  lang:   " + ", ".join(f"{k}={v}" for k, v in sorted(by_lang.items(), key=lambda x: -x[1])))
total = sum(v[0] for v in summary.values())
threats = sum(v[0] for k, v in summary.items() if k.startswith("threat"))
print(f"total: {total} lines ({threats} threat, {total - threats} benign), unique texts: {len(seen)}")
if errors:
    print(f"{len(errors)} error(s):"); print("\n".join(errors)); sys.exit(1)
print("OK: every line parses, labels/intents/langs valid, no exact duplicate texts")
