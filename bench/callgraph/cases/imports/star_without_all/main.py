def _hidden():
    return "mine"


from tools import *  # noqa: E402,F403

t1()
base_fn()
_hidden()
