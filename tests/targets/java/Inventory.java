/* dbg profile's Java target: stock levels looked up by a linear scan of a
   list (indexOf on every lookup), from two places that ask it unequally
   often, while a thread waits in a native read (a pipe nothing writes to).
   Arguments: [forever] [indexed]. */
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Inventory {
    static final List<String> skus = new ArrayList<>();
    static final Map<String, Integer> index = new HashMap<>();
    static boolean indexed;

    static int position(String sku) {
        if (indexed) return index.get(sku);
        return skus.indexOf(sku);  // @scan
    }

    static long restock(int rounds) {
        long moved = 0;
        for (int i = 0; i < rounds; i++) moved += position("sku-" + (i * 7919 % skus.size()));  // @restock-call
        return moved;
    }

    static long audit(int rounds) {
        long seen = 0;
        for (int i = 0; i < rounds; i++) seen += position("sku-" + (i * 104729 % skus.size()));  // @audit-call
        return seen;
    }

    public static void main(String[] args) throws InterruptedException {
        boolean forever = args.length > 0 && args[0].equals("forever");
        indexed = args.length > 0 && args[args.length - 1].equals("indexed");
        for (int i = 0; i < 4000; i++) {
            skus.add("sku-" + i);
            index.put("sku-" + i, i);
        }
        Thread waiter = new Thread(() -> {
            try {
                Process quiet = new ProcessBuilder("sleep", "60").start();
                quiet.getInputStream().read();  // @waiter-reads
            } catch (java.io.IOException e) {
                return;
            }
        }, "waiter");
        waiter.setDaemon(true);
        waiter.start();
        long total = 0;
        for (int round = 0; forever || round < 250; round++) {
            total += restock(300) + audit(100);
        }
        System.out.println(total);
    }
}
