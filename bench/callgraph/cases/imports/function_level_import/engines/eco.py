def idle():
    return "..."
