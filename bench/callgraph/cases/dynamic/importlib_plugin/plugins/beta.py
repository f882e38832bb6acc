def activate():
    return "beta"
