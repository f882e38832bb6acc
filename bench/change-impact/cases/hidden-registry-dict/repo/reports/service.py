"""Export by format name."""

from reports.exporters import HANDLERS


def export(fmt, rows):
    handler = HANDLERS[fmt]
    return handler(rows)


def export_all(rows):
    return {fmt: export(fmt, rows) for fmt in sorted(HANDLERS)}
