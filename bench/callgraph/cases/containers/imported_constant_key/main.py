from keys import LOAD, SAVE


def save():
    return "saved"


def load():
    return "loaded"


ACTIONS = {SAVE: save, LOAD: load}
ACTIONS[SAVE]()
