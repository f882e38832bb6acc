def spin():
    return "vroom"
