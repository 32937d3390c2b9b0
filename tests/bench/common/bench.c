/* Timing, reports and the raw client of the benchmark programs (see bench.h). */
#include "bench.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MSSIM_SEND_COMMAND 8u

int bench_errors;

double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

void bench_report(const char *key, const char *label, int width, double *t, int n)
{
	double med, p99;

	if (n <= 0) {
		printf("%-*s failed\n", width, label);
		printf("RESULT\t%s\t%s\tus\t-\t-\t0\n", key, label);
		bench_errors++;
		return;
	}
	med = bench_median(t, n);
	p99 = t[(int)ceil(0.99 * n) - 1];
	printf("%-*s median %10.1f us   p99 %10.1f us   (n=%d)\n", width, label, med, p99, n);
	printf("RESULT\t%s\t%s\tus\t%.1f\t%.1f\t%d\n", key, label, med, p99, n);
}

void bench_value(const char *key, const char *label, int width, const char *unit, double v,
		 int n)
{
	if (n <= 0) {
		printf("%-*s failed\n", width, label);
		printf("RESULT\t%s\t%s\t%s\t-\t-\t0\n", key, label, unit);
		bench_errors++;
		return;
	}
	printf("%-*s %10.*f %s\n", width, label, v < 10 ? 2 : 1, v, unit);
	printf("RESULT\t%s\t%s\t%s\t%.*f\t-\t%d\n", key, label, unit, v < 10 ? 2 : 1, v, n);
}

uint32_t bench_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void bench_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void bench_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int bench_connect(struct bench_conn *c, const char *host, unsigned port, int mssim)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 10 };
	int one = 1;

	c->mssim = mssim;
	c->fd = -1;
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "bad IPv4 address %s\n", host);
		return -1;
	}
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		return -1;
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "connect %s:%u: %s\n", host, port, strerror(errno));
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

void bench_close(struct bench_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads one reply whole into buf, with as few reads as the kernel allows (a reply that
 * arrived in one piece takes one read, for either kind of server): `at` is where the reply's
 * u32 size field sits, `extra` what follows the size it gives (MSSIM: the size field and the
 * trailing u32 acknowledgement; bare TPM: nothing, the size covers the header). Returns the
 * reply's length or -1. */
static long read_reply(int fd, uint8_t *buf, size_t cap, size_t at, size_t extra)
{
	size_t have = 0, need = at + 4;
	int sized = 0;

	while (have < need) {
		ssize_t r = read(fd, buf + have, cap - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		have += (size_t)r;
		if (!sized && have >= at + 4) {
			sized = 1;
			need = (size_t)bench_get32(buf + at) + extra;
			if (need < at + 4 || need > cap)
				return -1;
		}
	}
	/* One command at a time: nothing may follow the reply. */
	return have == need ? (long)need : -1;
}

long bench_cmd(struct bench_conn *c, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
	       size_t *rlen)
{
	uint8_t frame[9 + BENCH_RSP_CAP], in[4 + BENCH_RSP_CAP + 4];
	uint32_t size;
	long n;

	if (len > BENCH_RSP_CAP || len < 10)
		return -1;
	if (c->mssim) {
		bench_put32(frame, MSSIM_SEND_COMMAND);
		frame[4] = 0; /* locality */
		bench_put32(frame + 5, (uint32_t)len);
		memcpy(frame + 9, cmd, len);
		if (write_all(c->fd, frame, 9 + len) < 0)
			return -1;
		n = read_reply(c->fd, in, sizeof(in), 0, 8);
		if (n < 0)
			return -1;
		size = bench_get32(in);
		if (size < 10 || size > cap || bench_get32(in + 4 + size) != 0)
			return -1;
		memcpy(rsp, in + 4, size);
	} else {
		if (write_all(c->fd, cmd, len) < 0)
			return -1;
		n = read_reply(c->fd, rsp, cap, 2, 0);
		if (n < 10)
			return -1;
		size = (uint32_t)n;
	}
	if (bench_get32(rsp + 2) != size)
		return -1;
	*rlen = size;
	return (long)bench_get32(rsp + 6);
}
