import argparse


def make_parser():
    return argparse.ArgumentParser(prog="x")


def main_entry():
    parser = make_parser()
    parser.add_argument("--n")
    return parser.parse_args([])


main_entry()
