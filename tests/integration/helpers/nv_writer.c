/* Crash-test client (nv_crash.sh): NV_Write of the values FIRST..LAST (8 bytes, big-endian) to
 * an index, each followed by an NV_Increment of a counter, over raw MSSIM with ownerAuth (empty
 * password). Prints "w N" after each acknowledged write and "i" after each acknowledged
 * increment, flushed at once, so the caller knows what the server acknowledged. Exits 0 when
 * done, 2 on a TPM error, 3 when the connection breaks (the server was killed).
 *
 *   nv_writer PORT INDEX COUNTER FIRST LAST      (host 127.0.0.1) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MSSIM_SEND_COMMAND 8

static int fd = -1;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int io(int write_side, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write_side ? write(fd, p, len) : read(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One command; returns its response code, or -1 if the connection broke. */
static long command(const uint8_t *cmd, uint32_t len)
{
	uint8_t head[9], rsp[4096], n[4];
	uint32_t rlen;

	put32(head, MSSIM_SEND_COMMAND);
	head[4] = 0;
	put32(head + 5, len);
	if (io(1, head, 9) || io(1, (void *)cmd, len) || io(0, n, 4))
		return -1;
	rlen = get32(n);
	if (rlen < 10 || rlen > sizeof(rsp) || io(0, rsp, rlen) || io(0, n, 4))
		return -1;
	return (long)get32(rsp + 6);
}

/* NV_Write / NV_Increment with handles (OWNER, index) and an empty password. */
static size_t nv_command(uint8_t *c, uint32_t cc, uint32_t index, const uint8_t *data,
			 uint16_t dlen)
{
	size_t off = 0;

	c[off++] = 0x80;
	c[off++] = 0x02; /* TPM_ST_SESSIONS */
	off += 4;	 /* size, below */
	put32(c + off, cc);
	off += 4;
	put32(c + off, 0x40000001); /* TPM_RH_OWNER */
	off += 4;
	put32(c + off, index);
	off += 4;
	put32(c + off, 9); /* authorization size: TPM_RS_PW, no nonce, attrs, no hmac */
	off += 4;
	put32(c + off, 0x40000009);
	off += 4;
	c[off++] = 0;
	c[off++] = 0;
	c[off++] = 1;
	c[off++] = 0;
	c[off++] = 0;
	if (data) {
		c[off++] = (uint8_t)(dlen >> 8);
		c[off++] = (uint8_t)dlen;
		memcpy(c + off, data, dlen);
		off += dlen;
		c[off++] = 0; /* offset 0 */
		c[off++] = 0;
	}
	put32(c + 2, (uint32_t)off);
	return off;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	uint32_t index, counter;
	unsigned long first, last;
	uint8_t cmd[64], v[8];
	int one = 1;

	if (argc != 6) {
		fprintf(stderr, "usage: nv_writer PORT INDEX COUNTER FIRST LAST\n");
		return 1;
	}
	/* a server killed mid-write is what the test does: EPIPE (exit 3), not death by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	index = (uint32_t)strtoul(argv[2], NULL, 0);
	counter = (uint32_t)strtoul(argv[3], NULL, 0);
	first = strtoul(argv[4], NULL, 0);
	last = strtoul(argv[5], NULL, 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 3;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (unsigned long i = first; i <= last; i++) {
		long rc;

		for (int k = 0; k < 8; k++)
			v[k] = (uint8_t)((uint64_t)i >> (56 - 8 * k));
		rc = command(cmd, (uint32_t)nv_command(cmd, 0x137, index, v, 8));
		if (rc < 0)
			return 3;
		if (rc != 0) {
			fprintf(stderr, "NV_Write %lu: TPM rc 0x%lx\n", i, rc);
			return 2;
		}
		printf("w %lu\n", i);
		fflush(stdout);
		rc = command(cmd, (uint32_t)nv_command(cmd, 0x134, counter, NULL, 0));
		if (rc < 0)
			return 3;
		if (rc != 0) {
			fprintf(stderr, "NV_Increment: TPM rc 0x%lx\n", rc);
			return 2;
		}
		printf("i\n");
		fflush(stdout);
	}
	return 0;
}
