/* pqtpm-servers of this build for benchmark programs that measure over MSSIM on their own
 * (bench_server.h). */
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

static int listening(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int bench_server_start(struct bench_server *s, const char *argv0)
{
	char bin[4096], portarg[16];
	const char *slash = strrchr(argv0, '/');

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/pqtpm-bench.XXXXXX");
	snprintf(bin, sizeof(bin), "%.*s/../bin/pqtpm-server", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	if (access(bin, X_OK) != 0 || bench_free_port(&s->port) != 0 || !mkdtemp(s->dir))
		return -1;
	snprintf(portarg, sizeof(portarg), "%u", s->port);
	fflush(stdout);
	s->pid = fork();
	if (s->pid < 0) {
		s->pid = 0;
		rmdir(s->dir);
		return -1;
	}
	if (s->pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(bin, bin, "--port", portarg, "--state-dir", s->dir, "--log-level", "error",
		      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {
		if (listening(s->port))
			return 0;
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) /* it died: its port was taken */
			break;
		usleep(50000);
	}
	bench_server_stop(s);
	return -1;
}

void bench_server_stop(struct bench_server *s)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
	if (nftw(s->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "bench: could not remove %s\n", s->dir);
}
