/* A pqtpm-server of this build for benchmarks over MSSIM (server.c). */
#ifndef PQTPM_BENCH_SERVER_H
#define PQTPM_BENCH_SERVER_H

/* A loopback port that is free, and the next one too. 0 or -1. */
int bench_free_port(unsigned *port);
/* Starts it on a free loopback port (*port; the platform port is *port + 1). 0 or -1. */
int bench_server_start(const char *argv0, unsigned *port);
/* Stops it (SIGTERM, waited for) and removes its state directory. */
void bench_server_stop(void);

#endif
