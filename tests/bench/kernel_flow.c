/* The Linux kernel's protected PCR extend (drivers/char/tpm/tpm2-sessions.c), step by step,
 * against a running TPM simulator.
 *
 *   kernel_flow mssim|raw HOST PORT
 *   kernel_flow engine
 *
 * "mssim HOST PORT" is an MSSIM command port (each command framed as TPM_SEND_COMMAND,
 * locality 0, size, command; the response is size, body, acknowledgement); "raw HOST PORT" takes
 * bare TPM commands (swtpm's server port). One TCP connection, TCP_NODELAY, one write per
 * command. "engine" runs the same client against an in-process pqtpm engine (no state
 * directory): the engine's own cost, without transport or scheduling.
 *
 * The client is not ESAPI (which spends ~2 ms of its own CPU per session command): it builds
 * the commands itself and does its session crypto with libpqtpm's core/crypto wrappers
 * (wolfSSL): KDFe/ECDH for the salt, KDFa for the session key, HMAC-SHA256 on every command,
 * and every response HMAC verified. The ephemeral ECDH of each salted StartAuthSession is
 * computed before that iteration's clock starts (the TPM's work is what is measured; its
 * client-side cost is printed as well).
 *
 * Setup: CreatePrimary of the kernel's null key (ECC P-256 storage key in TPM_RH_NULL),
 * ContextSave, FlushContext. Each iteration of the kernel flow:
 *   ContextLoad(null key), StartAuthSession(tpmKey = null key, bind = NULL, HMAC,
 *   AES-128-CFB, SHA-256, ECC salt), FlushContext(key), PCR_Extend(16) with the session
 *   (continueSession), FlushContext(session).
 * Also: unsalted StartAuthSession + FlushContext, and GetRandom(32) through a salted session
 * with the encrypt attribute (response decrypted, HMAC checked). PCR 16 is read at the end and
 * compared with the value computed here.
 *
 * Output: human-readable lines, plus per figure
 *   RESULT<TAB>key<TAB>label<TAB>us<TAB>median<TAB>p99<TAB>samples
 * With BENCH_SERVER_PID set (the server's process id), also the server's CPU time per flow
 * (from /proc/PID/task/TID/schedstat, summed over its threads; p99 "-"): a figure that other
 * load on the machine disturbs much less than the wall-clock latencies.
 * BENCH_QUICK=1: 100 iterations instead of 500. Exits non-zero if anything failed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/engine.h>

#include "crypto/crypto.h"

#include "common/bench.h"

#define BUF_CAP 4096u
#define NONCE 32u
#define PCR_INDEX 16u
#define MAX_ITERS 5000
#define MAX_SECONDS 120.0
#define ERR_TRANSPORT (-1L)

#define CC_STARTUP 0x144u
#define CC_CREATE_PRIMARY 0x131u
#define CC_CONTEXT_SAVE 0x162u
#define CC_CONTEXT_LOAD 0x161u
#define CC_FLUSH_CONTEXT 0x165u
#define CC_START_AUTH_SESSION 0x176u
#define CC_PCR_EXTEND 0x182u
#define CC_PCR_READ 0x17eu
#define CC_GET_RANDOM 0x17bu
#define RC_INITIALIZE 0x100u

#define ATTR_CONTINUE 0x01u
#define ATTR_ENCRYPT 0x40u


/* ---- server CPU time ---- */

/* CPU time (ns) the process pid has used so far, over all its threads; -1 if unknown. */
static double server_cpu_ns(long pid)
{
	char path[64], line[128];
	struct dirent *d;
	double sum = 0;
	DIR *dir;
	int n = 0;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) != NULL && n < 1024) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.16s/schedstat", pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f))
			sum += strtod(line, NULL);
		fclose(f);
		n++;
	}
	closedir(dir);
	return n > 0 ? sum : -1;
}

/* ---- transport ---- */

struct conn {
	struct bench_conn net;
	struct pqtpm_engine *engine;	/* in-process instead of a socket */
	struct pqtpm_client *client;
};

/* One command, one write. Returns the TPM response code or ERR_TRANSPORT. */
static long transact(struct conn *c, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t *rlen)
{
	size_t n = 0;
	long rc;

	if (len > BUF_CAP || len < 10)
		return ERR_TRANSPORT;
	if (!c->engine) {
		rc = bench_cmd(&c->net, cmd, len, rsp, BUF_CAP, rlen);
		return rc < 0 ? ERR_TRANSPORT : rc;
	}
	if (pqtpm_engine_execute(c->client, 0, cmd, len, rsp, BUF_CAP, &n) != 0 || n < 10 ||
	    bench_get32(rsp + 2) != n)
		return ERR_TRANSPORT;
	*rlen = n;
	return (long)bench_get32(rsp + 6);
}

/* ---- command building and response reading, bounded ---- */

struct wbuf {
	uint8_t b[BUF_CAP];
	size_t n;
	int overflow;
};

static void w_bytes(struct wbuf *w, const void *p, size_t len)
{
	if (w->overflow || len > sizeof(w->b) - w->n) {
		w->overflow = 1;
		return;
	}
	memcpy(w->b + w->n, p, len);
	w->n += len;
}

static void w8(struct wbuf *w, uint8_t v)
{
	w_bytes(w, &v, 1);
}

static void w16(struct wbuf *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	w_bytes(w, b, 2);
}

static void w32(struct wbuf *w, uint32_t v)
{
	uint8_t b[4];

	bench_put32(b, v);
	w_bytes(w, b, 4);
}

static void w2b(struct wbuf *w, const void *p, size_t len)
{
	w16(w, (uint16_t)len);
	w_bytes(w, p, len);
}

struct rbuf {
	const uint8_t *p;
	size_t n, off;
	int bad;
};

static void r_init(struct rbuf *r, const uint8_t *p, size_t n)
{
	r->p = p;
	r->n = n;
	r->off = 0;
	r->bad = 0;
}

static const uint8_t *r_view(struct rbuf *r, size_t len)
{
	const uint8_t *v;

	if (r->bad || len > r->n - r->off) {
		r->bad = 1;
		return NULL;
	}
	v = r->p + r->off;
	r->off += len;
	return v;
}

static uint16_t r16(struct rbuf *r)
{
	const uint8_t *v = r_view(r, 2);

	return v ? (uint16_t)(v[0] << 8 | v[1]) : 0;
}

static uint32_t r32(struct rbuf *r)
{
	const uint8_t *v = r_view(r, 4);

	return v ? bench_get32(v) : 0;
}

/* A TPM2B of at most cap bytes into out (size in *len). */
static void r2b(struct rbuf *r, uint8_t *out, size_t cap, size_t *len)
{
	uint16_t size = r16(r);
	const uint8_t *v;

	*len = 0;
	if (size > cap) {
		r->bad = 1;
		return;
	}
	v = r_view(r, size);
	if (v) {
		memcpy(out, v, size);
		*len = size;
	}
}

/* ---- sessions, client side ---- */

struct sess {
	uint32_t handle;
	uint8_t key[NONCE];	/* sessionKey; empty when unsalted and unbound */
	size_t keylen;
	uint8_t nonce_tpm[NONCE], nonce_caller[NONCE];
};

/* The TPM's null key: its public point, and its saved context. */
struct null_key {
	uint8_t x[32], y[32];
	uint8_t ctx[BUF_CAP];	/* TPMS_CONTEXT as ContextSave returned it */
	size_t ctxlen;
};

/* A salt prepared for the null key: ephemeral point and the salt it gives. */
struct salt {
	uint8_t ex[32], ey[32];
	uint8_t value[32];
};

static int fail(const char *what, long rc)
{
	if (rc == ERR_TRANSPORT)
		fprintf(stderr, "%s: transport error\n", what);
	else
		fprintf(stderr, "%s: TPM rc 0x%lx\n", what, (unsigned long)rc);
	bench_errors++;
	return -1;
}

static void cmd_begin(struct wbuf *w, uint16_t tag, uint32_t cc)
{
	w->n = 0;
	w->overflow = 0;
	w16(w, tag);
	w32(w, 0);	/* size, patched by cmd_end */
	w32(w, cc);
}

static int cmd_end(struct wbuf *w)
{
	if (w->overflow)
		return -1;
	bench_put32(w->b + 2, (uint32_t)w->n);
	return 0;
}

static long run_cmd(struct conn *c, struct wbuf *w, uint8_t *rsp, size_t *rlen)
{
	if (cmd_end(w) < 0)
		return ERR_TRANSPORT;
	return transact(c, w->b, w->n, rsp, rlen);
}

static int prepare_salt(const struct null_key *k, struct salt *s)
{
	uint8_t d[32], zx[32], zy[32];
	TPM_RC rc;

	rc = crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, s->ex, s->ey);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecdh(TPM_ECC_NIST_P256, d, k->x, 32, k->y, 32, zx, zy);
	/* KDFe(nameAlg, Z.x, "SECRET", ephemeral.x, tpmKey.x) (Part 1 §11.4.10.3, C.6.1) */
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfe(TPM_ALG_SHA256, zx, 32, "SECRET", s->ex, 32, k->x, 32, 256,
				 s->value);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	return rc == TPM_RC_SUCCESS ? 0 : -1;
}

/* StartAuthSession(HMAC, AES-128-CFB, SHA-256); tpm_key 0 = unsalted. */
static int start_session(struct conn *c, uint32_t tpm_key, const struct salt *salt,
			 struct sess *s)
{
	struct wbuf w;
	uint8_t rsp[BUF_CAP], point[2 + 32 + 2 + 32];
	struct rbuf r;
	size_t rlen, nlen;
	long rc;

	memset(s, 0, sizeof(*s));
	if (crypto_random(s->nonce_caller, NONCE) != TPM_RC_SUCCESS)
		return fail("crypto_random", 0);
	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_START_AUTH_SESSION);
	w32(&w, tpm_key ? tpm_key : TPM_RH_NULL);
	w32(&w, TPM_RH_NULL);
	w2b(&w, s->nonce_caller, NONCE);
	if (tpm_key) { /* encryptedSalt: a TPMS_ECC_POINT */
		point[0] = 0, point[1] = 32;
		memcpy(point + 2, salt->ex, 32);
		point[34] = 0, point[35] = 32;
		memcpy(point + 36, salt->ey, 32);
		w2b(&w, point, sizeof(point));
	} else {
		w16(&w, 0);
	}
	w8(&w, TPM_SE_HMAC);
	w16(&w, TPM_ALG_AES);
	w16(&w, 128);
	w16(&w, TPM_ALG_CFB);
	w16(&w, TPM_ALG_SHA256);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("StartAuthSession", rc);
	r_init(&r, rsp, rlen);
	r_view(&r, 10);
	s->handle = r32(&r);
	r2b(&r, s->nonce_tpm, sizeof(s->nonce_tpm), &nlen);
	if (r.bad || nlen != NONCE)
		return fail("StartAuthSession response", 0);
	if (tpm_key) {
		if (crypto_kdfa(TPM_ALG_SHA256, salt->value, 32, "ATH", s->nonce_tpm, NONCE,
				s->nonce_caller, NONCE, 256, s->key) != TPM_RC_SUCCESS)
			return fail("KDFa(ATH)", 0);
		s->keylen = 32;
	}
	return 0;
}

/* HMAC(sessionKey || authValue(empty), pHash || newer || older || attrs) */
static int sess_hmac(const struct sess *s, const uint8_t *p_hash, const uint8_t *newer,
		     const uint8_t *older, uint8_t attrs, uint8_t *out)
{
	struct crypto_hmac_ctx h;

	if (crypto_hmac_start(&h, TPM_ALG_SHA256, s->key, s->keylen) != TPM_RC_SUCCESS ||
	    crypto_hmac_update(&h, p_hash, 32) != TPM_RC_SUCCESS ||
	    crypto_hmac_update(&h, newer, NONCE) != TPM_RC_SUCCESS ||
	    crypto_hmac_update(&h, older, NONCE) != TPM_RC_SUCCESS ||
	    crypto_hmac_update(&h, &attrs, 1) != TPM_RC_SUCCESS ||
	    crypto_hmac_finish(&h, out) != TPM_RC_SUCCESS)
		return -1;
	return 0;
}

/* A command with one HMAC session: handles (names = the handles: PCRs, none), params. */
static int sess_command(struct wbuf *w, struct sess *s, uint32_t cc, const uint32_t *handles,
			unsigned nh, const uint8_t *params, size_t plen, uint8_t attrs)
{
	struct crypto_hash_ctx h;
	uint8_t cp[32], mac[32], b[4];

	if (crypto_random(s->nonce_caller, NONCE) != TPM_RC_SUCCESS)
		return -1;
	bench_put32(b, cc);
	if (crypto_hash_start(&h, TPM_ALG_SHA256) != TPM_RC_SUCCESS ||
	    crypto_hash_update(&h, b, 4) != TPM_RC_SUCCESS)
		return -1;
	for (unsigned i = 0; i < nh; i++) {
		bench_put32(b, handles[i]);
		if (crypto_hash_update(&h, b, 4) != TPM_RC_SUCCESS)
			return -1;
	}
	if (crypto_hash_update(&h, params, plen) != TPM_RC_SUCCESS ||
	    crypto_hash_finish(&h, cp) != TPM_RC_SUCCESS ||
	    sess_hmac(s, cp, s->nonce_caller, s->nonce_tpm, attrs, mac) < 0)
		return -1;
	cmd_begin(w, TPM_ST_SESSIONS, cc);
	for (unsigned i = 0; i < nh; i++)
		w32(w, handles[i]);
	w32(w, 4 + 2 + NONCE + 1 + 2 + 32);
	w32(w, s->handle);
	w2b(w, s->nonce_caller, NONCE);
	w8(w, attrs);
	w2b(w, mac, 32);
	w_bytes(w, params, plen);
	return w->overflow ? -1 : 0;
}

/* Checks the response's session (new nonceTPM, HMAC over rpHash); *params and *plen get the
 * response parameters. */
static int sess_response(struct sess *s, uint32_t cc, const uint8_t *rsp, size_t rlen,
			 const uint8_t **params, size_t *plen)
{
	struct crypto_hash_ctx h;
	uint8_t rp[32], want[32], head[8] = { 0 }, mac[64], attrs;
	struct rbuf r;
	size_t nlen, mlen;
	uint32_t psize;
	const uint8_t *p, *a;

	r_init(&r, rsp, rlen);
	if (bench_get32(rsp) >> 16 != TPM_ST_SESSIONS)
		return -1;
	r_view(&r, 10);
	psize = r32(&r);
	p = r_view(&r, psize);
	r2b(&r, s->nonce_tpm, sizeof(s->nonce_tpm), &nlen);
	a = r_view(&r, 1);
	r2b(&r, mac, sizeof(mac), &mlen);
	if (r.bad || !p || !a || r.off != rlen || nlen != NONCE || mlen != 32)
		return -1;
	attrs = *a;
	bench_put32(head + 4, cc);
	if (crypto_hash_start(&h, TPM_ALG_SHA256) != TPM_RC_SUCCESS ||
	    crypto_hash_update(&h, head, 8) != TPM_RC_SUCCESS ||
	    crypto_hash_update(&h, p, psize) != TPM_RC_SUCCESS ||
	    crypto_hash_finish(&h, rp) != TPM_RC_SUCCESS ||
	    sess_hmac(s, rp, s->nonce_tpm, s->nonce_caller, attrs, want) < 0)
		return -1;
	if (!crypto_ct_equal(mac, want, 32)) {
		fprintf(stderr, "response HMAC does not verify (cc 0x%x)\n", cc);
		return -1;
	}
	*params = p;
	*plen = psize;
	return 0;
}

static int flush(struct conn *c, uint32_t handle)
{
	struct wbuf w;
	uint8_t rsp[BUF_CAP];
	size_t rlen;
	long rc;

	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_FLUSH_CONTEXT);
	w32(&w, handle);
	rc = run_cmd(c, &w, rsp, &rlen);
	return rc == 0 ? 0 : fail("FlushContext", rc);
}

static int context_load(struct conn *c, const struct null_key *k, uint32_t *handle)
{
	struct wbuf w;
	uint8_t rsp[BUF_CAP];
	size_t rlen;
	long rc;

	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_CONTEXT_LOAD);
	w_bytes(&w, k->ctx, k->ctxlen);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("ContextLoad", rc);
	if (rlen != 14)
		return fail("ContextLoad response", 0);
	*handle = bench_get32(rsp + 10);
	return 0;
}

static uint8_t pcr_expected[32];

static int pcr_extend(struct conn *c, struct sess *s, uint8_t fill)
{
	struct wbuf w;
	uint8_t params[4 + 2 + 32], rsp[BUF_CAP], buf[64];
	uint32_t pcr = PCR_INDEX;
	const uint8_t *rp;
	size_t rlen, rplen;
	long rc;

	bench_put32(params, 1);
	params[4] = (uint8_t)(TPM_ALG_SHA256 >> 8);
	params[5] = (uint8_t)TPM_ALG_SHA256;
	memset(params + 6, fill, 32);
	if (sess_command(&w, s, CC_PCR_EXTEND, &pcr, 1, params, sizeof(params),
			 ATTR_CONTINUE) < 0)
		return fail("PCR_Extend command", 0);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("PCR_Extend", rc);
	if (sess_response(s, CC_PCR_EXTEND, rsp, rlen, &rp, &rplen) < 0 || rplen != 0)
		return fail("PCR_Extend response session", 0);
	memcpy(buf, pcr_expected, 32);
	memset(buf + 32, fill, 32);
	return crypto_hash(TPM_ALG_SHA256, buf, 64, pcr_expected) == TPM_RC_SUCCESS ? 0 : -1;
}

static int get_random_encrypted(struct conn *c, struct sess *s)
{
	struct wbuf w;
	uint8_t params[2] = { 0, 32 }, rsp[BUF_CAP], kiv[32], data[32];
	const uint8_t *rp;
	size_t rlen, rplen;
	long rc;

	if (sess_command(&w, s, CC_GET_RANDOM, NULL, 0, params, sizeof(params),
			 ATTR_CONTINUE | ATTR_ENCRYPT) < 0)
		return fail("GetRandom command", 0);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("GetRandom", rc);
	if (sess_response(s, CC_GET_RANDOM, rsp, rlen, &rp, &rplen) < 0 || rplen != 2 + 32 ||
	    rp[0] != 0 || rp[1] != 32)
		return fail("GetRandom response session", 0);
	/* KDFa(SHA-256, sessionKey, "CFB", nonceTPM, nonceCaller): AES-128 key || IV */
	memcpy(data, rp + 2, 32);
	if (crypto_kdfa(TPM_ALG_SHA256, s->key, s->keylen, "CFB", s->nonce_tpm, NONCE,
			s->nonce_caller, NONCE, 256, kiv) != TPM_RC_SUCCESS ||
	    crypto_aes(TPM_ALG_CFB, false, kiv, 16, kiv + 16, data, data, 32) != TPM_RC_SUCCESS)
		return fail("GetRandom decryption", 0);
	return 0;
}

static int pcr_read(struct conn *c, uint8_t out[32])
{
	struct wbuf w;
	uint8_t rsp[BUF_CAP];
	struct rbuf r;
	const uint8_t *sel;
	size_t rlen, dlen;
	long rc;

	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_PCR_READ);
	w32(&w, 1);
	w16(&w, TPM_ALG_SHA256);
	w8(&w, 3);
	w8(&w, 0);
	w8(&w, 0);
	w8(&w, 1u << (PCR_INDEX % 8));
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("PCR_Read", rc);
	r_init(&r, rsp, rlen);
	r_view(&r, 10 + 4);	/* header, pcrUpdateCounter */
	if (r32(&r) != 1)
		return fail("PCR_Read selection", 0);
	r16(&r);			/* hash */
	sel = r_view(&r, 1);		/* sizeofSelect, then the bitmap */
	if (!sel)
		return fail("PCR_Read selection", 0);
	r_view(&r, *sel);
	if (r32(&r) != 1)
		return fail("PCR_Read digests", 0);
	r2b(&r, out, 32, &dlen);
	if (r.bad || dlen != 32)
		return fail("PCR_Read response", 0);
	return 0;
}

/* ---- setup: the kernel's null key ---- */

static int setup_null_key(struct conn *c, struct null_key *k)
{
	struct wbuf w;
	uint8_t rsp[BUF_CAP];
	struct rbuf r;
	size_t rlen, xl, yl, pos;
	uint32_t handle;
	long rc;

	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_STARTUP);
	w16(&w, TPM_SU_CLEAR);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0 && rc != RC_INITIALIZE)
		return fail("Startup", rc);

	cmd_begin(&w, TPM_ST_SESSIONS, CC_CREATE_PRIMARY);
	w32(&w, TPM_RH_NULL);
	w32(&w, 9);			/* password session, empty */
	w32(&w, TPM_RS_PW);
	w16(&w, 0);
	w8(&w, 0);
	w16(&w, 0);
	w16(&w, 4);			/* inSensitive: empty userAuth and data */
	w16(&w, 0);
	w16(&w, 0);
	pos = w.n;			/* inPublic: the kernel's null key template */
	w16(&w, 0);
	w16(&w, TPM_ALG_ECC);
	w16(&w, TPM_ALG_SHA256);
	w32(&w, TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
		   TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED |
		   TPMA_OBJECT_DECRYPT);
	w16(&w, 0);			/* authPolicy */
	w16(&w, TPM_ALG_AES);
	w16(&w, 128);
	w16(&w, TPM_ALG_CFB);
	w16(&w, TPM_ALG_NULL);		/* scheme */
	w16(&w, TPM_ECC_NIST_P256);
	w16(&w, TPM_ALG_NULL);		/* kdf */
	w16(&w, 0);			/* unique x, y */
	w16(&w, 0);
	if (w.overflow)
		return -1;
	w.b[pos] = (uint8_t)((w.n - pos - 2) >> 8);
	w.b[pos + 1] = (uint8_t)(w.n - pos - 2);
	w16(&w, 0);			/* outsideInfo */
	w32(&w, 0);			/* creationPCR */
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("CreatePrimary (null ECC P-256)", rc);
	r_init(&r, rsp, rlen);
	r_view(&r, 10);
	handle = r32(&r);
	r32(&r);			/* parameterSize */
	r16(&r);			/* outPublic size */
	r_view(&r, 2 + 2 + 4);		/* type, nameAlg, attributes */
	r_view(&r, r16(&r));		/* authPolicy */
	r_view(&r, 2 + 2 + 2 + 2 + 2 + 2); /* symmetric, scheme, curve, kdf (as sent) */
	r2b(&r, k->x, sizeof(k->x), &xl);
	r2b(&r, k->y, sizeof(k->y), &yl);
	if (r.bad || xl != 32 || yl != 32)
		return fail("CreatePrimary response", 0);

	cmd_begin(&w, TPM_ST_NO_SESSIONS, CC_CONTEXT_SAVE);
	w32(&w, handle);
	rc = run_cmd(c, &w, rsp, &rlen);
	if (rc != 0)
		return fail("ContextSave (null key)", rc);
	if (rlen - 10 > sizeof(k->ctx))
		return fail("ContextSave response", 0);
	k->ctxlen = rlen - 10;
	memcpy(k->ctx, rsp + 10, k->ctxlen);
	return flush(c, handle);
}

/* ---- the measurements ---- */

enum { ST_LOAD, ST_START, ST_FLUSH_KEY, ST_EXTEND, ST_FLUSH_SESS, ST_TOTAL, NSTEPS };

static const char *const step_key[NSTEPS] = {
	"kf_context_load", "kf_start_salted", "kf_flush_key", "kf_pcr_extend",
	"kf_flush_session", "kf_total",
};
static const char *const step_label[NSTEPS] = {
	"kernel flow: ContextLoad (null ECC P-256 key)",
	"kernel flow: StartAuthSession (ECC salt, AES-CFB)",
	"kernel flow: FlushContext (key)",
	"kernel flow: PCR_Extend (HMAC session)",
	"kernel flow: FlushContext (session)",
	"kernel flow: total",
};

static int kernel_flow_once(struct conn *c, const struct null_key *k, const struct salt *salt,
			    uint8_t fill, double t[NSTEPS])
{
	struct sess s;
	uint32_t key;
	double t0 = bench_now_us(), a = t0, b;

	if (context_load(c, k, &key) < 0)
		return -1;
	b = bench_now_us();
	t[ST_LOAD] = b - a;
	a = b;
	if (start_session(c, key, salt, &s) < 0)
		return -1;
	b = bench_now_us();
	t[ST_START] = b - a;
	a = b;
	if (flush(c, key) < 0)
		return -1;
	b = bench_now_us();
	t[ST_FLUSH_KEY] = b - a;
	a = b;
	if (pcr_extend(c, &s, fill) < 0)
		return -1;
	b = bench_now_us();
	t[ST_EXTEND] = b - a;
	a = b;
	if (flush(c, s.handle) < 0)
		return -1;
	b = bench_now_us();
	t[ST_FLUSH_SESS] = b - a;
	t[ST_TOTAL] = b - t0;
	return 0;
}

static void bench_kernel_flow(struct conn *c, const struct null_key *k, int iters, long pid)
{
	double cpu0, cpu1;
	double *t[NSTEPS], *prep = calloc((size_t)iters, sizeof(double)), start, one[NSTEPS];
	struct salt salt;
	int i, s, done = 0, ok = prep != NULL;

	for (s = 0; s < NSTEPS; s++) {
		t[s] = calloc((size_t)iters, sizeof(double));
		ok = ok && t[s];
	}
	for (i = 0; ok && i < 10; i++) /* warm-up */
		ok = prepare_salt(k, &salt) == 0 &&
		     kernel_flow_once(c, k, &salt, (uint8_t)i, one) == 0;
	cpu0 = server_cpu_ns(pid);
	start = bench_now_us();
	for (i = 0; ok && i < iters && bench_now_us() - start < MAX_SECONDS * 1e6; i++) {
		double p0 = bench_now_us();

		if (prepare_salt(k, &salt) < 0) {
			fail("client salt (ECDH, KDFe)", 0);
			break;
		}
		prep[done] = bench_now_us() - p0;
		if (kernel_flow_once(c, k, &salt, (uint8_t)(0x80 + i), one) < 0)
			break;
		for (s = 0; s < NSTEPS; s++)
			t[s][done] = one[s];
		done++;
	}
	cpu1 = server_cpu_ns(pid);
	if (done < iters)
		bench_errors++;
	for (s = 0; s < NSTEPS; s++) {
		bench_report(step_key[s], step_label[s], 52, t[s], done);
		free(t[s]);
	}
	if (done > 0) {
		printf("  (client, not in the figures: ephemeral ECDH + KDFe for the salt, median %.1f us)\n",
		       bench_median(prep, done));
	}
	if (done > 0 && cpu0 >= 0 && cpu1 >= cpu0) {
		const char *label = "kernel flow: server CPU time per flow";

		printf("%-52s mean   %8.1f us\n", label, (cpu1 - cpu0) / 1e3 / done);
		printf("RESULT\tkf_server_cpu\t%s\tus\t%.1f\t-\t%d\n", label,
		       (cpu1 - cpu0) / 1e3 / done, done);
	}
	free(prep);
}

static void bench_unsalted(struct conn *c, int iters)
{
	double *t = calloc((size_t)iters, sizeof(double)), start;
	struct sess s;
	int i, done = 0, ok = t != NULL;

	for (i = 0; ok && i < 10; i++)
		ok = start_session(c, 0, NULL, &s) == 0 && flush(c, s.handle) == 0;
	start = bench_now_us();
	for (i = 0; ok && i < iters && bench_now_us() - start < MAX_SECONDS * 1e6; i++) {
		double t0 = bench_now_us();

		if (start_session(c, 0, NULL, &s) < 0 || flush(c, s.handle) < 0)
			break;
		t[done++] = bench_now_us() - t0;
	}
	if (done < iters)
		bench_errors++;
	bench_report("sas_unsalted", "StartAuthSession unsalted + FlushContext", 52, t, done);
	free(t);
}

static void bench_getrandom_encrypted(struct conn *c, const struct null_key *k, int iters)
{
	double *t = calloc((size_t)iters, sizeof(double)), start;
	struct salt salt;
	struct sess s;
	uint32_t key;
	int i, done = 0, ok = t != NULL, started = 0;

	ok = ok && prepare_salt(k, &salt) == 0 && context_load(c, k, &key) == 0;
	if (ok) {
		started = start_session(c, key, &salt, &s) == 0;
		ok = flush(c, key) == 0 && started;
	}
	for (i = 0; ok && i < 10; i++)
		ok = get_random_encrypted(c, &s) == 0;
	start = bench_now_us();
	for (i = 0; ok && i < iters && bench_now_us() - start < MAX_SECONDS * 1e6; i++) {
		double t0 = bench_now_us();

		if (get_random_encrypted(c, &s) < 0)
			break;
		t[done++] = bench_now_us() - t0;
	}
	if (started)
		flush(c, s.handle);
	if (done < iters)
		bench_errors++;
	bench_report("getrandom_enc", "GetRandom(32), salted encrypt session", 52, t, done);
	free(t);
}

static void run_all(struct conn *c, const struct null_key *k, int iters, long pid)
{
	uint8_t pcr[32];

	bench_kernel_flow(c, k, iters, pid);
	bench_unsalted(c, iters);
	bench_getrandom_encrypted(c, k, iters);
	if (pcr_read(c, pcr) < 0)
		return;
	if (memcmp(pcr, pcr_expected, 32) == 0) {
		printf("PCR 16 has the value computed by the client\n");
	} else {
		printf("PCR 16 differs from the value computed by the client\n");
		bench_errors++;
	}
}

int main(int argc, char **argv)
{
	const char *q = getenv("BENCH_QUICK"), *pid_env = getenv("BENCH_SERVER_PID");
	int quick = q && *q && strcmp(q, "0") != 0;
	int iters = quick ? 100 : 500;
	static struct null_key k;
	struct conn c;

	memset(&c, 0, sizeof(c));
	c.net.fd = -1;
	if (argc == 2 && !strcmp(argv[1], "engine")) {
		struct pqtpm_engine_config cfg = { .state_dir = NULL, .auto_startup = 1,
						   .log_level = PQTPM_LOG_WARN };
		char err[256];

		if (pqtpm_engine_open(&c.engine, &cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "engine: %s\n", err);
			return 1;
		}
		c.client = pqtpm_client_new(c.engine);
		if (!c.client) {
			pqtpm_engine_close(c.engine);
			return 1;
		}
		pid_env = NULL;
		printf("kernel_flow: in-process pqtpm engine, %d iterations; client: own, crypto "
		       "from libpqtpm core/crypto (wolfSSL), every response HMAC verified\n", iters);
	} else if (argc == 4 && (!strcmp(argv[1], "mssim") || !strcmp(argv[1], "raw")) &&
		   atoi(argv[3]) > 0 && atoi(argv[3]) <= 65535) {
		printf("kernel_flow: %s %s:%s, %d iterations; client: own raw socket client, crypto "
		       "from libpqtpm core/crypto (wolfSSL), every response HMAC verified\n",
		       argv[1], argv[2], argv[3], iters);
		if (bench_connect(&c.net, argv[2], (unsigned)atoi(argv[3]),
				  !strcmp(argv[1], "mssim")) < 0)
			return 1;
	} else {
		fprintf(stderr, "usage: %s mssim|raw HOST PORT\n       %s engine\n", argv[0],
			argv[0]);
		return 2;
	}
	if (setup_null_key(&c, &k) == 0 && pcr_read(&c, pcr_expected) == 0)
		run_all(&c, &k, iters, pid_env ? atol(pid_env) : 0);
	bench_close(&c.net);
	if (c.client)
		pqtpm_client_free(c.client);
	if (c.engine)
		pqtpm_engine_close(c.engine);
	crypto_thread_cleanup();
	crypto_cleanup();
	return bench_errors ? 1 : 0;
}
