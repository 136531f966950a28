// Prints a lot while a breakpoint stops it often: output and stops interleave.
public class Flood {
    public static void main(String[] args) {
        int lines = 0;
        for (int i = 0; i < 40; i++) {
            for (int j = 0; j < 50; j++) {
                System.out.println("line " + i + "." + j);
                lines++;
            }
            System.out.flush();  // @flush
        }
        System.out.println("printed " + lines);
    }
}
