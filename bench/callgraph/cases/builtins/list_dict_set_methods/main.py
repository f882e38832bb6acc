def collect():
    seen = set()
    out = []
    counts = {}
    for word in ("a", "b"):
        seen.add(word)
        out.append(word)
        counts[word] = counts.get(word, 0) + 1
    return out, counts, seen


collect()
