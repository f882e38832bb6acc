from greet import farewell, hello


def conversation(name):
    hello(name)
    farewell(name)


conversation("ada")
