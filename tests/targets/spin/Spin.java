// Runs until interrupted: a loop that never ends, with a short sleep.
public class Spin {
    public static void main(String[] args) throws Exception {
        long count = 0;
        while (true) {
            count++; // @loop
            if (count % 1000 == 0) Thread.sleep(1);
        }
    }
}
