/** A ring of numbers: `dbg set` on fields and array elements. */
public class Ring {
    int cap = 4;
    int[] items = {10, 20, 30};

    static int twice(int x) {
        return x * 2; // @twice
    }

    public static void main(String[] args) {
        Ring r = new Ring();
        int[] arr = {1, 2, 3};
        int total = twice(r.cap); // @call
        System.out.println(total + " " + r.cap + " " + r.items[2] + " " + arr[0]); // @print
    }
}
