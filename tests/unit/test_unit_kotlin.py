"""dbg_jdb.kotlin: which class holds a line of a Kotlin file, as jdb names
it for `stop at CLASS:LINE` (the real jdb's side is tests/test_kotlin.py)."""

from __future__ import annotations

from pathlib import Path

from dbg_jdb import kotlin

SOURCE = '''\
package shop.orders

data class Order(val id: Int, val lines: List<Int>)

class Till(
    private val name: String,
) {
    fun ring(order: Order): Int {
        val note = "a { brace in a string"
        return order.lines.sum()
    }

    object Drawer {
        fun open() = println("open")
    }
}

fun main() {
    println(Till("t").ring(Order(1, listOf(2))))
}
'''


def test_each_line_is_in_the_class_whose_body_holds_it(tmp_path: Path) -> None:
    source = tmp_path / "till.kt"
    source.write_text(SOURCE)
    assert kotlin.class_at_line(source, 3) == "shop.orders.TillKt"  # a class with no body
    assert kotlin.class_at_line(source, 10) == "shop.orders.Till"  # past a multi-line constructor
    assert kotlin.class_at_line(source, 14) == "shop.orders.Till$Drawer"
    assert kotlin.class_at_line(source, 19) == "shop.orders.TillKt"


def test_the_file_class_follows_the_file_name_or_its_jvm_name(tmp_path: Path) -> None:
    assert kotlin.file_class(tmp_path / "shop.kt", "fun main() {}") == "ShopKt"
    assert kotlin.file_class(tmp_path / "shop.kt", '@file:JvmName("Till")\npackage a.b\n') \
        == "a.b.Till"
