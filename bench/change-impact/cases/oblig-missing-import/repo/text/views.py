from text.util import slugify


def title_slug(title):
    return slugify(title)
