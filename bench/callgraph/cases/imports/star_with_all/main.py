def public_b():
    return "local"


from lib import *  # noqa: E402,F403

w = Widget()
w.show()
public_a()
public_b()
