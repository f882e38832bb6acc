from django.db.models.manager import BaseManager, Manager


class ModelBase(type):
    def __new__(cls, name, bases, attrs):
        new_class = super().__new__(cls, name, bases, attrs)
        if bases and not any(isinstance(v, BaseManager) for v in attrs.values()):
            new_class.add_to_class("objects", Manager())
        return new_class

    def add_to_class(cls, name, value):
        value.contribute_to_class(cls, name)


class Model(metaclass=ModelBase):
    pass
