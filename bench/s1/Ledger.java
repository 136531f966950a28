/* A small ledger: the program the S1 benchmark debugs. */
public class Ledger {
    static int post(int[] entries) {
        int balance = 0;
        int opening = 0;
        for (int number = 0; number < entries.length; number++) {
            int amount = entries[number];
            if (number == 0) {
                opening = amount; // @loop
            }
            balance += amount;
            if (balance < 0) {
                balance = 0;
            }
        }
        return balance - opening;
    }

    public static void main(String[] args) {
        int[] entries = {120, -30, 45, -200, 80, 15, -5, 60, 10, -25, 35, 5};
        System.out.println("change " + post(entries));
    }
}
