# Forks; the child execs /bin/echo, the parent waits for it and goes on.
my $pid = fork();
if ($pid == 0) {
    exec("/bin/echo", "child ran") or exit(127);
}
waitpid($pid, 0);
print "parent done $?\n"; # @done
