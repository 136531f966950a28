package shop;

public class Main {
    static int shout(String name) {
        return name.length();  // @npe
    }

    public static void main(String[] args) {
        Order o = new Order(622, "ada");
        o.items.add("kiwi");
        o.items.add("plum");
        o.stock.put("kiwi", 3);
        o.previous = new Order(621, "bob");
        int total = o.total();  // @call-total
        System.out.println("total " + total);
        String who = args.length > 0 ? args[0] : null;
        System.out.println(shout(who));  // @call-shout
    }
}
