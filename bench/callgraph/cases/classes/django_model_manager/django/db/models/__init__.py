from django.db.models.base import Model
from django.db.models.manager import Manager

__all__ = ["Manager", "Model"]
