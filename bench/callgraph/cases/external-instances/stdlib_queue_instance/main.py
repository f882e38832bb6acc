import queue


def produce():
    q = queue.Queue()
    q.put(1)
    return q.get()


produce()
