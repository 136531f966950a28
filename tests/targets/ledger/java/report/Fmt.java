package report;

public class Fmt {
    public static String banner(int value) {
        String line = "== " + value + " ==";  // @banner
        return line;
    }
}
