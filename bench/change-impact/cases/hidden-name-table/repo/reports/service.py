"""Export by format name."""

from reports import exporters

FORMATS = {"csv": "export_csv", "tsv": "export_tsv"}


def export(fmt, rows):
    return getattr(exporters, FORMATS[fmt])(rows)
