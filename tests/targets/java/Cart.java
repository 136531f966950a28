// A shopping cart, the Java twin of cart.py: fields, a loop, an exception,
// a second thread.
import java.util.ArrayList;
import java.util.List;

public class Cart {
    static int added = 0;
    private final List<Double> prices = new ArrayList<>();
    private final String owner;

    Cart(String owner) {
        this.owner = owner;
    }

    void add(double price, int quantity) {
        prices.add(price * quantity);  // @add
        added++;
    }

    double total() {
        double total = 0;  // @total-first
        for (double cost : prices) {
            total += cost;  // @loop
        }
        return total;  // @total-return
    }

    static double apply_discount(double total, int percent) {
        double discount = total * percent / 100;  // @discount
        return total - discount;  // @discount-return
    }

    public static void main(String[] args) throws Exception {
        Cart cart = new Cart("ada");  // @main-first
        cart.add(0.5, 6);
        cart.add(2.25, 1);
        cart.add(7.0, 2);
        double total = cart.total();  // @call-total
        System.out.printf("subtotal: %.2f%n", total);
        double result = apply_discount(total, 10);  // @call-discount
        System.out.printf("total after discount: %.2f%n", result);  // @after-discount
        System.out.printf("with tax: %.2f%n", Pricing.withTax(result));
        Thread worker = new Thread(() -> {
            int sum = 0;
            for (int i = 1; i <= 4; i++) {
                sum += i;  // @worker
            }
            System.out.println("worker sum: " + sum);
        }, "worker");
        worker.start();
        worker.join();
        if (args.length > 0 && args[0].equals("throw")) {
            throw new IllegalStateException("no owner " + cart.owner);  // @throw
        }
        if (args.length > 0 && args[0].equals("sleep")) {
            Thread.sleep(60000);  // @sleep
        }
        if (args.length > 0 && args[0].equals("exit3")) {
            System.exit(3);
        }
        System.err.println("done");
    }
}

// Loaded only when first used, after the discount: a breakpoint in it is
// deferred until then.
class Pricing {
    static double withTax(double amount) {
        double tax = amount * 0.2;  // @tax
        return amount + tax;
    }
}
