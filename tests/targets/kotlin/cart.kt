// A shopping cart, the Kotlin twin of Cart.java for the conformance kit.
var added = 0

class Cart(private val owner: String) {
    private val prices = mutableListOf<Double>()

    fun add(price: Double, quantity: Int) {
        prices.add(price * quantity) // @add
        added++
    }

    fun total(): Double {
        var total = 0.0 // @total-first
        for (cost in prices) {
            total += cost // @loop
        }
        return total // @total-return
    }
}

fun apply_discount(total: Double, percent: Int): Double {
    val discount = total * percent / 100 // @discount
    return total - discount // @discount-return
}

fun main(args: Array<String>) {
    val cart = Cart("ada") // @main-first
    cart.add(0.5, 6)
    cart.add(2.25, 1)
    cart.add(7.0, 2)
    val total = cart.total() // @call-total
    println("subtotal: %.2f".format(total))
    val result = apply_discount(total, 10) // @call-discount
    println("total after discount: %.2f".format(result)) // @after-discount
    if (args.isNotEmpty() && args[0] == "throw") {
        throw IllegalStateException("no owner") // @throw
    }
    if (args.isNotEmpty() && args[0] == "sleep") {
        Thread.sleep(60000) // @sleep
    }
    System.err.println("done")
}
