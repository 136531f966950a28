/* dbg stacks' Java target: two threads that take two locks in opposite
   orders and deadlock; main waits for them for ever. */
public class Deadlock {
    static final Object first = new Object();
    static final Object second = new Object();

    static void forward() throws InterruptedException {
        synchronized (first) {
            Thread.sleep(100);
            synchronized (second) { System.out.println("never"); }  // @forward-blocks
        }
    }

    static void backward() throws InterruptedException {
        synchronized (second) {
            Thread.sleep(100);
            synchronized (first) { System.out.println("never"); }  // @backward-blocks
        }
    }

    static void run(boolean ahead) {
        try {
            if (ahead) {
                forward();
            } else {
                backward();
            }
        } catch (InterruptedException e) {
            return;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread a = new Thread(() -> run(true), "forward");
        Thread b = new Thread(() -> run(false), "backward");
        a.start();
        b.start();
        System.out.println("deadlocked");
        a.join();  // @main-waits
        b.join();
    }
}
