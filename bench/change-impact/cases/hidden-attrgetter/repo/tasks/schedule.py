from operator import attrgetter


def order(tasks):
    return sorted(tasks, key=attrgetter("priority"), reverse=True)
