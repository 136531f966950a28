def shelve_all(books):
    out = []  # @shelve
    for book in books:
        out.append(book.upper())
    return out
