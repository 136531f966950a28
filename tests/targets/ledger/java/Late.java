// Loaded by the JVM only when Ledger.audit first runs.
public class Late {
    static boolean check(int total) {
        boolean ok = total > 0;  // @late
        return ok;
    }
}
