def save(db, key, value):
    db[key] = value
    return len(db)
