// A shopping cart, the D twin of cart.c for the conformance kit.
import std.stdio;

struct Item {
    string name;
    double price;
    int quantity;
}

double cartTotal(Item[] items) {
    double total = 0; // @total-first
    foreach (item; items) {
        double cost = item.price * item.quantity; // @loop
        total += cost;
    }
    return total; // @total-return
}

double apply_discount(double total, int percent) {
    double discount = total * percent / 100; // @discount
    return total - discount; // @discount-return
}

void main() {
    Item[] items = [Item("apple", 0.5, 6), Item("bread", 2.25, 1), Item("coffee", 7.0, 2)]; // @main-first
    double total = cartTotal(items); // @call-total
    writefln("subtotal: %.2f", total);
    double result = apply_discount(total, 10); // @call-discount
    writefln("total after discount: %.2f", result); // @after-discount
    stdout.flush();
    stderr.writeln("done");
}
