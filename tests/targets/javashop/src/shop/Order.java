package shop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An order: fields of every kind dbg shows (numbers, a string, a boxed
 * number, collections, another object, null). */
public class Order {
    final int id;
    final String customer;
    final List<String> items = new ArrayList<>();
    final Map<String, Integer> stock = new HashMap<>();
    Integer discount = 15;
    Order previous;
    String note;
    double weight = 2.5;
    boolean paid;
    long placed = 1700000000000L;
    char grade = 'A';
    int[] boxes = {3, 4};

    Order(int id, String customer) {
        this.id = id;
        this.customer = customer;
    }

    int total() {
        int sum = 0;
        for (String item : items) {
            sum += item.length();
        }
        return sum - discount;  // @total-return
    }
}
