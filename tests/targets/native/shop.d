// A till in D: the items of a basket and its total, for dbg on gdb and lldb.
import std.stdio;

struct Item {
    string name;
    int price;
    int quantity;
}

int total(Item[] items) {
    int sum = 0;
    foreach (item; items) {
        int cost = item.price * item.quantity; // @loop
        sum += cost;
    }
    return sum;
}

void main() {
    Item[] basket = [Item("apple", 3, 2), Item("pear", 5, 1), Item("plum", 2, 4)];
    string shop = "corner";
    writeln(shop, " total: ", total(basket)); // @report
}
