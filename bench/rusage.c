/* rusage: run a command, print "wall_s cpu_s maxrss_kib exit" on stderr
 * (cpu_s = user + system time of the command).
 * Used by bench/run.sh so the figures do not depend on GNU time. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int st;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: rusage command [arg...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0) {
		perror("fork");
		return 5;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("wait4");
		return 5;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "%.3f %.3f %ld %d\n", (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	    ru.ru_maxrss,
	    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
