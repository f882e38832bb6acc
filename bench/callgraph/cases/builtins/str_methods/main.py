def label(names):
    title = ", ".join(names)
    return title.upper()


label(["a", "b"])
