import queue
from typing import Optional


class Pool:
    jobs: queue.Queue

    def __init__(self, jobs):
        self.jobs = jobs

    def size(self):
        return self.jobs.qsize()


def push(q: Optional[queue.Queue]) -> None:
    if q is not None:
        q.put(1)


push(queue.Queue())
Pool(queue.Queue()).size()
