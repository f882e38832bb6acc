"""Fan a message out to channels."""


def broadcast(channels, to, text):
    return [channel.send(to, text) for channel in channels]
