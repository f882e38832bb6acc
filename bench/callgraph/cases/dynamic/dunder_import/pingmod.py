def ping():
    return "ping"
