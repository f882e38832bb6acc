def spin():
    return "package-level spin, never called"
