from . import config
from .sub import helpers
from .sub.helpers import normalize


def process(text):
    text = normalize(text)
    return helpers.tag(text, config.prefix())
