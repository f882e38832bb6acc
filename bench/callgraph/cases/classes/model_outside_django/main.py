from orm.base import Model


class Article(Model):
    pass


def lookup():
    try:
        return Article.objects.filter(title="x")
    except AttributeError:
        return None


def store():
    return Article().save()


lookup()
store()
