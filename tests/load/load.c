/* Load test: many MSSIM clients at once against one pqtpm-server.
 *
 *   load HOST PORT [CLIENTS [N]]     (defaults: 64 clients, N = 10000 commands each)
 *
 * Every client (a thread with its own connection) does Startup-free work on a started TPM:
 * it creates its own ECC P-256 signing key (CreatePrimary under the owner, its client number
 * in the template's unique field), then sends N commands in a fixed mix, round-robin:
 *   GetRandom(32);  PCR_Extend(16, SHA-256) with a password session;
 *   Sign(ECDSA, SHA-256 digest) with the key and a password session;
 *   a session flow: StartAuthSession (unbound, unsalted HMAC session, SHA-256),
 *     PCR_Extend(16) authorized with it (command HMAC computed, response HMAC checked),
 *     FlushContext of the session (3 commands).
 * Before it disconnects it checks that GetCapability(HANDLES) lists exactly its key and no
 * session. The key is left loaded on purpose: the server must flush it at disconnect.
 * After all clients are gone, a new connection must see no transient object and no session.
 *
 * Speaks MSSIM itself (u32 TPM_SEND_COMMAND, u8 locality, u32 size, command; response u32
 * size, body, u32 ack), blocking sockets with a 60 s timeout each, so a hung server fails
 * the run. Prints one line per check (`ok   ` / `FAIL `), the figures (commands, seconds,
 * aggregate commands/s, per-kind counts and latency percentiles), then `N passed, M failed`;
 * exits 0 only if nothing failed. Any TPM error or protocol error is a failure.
 *
 * Self-contained (libc and pthreads only, its own SHA-256), so that it builds the same
 * whatever wolfSSL or sanitizers the server was built with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- SHA-256 (FIPS 180-4) and HMAC-SHA-256, for the session flow ---- */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t n;
};

static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16];
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->len += len;
	while (len) {
		size_t k = 64 - s->n < len ? 64 - s->n : len;

		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
		if (s->n == 64) {
			sha256_block(s, s->buf);
			s->n = 0;
		}
	}
}

static void sha256_final(struct sha256 *s, uint8_t *out)
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, zero = 0, lenb[8];

	sha256_update(s, &pad, 1);
	while (s->n != 56)
		sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, lenb, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

static void sha256(const void *data, size_t len, uint8_t *out)
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
}

/* HMAC-SHA-256 over the concatenation of parts (RFC 2104; key at most 64 bytes). */
static void hmac_sha256(const uint8_t *key, size_t klen, const uint8_t *parts[],
			const size_t lens[], size_t n, uint8_t *out)
{
	uint8_t k[64] = { 0 }, pad[64], inner[32];
	struct sha256 s;

	if (klen)
		memcpy(k, key, klen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	for (size_t i = 0; i < n; i++)
		sha256_update(&s, parts[i], lens[i]);
	sha256_final(&s, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, inner, 32);
	sha256_final(&s, out);
}

#define SEND_COMMAND 8u
#define MAX_MSG 8192u
#define ST_NO_SESSIONS 0x8001u
#define ST_SESSIONS 0x8002u
#define RH_OWNER 0x40000001u
#define RH_NULL 0x40000007u
#define RS_PW 0x40000009u
#define PCR_LOAD 16u
#define CC_STARTUP 0x144u
#define CC_SIGN 0x15Du
#define CC_FLUSH 0x165u
#define CC_STARTAUTH 0x176u
#define CC_GETCAP 0x17Au
#define CC_GETRANDOM 0x17Bu
#define CC_PCR_EXTEND 0x182u
#define CC_CREATEPRIMARY 0x131u
#define RC_INITIALIZE 0x100u
#define ALG_SHA256 0x000bu
#define CONTINUE_SESSION 0x01u

enum kind { K_RANDOM, K_EXTEND, K_SIGN, K_SESSION, K_COUNT };
static const char *const kind_name[K_COUNT] = { "GetRandom", "PCR_Extend", "Sign",
						 "session flow (3 cmds)" };

static const char *host;
static unsigned port;
static int passed, failed;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

struct client {
	pthread_t th;
	unsigned id;
	unsigned long n;	/* commands to send */
	int fd;
	unsigned seed;
	unsigned long sent;
	unsigned long count[K_COUNT];
	double *lat[K_COUNT];	/* per operation, microseconds */
	unsigned long nlat[K_COUNT];
	char error[256];	/* first failure */
	uint32_t key;
};

__attribute__((format(printf, 2, 3)))
static int check(int ok, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	printf("%s", ok ? "ok   " : "FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
	pthread_mutex_unlock(&out_lock);
	return ok;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- a tiny command builder ---- */
struct buf {
	uint8_t b[MAX_MSG];
	size_t n;
};

static void put_u8(struct buf *m, uint8_t v)
{
	if (m->n < sizeof(m->b))
		m->b[m->n++] = v;
}

static void put_u16(struct buf *m, uint16_t v)
{
	put_u8(m, v >> 8);
	put_u8(m, (uint8_t)v);
}

static void put_u32(struct buf *m, uint32_t v)
{
	put_u16(m, v >> 16);
	put_u16(m, (uint16_t)v);
}

static void put_bytes(struct buf *m, const void *p, size_t n)
{
	if (n > sizeof(m->b) - m->n)
		n = sizeof(m->b) - m->n;
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void begin(struct buf *m, uint16_t tag, uint32_t cc)
{
	m->n = 0;
	put_u16(m, tag);
	put_u32(m, 0);
	put_u32(m, cc);
}

static void pw_auth(struct buf *m)
{
	put_u32(m, 9);
	put_u32(m, RS_PW);
	put_u16(m, 0);
	put_u8(m, CONTINUE_SESSION);
	put_u16(m, 0);
}

/* ---- MSSIM ---- */
static int send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int recv_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		ssize_t k = recv(fd, b, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int connect_to(const char *h, unsigned p)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	struct timeval tv = { .tv_sec = 60 };
	char ps[16];
	int fd, one = 1;

	snprintf(ps, sizeof(ps), "%u", p);
	if (getaddrinfo(h, ps, &hints, &ai) != 0)
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Sends m (size patched), receives the response into rsp. Returns the TPM rc, or -1 on a
 * transport or framing failure (message in err). */
static long transact(int fd, struct buf *m, struct buf *rsp, char *err, size_t errlen)
{
	uint8_t hdr[9], ack[4], sz[4];
	uint32_t len;

	m->b[2] = (uint8_t)(m->n >> 24);
	m->b[3] = (uint8_t)(m->n >> 16);
	m->b[4] = (uint8_t)(m->n >> 8);
	m->b[5] = (uint8_t)m->n;
	hdr[0] = hdr[1] = hdr[2] = 0;
	hdr[3] = SEND_COMMAND;
	hdr[4] = 0;	/* locality */
	hdr[5] = (uint8_t)(m->n >> 24);
	hdr[6] = (uint8_t)(m->n >> 16);
	hdr[7] = (uint8_t)(m->n >> 8);
	hdr[8] = (uint8_t)m->n;
	/* one send, as tpm2-tss does since 4.0 */
	{
		uint8_t frame[9 + MAX_MSG];

		memcpy(frame, hdr, 9);
		memcpy(frame + 9, m->b, m->n);
		if (send_all(fd, frame, 9 + m->n) < 0) {
			snprintf(err, errlen, "send: %s", strerror(errno));
			return -1;
		}
	}
	if (recv_all(fd, sz, 4) < 0) {
		snprintf(err, errlen, "recv size: %s", errno ? strerror(errno) : "closed");
		return -1;
	}
	len = get_u32(sz);
	if (len < 10 || len > sizeof(rsp->b)) {
		snprintf(err, errlen, "response size %u", len);
		return -1;
	}
	if (recv_all(fd, rsp->b, len) < 0 || recv_all(fd, ack, 4) < 0) {
		snprintf(err, errlen, "recv body: %s", errno ? strerror(errno) : "closed");
		return -1;
	}
	rsp->n = len;
	if (get_u32(ack) != 0 || get_u32(rsp->b + 2) != len) {
		snprintf(err, errlen, "bad ack %u or header size %u (len %u)", get_u32(ack),
			 get_u32(rsp->b + 2), len);
		return -1;
	}
	return get_u32(rsp->b + 6);
}

static void fill_random(struct client *c, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rand_r(&c->seed);
}

/* ---- the operations; each returns 0 or -1 with c->error set ---- */

static int expect_ok(struct client *c, const char *what, long rc)
{
	if (rc == 0)
		return 0;
	if (!c->error[0] && rc > 0)
		snprintf(c->error, sizeof(c->error), "client %u: %s: TPM rc 0x%03lx", c->id, what,
			 rc);
	return -1;
}

static long run(struct client *c, struct buf *m, struct buf *r)
{
	char err[160];
	long rc = transact(c->fd, m, r, err, sizeof(err));

	if (rc < 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error), "client %u: %s", c->id, err);
	c->sent++;
	return rc;
}

static int create_key(struct client *c)
{
	struct buf m, r;
	size_t at;
	uint8_t unique[4];

	begin(&m, ST_SESSIONS, CC_CREATEPRIMARY);
	put_u32(&m, RH_OWNER);
	pw_auth(&m);
	put_u16(&m, 4);
	put_u16(&m, 0);
	put_u16(&m, 0);
	at = m.n;
	put_u16(&m, 0);
	put_u16(&m, 0x0023);	/* ECC */
	put_u16(&m, ALG_SHA256);
	put_u32(&m, 0x00040072);	/* sign, userWithAuth, sensitiveDataOrigin, fixedTPM/Parent */
	put_u16(&m, 0);
	put_u16(&m, 0x0010);	/* symmetric NULL */
	put_u16(&m, 0x0018);	/* ECDSA */
	put_u16(&m, ALG_SHA256);
	put_u16(&m, 0x0003);	/* P-256 */
	put_u16(&m, 0x0010);	/* kdf NULL */
	unique[0] = (uint8_t)(c->id >> 24);
	unique[1] = (uint8_t)(c->id >> 16);
	unique[2] = (uint8_t)(c->id >> 8);
	unique[3] = (uint8_t)c->id;
	put_u16(&m, 4);		/* unique.x: the client number, so every client has its key */
	put_bytes(&m, unique, 4);
	put_u16(&m, 0);
	m.b[at] = (uint8_t)((m.n - at - 2) >> 8);
	m.b[at + 1] = (uint8_t)(m.n - at - 2);
	put_u16(&m, 0);
	put_u32(&m, 0);
	if (expect_ok(c, "CreatePrimary", run(c, &m, &r)) < 0)
		return -1;
	c->key = get_u32(r.b + 10);
	return 0;
}

static int get_random(struct client *c)
{
	struct buf m, r;

	begin(&m, ST_NO_SESSIONS, CC_GETRANDOM);
	put_u16(&m, 32);
	if (expect_ok(c, "GetRandom", run(c, &m, &r)) < 0)
		return -1;
	if (r.n != 10 + 2 + 32 || get_u16(r.b + 10) != 32) {
		snprintf(c->error, sizeof(c->error), "client %u: GetRandom: %zu bytes", c->id, r.n);
		return -1;
	}
	return 0;
}

static void extend_params(struct client *c, struct buf *m, uint8_t *digest)
{
	fill_random(c, digest, 32);
	put_u32(m, 1);
	put_u16(m, ALG_SHA256);
	put_bytes(m, digest, 32);
}

static int pcr_extend(struct client *c)
{
	struct buf m, r;
	uint8_t d[32];

	begin(&m, ST_SESSIONS, CC_PCR_EXTEND);
	put_u32(&m, PCR_LOAD);
	pw_auth(&m);
	extend_params(c, &m, d);
	return expect_ok(c, "PCR_Extend", run(c, &m, &r));
}

static int sign(struct client *c)
{
	struct buf m, r;
	uint8_t d[32];

	begin(&m, ST_SESSIONS, CC_SIGN);
	put_u32(&m, c->key);
	pw_auth(&m);
	fill_random(c, d, sizeof(d));
	put_u16(&m, 32);
	put_bytes(&m, d, 32);
	put_u16(&m, 0x0010);	/* inScheme NULL: the key's ECDSA-SHA256 */
	put_u16(&m, 0x8024);	/* TPM_ST_HASHCHECK, NULL ticket */
	put_u32(&m, RH_NULL);
	put_u16(&m, 0);
	if (expect_ok(c, "Sign", run(c, &m, &r)) < 0)
		return -1;
	/* parameterSize, TPMT_SIGNATURE: sigAlg ECDSA, hash SHA-256 */
	if (r.n < 10 + 4 + 4 || get_u16(r.b + 14) != 0x0018 || get_u16(r.b + 16) != ALG_SHA256) {
		snprintf(c->error, sizeof(c->error), "client %u: Sign: not an ECDSA signature",
			 c->id);
		return -1;
	}
	return 0;
}

static int flush(struct client *c, uint32_t h)
{
	struct buf m, r;

	begin(&m, ST_NO_SESSIONS, CC_FLUSH);
	put_u32(&m, h);
	return expect_ok(c, "FlushContext", run(c, &m, &r));
}

static int session_flow(struct client *c)
{
	struct buf m, r;
	uint8_t nonce_caller[16], nonce_tpm[64], d[32], cp[32], rp[32], mac[32], attrs;
	uint8_t hbuf[4 + 4 + 4 + 2 + 32], rbuf[8];
	uint16_t tpm_len, mac_len;
	uint32_t session;
	size_t off;

	/* StartAuthSession: unbound, unsalted HMAC session with SHA-256 */
	begin(&m, ST_NO_SESSIONS, CC_STARTAUTH);
	put_u32(&m, RH_NULL);
	put_u32(&m, RH_NULL);
	fill_random(c, nonce_caller, sizeof(nonce_caller));
	put_u16(&m, sizeof(nonce_caller));
	put_bytes(&m, nonce_caller, sizeof(nonce_caller));
	put_u16(&m, 0);		/* encryptedSalt */
	put_u8(&m, 0x00);	/* TPM_SE_HMAC */
	put_u16(&m, 0x0010);	/* symmetric NULL */
	put_u16(&m, ALG_SHA256);
	if (expect_ok(c, "StartAuthSession", run(c, &m, &r)) < 0)
		return -1;
	session = get_u32(r.b + 10);
	tpm_len = get_u16(r.b + 14);
	if (tpm_len > sizeof(nonce_tpm) || 16u + tpm_len > r.n) {
		snprintf(c->error, sizeof(c->error), "client %u: StartAuthSession: nonceTPM %u",
			 c->id, tpm_len);
		return -1;
	}
	memcpy(nonce_tpm, r.b + 16, tpm_len);

	/* PCR_Extend authorized by the session: cpHash = H(cc || name(PCR) || params) */
	begin(&m, ST_SESSIONS, CC_PCR_EXTEND);
	put_u32(&m, PCR_LOAD);
	{
		struct buf p = { .n = 0 };

		extend_params(c, &p, d);
		hbuf[0] = 0, hbuf[1] = 0, hbuf[2] = CC_PCR_EXTEND >> 8, hbuf[3] = CC_PCR_EXTEND & 0xff;
		hbuf[4] = 0, hbuf[5] = 0, hbuf[6] = 0, hbuf[7] = PCR_LOAD;
		memcpy(hbuf + 8, p.b, p.n);
		sha256(hbuf, 8 + p.n, cp);
		fill_random(c, nonce_caller, sizeof(nonce_caller));
		attrs = CONTINUE_SESSION;
		{
			const uint8_t *parts[] = { cp, nonce_caller, nonce_tpm, &attrs };
			const size_t lens[] = { 32, sizeof(nonce_caller), tpm_len, 1 };

			/* unbound, unsalted session, PCR with an empty auth: empty key */
			hmac_sha256(NULL, 0, parts, lens, 4, mac);
		}
		put_u32(&m, 4 + 2 + sizeof(nonce_caller) + 1 + 2 + 32);
		put_u32(&m, session);
		put_u16(&m, sizeof(nonce_caller));
		put_bytes(&m, nonce_caller, sizeof(nonce_caller));
		put_u8(&m, attrs);
		put_u16(&m, 32);
		put_bytes(&m, mac, 32);
		put_bytes(&m, p.b, p.n);
	}
	if (expect_ok(c, "PCR_Extend with an HMAC session", run(c, &m, &r)) < 0)
		return -1;
	/* response: parameterSize (0), nonceTPM, attributes, hmac; rpHash = H(rc || cc) */
	off = 10;
	if (r.n < off + 4 + 2 || get_u32(r.b + off) != 0)
		goto bad_rsp;
	off += 4;
	tpm_len = get_u16(r.b + off);
	if (tpm_len > sizeof(nonce_tpm) || r.n < off + 2 + tpm_len + 1 + 2)
		goto bad_rsp;
	memcpy(nonce_tpm, r.b + off + 2, tpm_len);
	off += 2 + tpm_len;
	attrs = r.b[off++];
	mac_len = get_u16(r.b + off);
	off += 2;
	if (mac_len != 32 || r.n != off + 32)
		goto bad_rsp;
	memset(rbuf, 0, 4);
	rbuf[4] = 0, rbuf[5] = 0, rbuf[6] = CC_PCR_EXTEND >> 8, rbuf[7] = CC_PCR_EXTEND & 0xff;
	sha256(rbuf, 8, rp);
	{
		const uint8_t *parts[] = { rp, nonce_tpm, nonce_caller, &attrs };
		const size_t lens[] = { 32, tpm_len, sizeof(nonce_caller), 1 };

		hmac_sha256(NULL, 0, parts, lens, 4, mac);
	}
	if (memcmp(mac, r.b + off, 32) != 0) {
		snprintf(c->error, sizeof(c->error), "client %u: response HMAC does not verify",
			 c->id);
		return -1;
	}
	/* continueSession was set: the session lives until flushed */
	return flush(c, session);
bad_rsp:
	snprintf(c->error, sizeof(c->error), "client %u: malformed session response (%zu bytes)",
		 c->id, r.n);
	return -1;
}

/* GetCapability(HANDLES, from): the handles listed (at most max), or -1. */
static int list_handles(struct client *c, uint32_t from, uint32_t *out, int max)
{
	struct buf m, r;
	uint32_t count;

	begin(&m, ST_NO_SESSIONS, CC_GETCAP);
	put_u32(&m, 1);	/* TPM_CAP_HANDLES */
	put_u32(&m, from);
	put_u32(&m, 64);
	if (expect_ok(c, "GetCapability", run(c, &m, &r)) < 0)
		return -1;
	if (r.n < 19)
		return -1;
	count = get_u32(r.b + 15);
	if (r.n != 19 + 4 * (size_t)count)
		return -1;
	for (uint32_t i = 0; i < count && (int)i < max; i++)
		out[i] = get_u32(r.b + 19 + 4 * i);
	return (int)count;
}

static void record(struct client *c, enum kind k, double t0)
{
	if (c->nlat[k] < c->n)
		c->lat[k][c->nlat[k]++] = now_us() - t0;
	c->count[k]++;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	uint32_t h[64];
	int n;

	c->fd = connect_to(host, port);
	if (c->fd < 0) {
		snprintf(c->error, sizeof(c->error), "client %u: connect: %s", c->id,
			 strerror(errno));
		return NULL;
	}
	if (create_key(c) < 0)
		goto out;
	for (unsigned long i = 0; c->sent < c->n; i++) {
		double t0 = now_us();
		enum kind k = (enum kind)(i % K_COUNT);
		int rc = 0;

		switch (k) {
		case K_RANDOM: rc = get_random(c); break;
		case K_EXTEND: rc = pcr_extend(c); break;
		case K_SIGN: rc = sign(c); break;
		case K_SESSION: rc = session_flow(c); break;
		case K_COUNT: break;
		}
		if (rc < 0)
			goto out;
		record(c, k, t0);
	}
	/* exactly the key, no session */
	n = list_handles(c, 0x80000000u, h, 64);
	if (n != 1 || h[0] != c->key) {
		snprintf(c->error, sizeof(c->error), "client %u: %d transient handles, want 1",
			 c->id, n);
		goto out;
	}
	if (list_handles(c, 0x02000000u, h, 64) != 0 || list_handles(c, 0x03000000u, h, 64) != 0) {
		snprintf(c->error, sizeof(c->error), "client %u: sessions left", c->id);
		goto out;
	}
out:
	close(c->fd);	/* the key stays loaded: the server flushes it */
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int startup(void)
{
	struct client c = { .id = 0 };
	struct buf m, r;
	long rc;

	c.fd = connect_to(host, port);
	if (c.fd < 0)
		return -1;
	begin(&m, ST_NO_SESSIONS, CC_STARTUP);
	put_u16(&m, 0);	/* TPM_SU_CLEAR */
	rc = run(&c, &m, &r);
	close(c.fd);
	return rc == 0 || rc == RC_INITIALIZE ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned nclients = 64;
	unsigned long n = 10000, total = 0, kinds[K_COUNT] = { 0 };
	struct client *cl;
	double t0, secs;
	int errors = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: load HOST PORT [CLIENTS [N]]\n");
		return 2;
	}
	host = argv[1];
	port = (unsigned)atoi(argv[2]);
	if (argc > 3)
		nclients = (unsigned)atoi(argv[3]);
	if (argc > 4)
		n = strtoul(argv[4], NULL, 10);
	if (nclients == 0 || nclients > 1000 || n < K_COUNT + 2) {
		fprintf(stderr, "load: bad CLIENTS or N\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	check(startup() == 0, "Startup(CLEAR) (or already started)");

	cl = calloc(nclients, sizeof(*cl));
	if (!cl)
		return 1;
	t0 = now_us();
	for (unsigned i = 0; i < nclients; i++) {
		cl[i].id = i + 1;
		cl[i].n = n;
		cl[i].seed = 0x5eed0000u + i;
		for (int k = 0; k < K_COUNT; k++)
			cl[i].lat[k] = calloc(n, sizeof(double));
		if (pthread_create(&cl[i].th, NULL, client_main, &cl[i]) != 0) {
			check(0, "pthread_create for client %u", i + 1);
			return 1;
		}
	}
	for (unsigned i = 0; i < nclients; i++)
		pthread_join(cl[i].th, NULL);
	secs = (now_us() - t0) / 1e6;

	for (unsigned i = 0; i < nclients; i++) {
		total += cl[i].sent;
		for (int k = 0; k < K_COUNT; k++)
			kinds[k] += cl[i].count[k];
		if (cl[i].error[0]) {
			if (errors++ < 10)
				check(0, "%s", cl[i].error);
		}
	}
	check(errors == 0, "%u clients x %lu commands: %d client(s) with an error", nclients, n,
	      errors);

	/* after every client is gone: nothing left that a new client can see */
	{
		struct client c = { .id = 0, .n = 1 };
		uint32_t h[64];

		c.fd = connect_to(host, port);
		check(c.fd >= 0 && list_handles(&c, 0x80000000u, h, 64) == 0,
		      "after disconnect: no transient object");
		check(c.fd >= 0 && list_handles(&c, 0x02000000u, h, 64) == 0 &&
			      list_handles(&c, 0x03000000u, h, 64) == 0,
		      "after disconnect: no session");
		if (c.fd >= 0)
			close(c.fd);
	}

	printf("load: %u clients, %lu commands in %.2f s: %.0f commands/s aggregate\n", nclients,
	       total, secs, total / secs);
	for (int k = 0; k < K_COUNT; k++) {
		double *all;
		size_t m = 0;

		all = malloc(sizeof(double) * (kinds[k] ? kinds[k] : 1));
		for (unsigned i = 0; i < nclients && all; i++) {
			memcpy(all + m, cl[i].lat[k], cl[i].nlat[k] * sizeof(double));
			m += cl[i].nlat[k];
		}
		if (all && m) {
			qsort(all, m, sizeof(double), cmp_double);
			printf("load:   %-22s %8lu ops, latency p50 %.0f us, p99 %.0f us, max %.0f us\n",
			       kind_name[k], kinds[k], all[m / 2], all[m * 99 / 100], all[m - 1]);
		}
		free(all);
	}
	for (unsigned i = 0; i < nclients; i++)
		for (int k = 0; k < K_COUNT; k++)
			free(cl[i].lat[k]);
	free(cl);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
