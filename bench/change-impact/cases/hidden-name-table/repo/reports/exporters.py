"""Row exporters."""


def export_csv(rows):
    return "\n".join(",".join(map(str, r)) for r in rows)


def export_tsv(rows):
    return "\n".join("\t".join(map(str, r)) for r in rows)
