/* Forks; the child execs /bin/echo, the parent waits for it and goes on. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/echo", "echo", "child ran", (char *)0);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("parent done %d\n", WEXITSTATUS(status)); // @done
    return 0;
}
