"""Queue worker."""

from jobs.dispatch import run
from jobs.processor import Processor


def handle(message):
    return run(Processor(), message["action"], message["order"])
