"""Values nested deeper than a repr shows: dicts in dicts, lists in lists,
a linked chain of objects, a dict too wide to list whole."""


class Node:
    def __init__(self, value, child=None):
        self.value = value
        self.child = child


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


config = {"a": {"b": {"c": {"d": {"e": 1}}}}, "xs": [[1, [2, [3, [4, [5]]]]]]}
chain = Node(1, Node(2, Node(3, Node(4, Node(5)))))
point = Point(3, 4)
wide = {"k%d" % i: [i] for i in range(300)}
order = {"zeta": {"b": 1, "a": 2}, "alpha": 0}
print(len(config), chain.value, point.x, len(wide))  # @nested
