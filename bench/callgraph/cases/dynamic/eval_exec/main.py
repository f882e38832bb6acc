def secret():
    return 42


def compute(expr):
    return eval(expr)  # unresolvable: eval


def run_script():
    exec("secret()")  # unresolvable: exec


compute("secret()")
run_script()
