// A small ledger: the Java twin of the behaviour targets (ledger.py,
// ledger.c, main.go carry the same @markers).
import report.Fmt;

public class Ledger {
    static int fee(int amount) {
        int charge = amount * 2 / 100;  // @fee
        return amount + charge;  // @fee-return
    }

    static int entriesFirst(int count) {
        int first = count * 0;  // @yield
        return first;
    }

    static int checkEntry(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("bad entry " + value);  // @raise
        }
        return value;
    }

    static int tri(int n) {
        int result = 0;  // @tri
        if (n > 0) {
            result = n + tri(n - 1);  // @tri-rec
        }
        System.out.println("tri(" + n + ")=" + result);
        return result;  // @tri-return
    }

    static boolean audit(int total) {
        return Late.check(total);  // @call-late
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        int total = 0;  // @main-first
        for (int i = 0; i < 5; i++) {
            total += i * 100;  // @loop
        }
        // @no-code: a comment, no code on this line
        int charged = fee(total);  // @call-fee
        System.out.println(util.Fmt.money(charged));  // @after-fee
        int first = entriesFirst(3);  // @call-gen
        System.out.println(Fmt.banner(first) + " " + audit(charged));  // @after-gen
        if (mode.equals("raise")) {
            checkEntry(-3);  // @call-raise
        }
        if (mode.equals("exit3")) {
            System.exit(3);
        }
        if (mode.equals("kill")) {
            long pid = ProcessHandle.current().pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
            Thread.sleep(10000);
        }
        if (mode.equals("tri") && args.length > 1) {
            tri(Integer.parseInt(args[1]));  // @call-tri
        }
        if (mode.equals("sum")) {
            int added = 0;
            for (int k = 1; k < args.length; k++) {
                added += checkEntry(Integer.parseInt(args[k]));  // @call-check
            }
            System.out.println("sum=" + added);
        }
        System.err.println("done");
    }  // @main-return
}
