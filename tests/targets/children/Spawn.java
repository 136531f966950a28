// Runs a child process (/bin/echo), waits for it, and goes on.
public class Spawn {
    public static void main(String[] args) throws Exception {
        Process child = new ProcessBuilder("/bin/echo", "child ran").inheritIO().start();
        int code = child.waitFor();
        System.out.println("parent done " + code); // @done
    }
}
