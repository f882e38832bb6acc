from a import run
from b import run as run_b


def run_local():
    return run()


run = run_b
run()
run_local()
