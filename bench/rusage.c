/* rusage: run a command, print "wall_s cpu_s maxrss_kib exit sys_s" on
 * stderr (cpu_s = user + system time of the command, sys_s the system
 * time alone).
 *   rusage [-n N] command [arg...]
 * -n N: run it N times, one after the other, and print the medians of
 * wall, CPU and system time (to the microsecond), the largest maxrss and
 * the last exit status: start-up costs of a few milliseconds, without a shell
 * between the runs. Used by bench/run.sh so the figures do not depend on
 * GNU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	double *wall, *cpu, *sys;
	long maxrss = 0;
	int st = 0, n = 1, i;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		n = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || n < 1 || n > 100000) {
		fprintf(stderr, "usage: rusage [-n N] command [arg...]\n");
		return 2;
	}
	wall = malloc((size_t)n * sizeof *wall);
	cpu = malloc((size_t)n * sizeof *cpu);
	sys = malloc((size_t)n * sizeof *sys);
	if (!wall || !cpu || !sys) {
		perror("rusage");
		return 5;
	}
	for (i = 0; i < n; i++) {
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
		wall[i] = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		cpu[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		sys[i] = (double)ru.ru_stime.tv_sec +
		    (double)ru.ru_stime.tv_usec / 1e6;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	fprintf(stderr, "%.6f %.6f %ld %d %.6f\n", median(wall, n),
	    median(cpu, n), maxrss, WIFEXITED(st) ? WEXITSTATUS(st) :
	    128 + WTERMSIG(st), median(sys, n));
	free(wall);
	free(cpu);
	free(sys);
	return 0;
}
