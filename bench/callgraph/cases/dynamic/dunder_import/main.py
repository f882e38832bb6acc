def use(modname):
    m = __import__(modname)  # unresolvable: __import__
    return m.ping()


use("pingmod")
use("pongmod")
