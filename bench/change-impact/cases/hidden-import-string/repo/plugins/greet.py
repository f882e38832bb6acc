def hello(name):
    return "hello " + name
