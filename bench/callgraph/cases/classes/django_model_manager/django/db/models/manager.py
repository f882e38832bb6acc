import inspect
from functools import wraps

from django.db.models.query import QuerySet


class BaseManager:
    def __init__(self):
        self.model = None

    def contribute_to_class(self, cls, name):
        self.model = cls
        setattr(cls, name, self)

    @classmethod
    def _get_queryset_methods(cls, queryset_class):
        def create_method(name, method):
            @wraps(method)
            def manager_method(self, *args, **kwargs):
                return getattr(self.get_queryset(), name)(*args, **kwargs)

            return manager_method

        new_methods = {}
        for name, method in inspect.getmembers(queryset_class, predicate=inspect.isfunction):
            if hasattr(cls, name) or name.startswith("_"):
                continue
            new_methods[name] = create_method(name, method)
        return new_methods

    @classmethod
    def from_queryset(cls, queryset_class):
        return type(cls.__name__ + "From" + queryset_class.__name__, (cls,),
                    {"_queryset_class": queryset_class,
                     **cls._get_queryset_methods(queryset_class)})

    def get_queryset(self):
        return self._queryset_class(model=self.model)

    def all(self):
        return self.get_queryset()


class Manager(BaseManager.from_queryset(QuerySet)):
    pass
