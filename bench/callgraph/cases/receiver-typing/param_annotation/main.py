class Repo:
    def save(self, item):
        return item


class Service:
    def save(self, item):
        return None


def persist(repo: Repo, item):
    return repo.save(item)


REGISTRY = {"default": Repo(), "other": Service()}


def run(key):
    return persist(REGISTRY[key], 1)


run("default")
