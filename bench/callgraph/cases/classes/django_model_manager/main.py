from django.db import models


class Article(models.Model):
    pass


class Tag(models.Model):
    tags = models.Manager()


def recent():
    return Article.objects.filter(title="x").order_by("title")


def total():
    return Article.objects.count()


def every_tag():
    return Tag.tags.all()


def every_article():
    return Article.objects.all().all()


recent()
total()
every_tag()
every_article()
