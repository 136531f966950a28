// Orders of a shop, in a package: the average of an empty order divides by zero.
package shop.orders

data class Order(val id: Int, val lines: List<Int>)

fun average(order: Order): Int {
    val total = order.lines.sum() // @sum
    return total / order.lines.size // @divide
}

fun main(args: Array<String>) {
    val orders = listOf(Order(1, listOf(4, 6)), Order(2, emptyList())) // @first
    for (order in orders) {
        println("order ${order.id}: ${average(order)}") // @call
    }
}
