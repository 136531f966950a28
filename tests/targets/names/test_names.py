"""A test whose helper is named as a method of pytest's assertion rewriter
(AssertionRewriter.assign), which runs while pytest imports this file."""


def assign(book, name):
    book[name] = len(book)  # @assign
    return book


def test_assign():
    book = assign({}, "x")
    assert book == {"x": 0}
