def tick(c):
    c[0] += 1
    return c[0]
