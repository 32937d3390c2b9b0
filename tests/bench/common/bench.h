/* Shared by the benchmark programs (tests/bench/common/, linked into each of them): timing,
 * the median/p99 report with its RESULT line, and the raw client (one TCP connection,
 * TCP_NODELAY, one write per command; MSSIM framing or bare TPM commands). */
#ifndef PQTPM_BENCH_H
#define PQTPM_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* The largest command or response the raw client carries. */
#define BENCH_RSP_CAP 8192u

/* Failed measurements so far (bench_report counts its own); a program exits non-zero on any. */
extern int bench_errors;

double bench_now_us(void);
/* Sorts t[0..n), n > 0, and returns its median. */
double bench_median(double *t, int n);
/* Sorts t[0..n) and prints the label (padded to width), median and p99, and
 *   RESULT<TAB>key<TAB>label<TAB>us<TAB>median<TAB>p99<TAB>n
 * n == 0 is a failed measurement: printed as such and counted in bench_errors. */
void bench_report(const char *key, const char *label, int width, double *t, int n);

/* One figure without a distribution (a maximum, a rate, a ratio): prints the label (padded to
 * width), the value and its unit, and
 *   RESULT<TAB>key<TAB>label<TAB>unit<TAB>value<TAB>-<TAB>n
 * n == 0 is a failed measurement, as for bench_report. */
void bench_value(const char *key, const char *label, int width, const char *unit, double v,
		 int n);

uint32_t bench_get32(const uint8_t *p);
void bench_put16(uint8_t *p, uint16_t v);
void bench_put32(uint8_t *p, uint32_t v);

struct bench_conn {
	int fd;
	int mssim; /* frame each command as MSSIM TPM_SEND_COMMAND (locality 0) */
};

/* host: an IPv4 address. 0, or -1 with a message. */
int bench_connect(struct bench_conn *c, const char *host, unsigned port, int mssim);
void bench_close(struct bench_conn *c);
/* One command, one write, the reply read whole into rsp (cap bytes); returns the TPM response
 * code, or -1 on a transport error or a malformed reply. */
long bench_cmd(struct bench_conn *c, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
	       size_t *rlen);

#endif
