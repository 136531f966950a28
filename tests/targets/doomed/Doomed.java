// Writes its pid to the file named by its argument, then loops until killed.
import java.nio.file.Files;
import java.nio.file.Paths;

public class Doomed {
    public static void main(String[] args) throws Exception {
        Files.writeString(Paths.get(args[0]), Long.toString(ProcessHandle.current().pid()));
        long count = 0;
        while (true) {
            count++; // @loop
        }
    }
}
