/* A pqtpm-server of this build for a benchmark program that measures over MSSIM on its own:
 * BUILD/bin/pqtpm-server beside BUILD/bench/PROGRAM, on free loopback ports and a fresh state
 * directory, stopped (and the directory removed) by bench_server_stop. */
#include <arpa/inet.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_server.h"

static pid_t server_pid = -1;
static char state_dir[] = "/tmp/pqtpm-bench.XXXXXX";

static int port_free(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

int bench_free_port(unsigned *port)
{
	static int seeded;

	if (!seeded++)
		srand((unsigned)getpid());
	for (int tries = 0; tries < 1000; tries++) {
		*port = 20000 + (unsigned)rand() % 40000;
		if (port_free(*port) && port_free(*port + 1))
			return 0;
	}
	return -1;
}

int bench_server_start(const char *argv0, unsigned *port)
{
	char bin[4096], portarg[16];
	const char *slash = strrchr(argv0, '/');

	snprintf(bin, sizeof(bin), "%.*s/../bin/pqtpm-server", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	if (access(bin, X_OK) != 0 || !mkdtemp(state_dir))
		return -1;
	if (bench_free_port(port))
		return -1;
	snprintf(portarg, sizeof(portarg), "%u", *port);
	fflush(stdout);
	server_pid = fork();
	if (server_pid < 0)
		return -1;
	if (server_pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(bin, bin, "--port", portarg, "--state-dir", state_dir, "--log-level", "error",
		      (char *)NULL);
		_exit(127);
	}
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void bench_server_stop(void)
{
	if (server_pid <= 0)
		return;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	server_pid = -1;
	if (nftw(state_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "bench: could not remove %s\n", state_dir);
}
