package util;

public class Fmt {
    public static String money(int cents) {
        String text = String.format("%d.%02d", cents / 100, cents % 100);  // @fmt
        return text;
    }
}
