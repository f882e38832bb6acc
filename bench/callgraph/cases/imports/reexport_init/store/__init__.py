from . import util
from .backend import Backend as Store
from .backend import open_store

__all__ = ["Store", "open_store", "util"]
