import sys


def run(argv=None):
    args = sys.argv[1:] if argv is None else argv
    return len(args)
