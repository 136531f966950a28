/* A shopping cart, the C twin of cart.py for the native backends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
    const char *name;
    double price;
    int quantity;
};

struct cart {
    struct item items[8];
    int count;
};

static void add(struct cart *c, const char *name, double price, int quantity)
{
    struct item *it = &c->items[c->count++];  // @add
    it->name = name;
    it->price = price;
    it->quantity = quantity;
}

static double cart_total(const struct cart *c)
{
    double total = 0;  // @total-first
    for (int i = 0; i < c->count; i++) {
        double cost = c->items[i].price * c->items[i].quantity;  // @loop
        total += cost;
    }
    return total;  // @total-return
}

double apply_discount(double total, int percent)
{
    double discount = total * percent / 100;  // @discount
    return total - discount;  // @discount-return
}

int main(int argc, char **argv)
{
    struct cart cart = {0};  // @main-first
    add(&cart, "apple", 0.5, 6);
    add(&cart, "bread", 2.25, 1);
    add(&cart, "coffee", 7.0, 2);
    double total = cart_total(&cart);  // @call-total
    printf("subtotal: %.2f\n", total);
    double final = apply_discount(total, 10);  // @call-discount
    printf("total after discount: %.2f\n", final);  // @after-discount
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "crash") == 0) {
        int *nowhere = NULL;
        *nowhere = 1;  // @crash
    }
    fprintf(stderr, "done\n");
    return final > 0 ? 0 : 1;  // @exit
}
