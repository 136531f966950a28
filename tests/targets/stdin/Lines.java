// Reads lines from its stdin, a prompt before each: as many as its argument
// says (default 3), or up to the end of the file. For tests/test_stdin.py.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

public class Lines {
    public static void main(String[] args) throws IOException {
        int wanted = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int got = 0; // @before
        while (got < wanted) {
            System.out.print("line " + (got + 1) + "? ");
            System.out.flush();
            String text = in.readLine();
            if (text == null) {
                System.out.println("EOF after " + got + " lines");
                break;
            }
            got++; // @got
            System.out.println("read " + got + ": " + text);
        }
        System.out.println("done: " + got + " lines"); // @done
    }
}
