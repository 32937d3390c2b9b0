/* pqtpm-servers of this build for benchmarks over MSSIM (server.c). */
#ifndef PQTPM_BENCH_SERVER_H
#define PQTPM_BENCH_SERVER_H

#include <sys/types.h>

struct bench_server {
	pid_t pid;	/* 0: not running */
	unsigned port;	/* MSSIM command port; the platform port is port + 1 */
	char dir[32];	/* its fresh state directory */
};

/* A loopback port that is free, and the next one too. 0 or -1. */
int bench_free_port(unsigned *port);
/* Starts BUILD/bin/pqtpm-server (beside BUILD/bench/PROGRAM, argv0) on free loopback ports and
 * a fresh state directory, and waits (at most 5 s) until its command port takes connections.
 * Several may run at once, each on its own directory. 0, or -1 with nothing left running. */
int bench_server_start(struct bench_server *s, const char *argv0);
/* Stops it (SIGTERM, waited for) and removes its state directory. */
void bench_server_stop(struct bench_server *s);

#endif
