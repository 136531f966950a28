// A till in Kotlin: the items of a basket and its total, for dbg on jdb.
data class Item(val name: String, val price: Int, val quantity: Int)

class Basket(private val items: List<Item>) {
    fun total(): Int {
        var sum = 0
        for (item in items) {
            val cost = item.price * item.quantity // @loop
            sum += cost
        }
        return sum
    }
}

fun main() {
    val basket = Basket(listOf(Item("apple", 3, 2), Item("pear", 5, 1))) // @entry
    val shop = "corner"
    println("$shop total: ${basket.total()}") // @report
}
