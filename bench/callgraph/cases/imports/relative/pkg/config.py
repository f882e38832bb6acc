def prefix():
    return "p:"
