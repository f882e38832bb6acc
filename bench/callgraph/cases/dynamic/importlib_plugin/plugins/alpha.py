def activate():
    return "alpha"
