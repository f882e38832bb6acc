from ..config import prefix


def normalize(s):
    return s if s else "empty"


def tag(s, p=None):
    return (p or prefix()) + s
