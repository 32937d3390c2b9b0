/* Many clients of one TPM at once, every answer checked (issue 14).
 *
 *   stress TCTI      8 clients, one thread each, over the transport (mssim:host=H,port=P)
 *   stress engine    4 threads, each a client of one in-process engine (state in a temp dir)
 *
 * Each client runs ROUNDS rounds; what a round does comes from a generator seeded with
 * STRESS_SEED (default 1) and the client's number, so a run's mix is the same every time
 * (its interleaving is not). STRESS_ROUNDS overrides the rounds (default 40). The mix:
 *   - Sign with one of three shared persistent keys (ECDSA P-256, RSASSA-2048, ML-DSA-65
 *     through a sign sequence), verified here against the keys that handle ever held;
 *   - EvictControl of a shared key, then CreatePrimary and EvictControl to make it persistent
 *     again (while the others sign with it);
 *   - a key generation (ECC P-256, ML-DSA-65 or RSA-2048, a template of its own: a primary
 *     cache miss), a signature with it, ContextSave, FlushContext, ContextLoad, another
 *     signature, FlushContext;
 *   - PCR_Extend of the client's own PCR (PCR 8 + its number), each value it takes kept;
 *   - Quote of its own PCR and another client's with a shared key: the signature verified,
 *     the digest that of the client's own PCR's value and a value the other PCR had while
 *     the quote ran;
 *   - NV_Write of the client's slot of a shared index and NV_Read of it back;
 *   - an HMAC session started, context-saved, loaded again and flushed; GetRandom;
 *   - client 0, twice a run: Clear, then the owner hierarchy made again (the three keys, the
 *     index).
 * An error passes only where it is what a TPM answers to what another client did meanwhile
 * (a key evicted or cleared: TPM_RC_HANDLE, TPM_RC_REFERENCE_H0 ...; TPM_RC_RETRY), which
 * the clients note around what they do. At the end no client has a transient object or a
 * session left (GetCapability), the shared keys are those made last, and they and the index
 * are removed, leaving nothing. Prints a line per client and per failure, then
 * `N passed, M failed` (N: the answers checked). */
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#include "common/sig_check.h"
#include "crypto/crypto.h"

#define MSSIM_CLIENTS 8
#define ENGINE_CLIENTS 4
#define MAX_CLIENTS 8
#define DEFAULT_ROUNDS 40
#define MAX_ROUNDS 1000
#define CLEARS 2		/* by client 0, evenly spread over its rounds */
#define SHARED_KEYS 3
#define KEY_BASE 0x81000A50u	/* the shared keys' persistent handles, one after another */
#define MAX_KEY_HISTORY 8	/* keys a handle held: one per Clear, and the first */
#define NV_INDEX 0x01000A50u
#define NV_SLOT 16		/* bytes of the index each client owns */
#define PCR_BASE 8		/* client i alone extends PCR 8 + i */
#define DIGEST 32		/* SHA-256 */

struct shared_key {
	const char *name;
	struct pqtpm_tss_template tmpl;
	TPM_HANDLE handle;
	pthread_mutex_t cycle; /* one evict-and-make-again at a time, none during a Clear */
	atomic_uint gen;       /* odd while it may be missing (an eviction or Clear under way) */
	pthread_mutex_t lock;  /* the history below */
	unsigned n;
	struct pqtpm_tss_public hist[MAX_KEY_HISTORY];
};

#define SIGN_ATTRS                                                                              \
	(TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |            \
	 TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA)

static struct shared_key keys[SHARED_KEYS] = {
	{ "ECDSA P-256",
	  { .type = TPM_ALG_ECC, .attributes = SIGN_ATTRS, .scheme = TPM_ALG_ECDSA,
	    .scheme_hash = TPM_ALG_SHA256 },
	  KEY_BASE, PTHREAD_MUTEX_INITIALIZER, 0, PTHREAD_MUTEX_INITIALIZER, 0, { { 0 } } },
	{ "RSASSA-2048",
	  { .type = TPM_ALG_RSA, .attributes = SIGN_ATTRS, .scheme = TPM_ALG_RSASSA,
	    .scheme_hash = TPM_ALG_SHA256 },
	  KEY_BASE + 1, PTHREAD_MUTEX_INITIALIZER, 0, PTHREAD_MUTEX_INITIALIZER, 0, { { 0 } } },
	{ "ML-DSA-65",
	  { .type = TPM_ALG_MLDSA, .attributes = SIGN_ATTRS, .parameter_set = TPM_MLDSA_65 },
	  KEY_BASE + 2, PTHREAD_MUTEX_INITIALIZER, 0, PTHREAD_MUTEX_INITIALIZER, 0, { { 0 } } },
};

/* The run: its shape, what the clients share, the verdicts. */
static const char *tcti;	       /* NULL: in process */
static struct pqtpm_engine *engine;
static unsigned nclients, rounds;
static uint64_t seed = 1;
static atomic_uint clear_gen;	       /* odd while a Clear and the making again run */
static pthread_mutex_t pcr_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned pcr_n[MAX_CLIENTS];    /* values each client's PCR took so far */
static uint8_t (*pcr_hist[MAX_CLIENTS])[DIGEST];
static atomic_uint passed, failed;
static pthread_barrier_t start_line;

enum op { OP_SIGN, OP_EVICT, OP_KEYGEN, OP_EXTEND, OP_QUOTE, OP_NV, OP_SESSION, OP_RANDOM,
	  OP_CLEAR, OPS };
static const char *const op_name[OPS] = { "sign", "evict", "keygen", "extend", "quote",
					  "nv", "session", "random", "clear" };

struct client {
	unsigned id, round;
	uint64_t rng;
	struct pqtpm_tss *t;
	unsigned done[OPS], excused[OPS]; /* ops run; answers that were errors a peer caused */
	unsigned skipped;		  /* evictions left to another client already at it */
};

static __attribute__((format(printf, 2, 3))) void fail(struct client *c, const char *fmt, ...)
{
	va_list ap;
	char line[512];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c)
		printf("FAIL client %u round %u: %s\n", c->id, c->round, line);
	else
		printf("FAIL %s\n", line);
	atomic_fetch_add(&failed, 1);
}

static void pass(void)
{
	atomic_fetch_add(&passed, 1);
}

/* A failed check: counts and says which; a passed one only counts. */
static bool check(struct client *c, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool check(struct client *c, bool ok, const char *fmt, ...)
{
	va_list ap;
	char line[400];

	if (ok) {
		pass();
		return true;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fail(c, "%s", line);
	return false;
}

static const char *rc_text(TPM_RC rc)
{
	static _Thread_local char buf[160];

	return pqtpm_tss_rc_decode(rc, buf, sizeof(buf));
}

/* ---- the mix's generator (xorshift64*) ---- */

static uint32_t next(struct client *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (uint32_t)((c->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void fill(struct client *c, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)next(c);
}

/* ---- what another client may have done meanwhile ---- */

/* A window over one operation: a peer's act that began before its end and was not over
 * before its start shows as a count that was odd at either end, or moved. */
struct window {
	unsigned clear, key;
};

static struct window window_open(const struct shared_key *k)
{
	return (struct window){ atomic_load(&clear_gen), k ? atomic_load(&k->gen) : 0 };
}

static bool moved(unsigned before, unsigned after)
{
	return (before & 1) || before != after;
}

static bool cleared_meanwhile(struct window w)
{
	return moved(w.clear, atomic_load(&clear_gen));
}

static bool key_gone_meanwhile(struct window w, const struct shared_key *k)
{
	return cleared_meanwhile(w) || moved(w.key, atomic_load(&k->gen));
}

/* What a TPM answers a command whose object, index or hierarchy's seed went away. */
static bool gone_rc(TPM_RC rc)
{
	TPM_RC base = rc & TPM_RC_FMT1 ? rc & (TPM_RC_FMT1 | 0x3F) : rc;

	return base == TPM_RC_HANDLE || base == TPM_RC_INTEGRITY || base == TPM_RC_HIERARCHY ||
	       (rc >= TPM_RC_REFERENCE_H0 && rc <= TPM_RC_REFERENCE_H0 + 6) ||
	       rc == TPM_RC_NV_UNINITIALIZED;
}

/* An error answer: passes (counted as excused) if it is TPM_RC_RETRY, or one of gone_rc's
 * while `explained` (a peer removed what the command used). */
static void judge(struct client *c, enum op op, const char *what, TPM_RC rc, bool explained)
{
	if (rc == TPM_RC_RETRY || (explained && gone_rc(rc))) {
		c->excused[op]++;
		pass();
		return;
	}
	fail(c, "%s: %s%s", what, rc_text(rc), explained ? "" : " (nothing removed it meanwhile)");
}

/* ---- the shared keys ---- */

static bool same_public(const struct pqtpm_tss_public *a, const struct pqtpm_tss_public *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

/* Noted before it is made persistent, so that no signature can come from a key the clients
 * do not know yet. */
static bool key_note(struct shared_key *k, const struct pqtpm_tss_public *pub)
{
	bool ok = true, known = false;

	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < k->n; i++)
		known |= same_public(&k->hist[i], pub);
	if (!known && k->n < MAX_KEY_HISTORY)
		k->hist[k->n++] = *pub;
	else if (!known)
		ok = false;
	pthread_mutex_unlock(&k->lock);
	return ok;
}

/* Does sig verify with one of the keys the handle held: over msg (ML-DSA, quotes), or over
 * digest (ECDSA, RSASSA)? */
static bool key_verifies(struct shared_key *k, const uint8_t *msg, size_t len,
			 const uint8_t *digest, const struct pqtpm_tss_signature *sig)
{
	bool ok = false;

	pthread_mutex_lock(&k->lock);
	for (unsigned i = 0; i < k->n && !ok; i++)
		ok = digest ? sig_check_digest(&k->hist[i], digest, DIGEST, sig)
			    : sig_check_message(&k->hist[i], msg, len, NULL, 0, sig);
	pthread_mutex_unlock(&k->lock);
	return ok;
}

/* CreatePrimary of the key's template, noted, made persistent, the transient copy flushed. */
static bool key_make(struct client *c, struct shared_key *k)
{
	static _Thread_local struct pqtpm_tss_key made;
	static _Thread_local struct pqtpm_tss_public tmpl;
	TPM_RC rc;

	if (!check(c, pqtpm_tss_template_public(&k->tmpl, &tmpl) == TPM_RC_SUCCESS,
		   "%s template", k->name))
		return false;
	rc = pqtpm_tss_create_primary(c->t, TPM_RH_OWNER, "", &tmpl, "", &made);
	if (!check(c, rc == TPM_RC_SUCCESS, "CreatePrimary %s: %s", k->name, rc_text(rc)))
		return false;
	check(c, key_note(k, &made.pub), "%s: more than %d keys", k->name, MAX_KEY_HISTORY);
	rc = pqtpm_tss_evict_control(c->t, TPM_RH_OWNER, "", made.handle, k->handle);
	check(c, rc == TPM_RC_SUCCESS, "EvictControl %s to 0x%08x: %s", k->name, k->handle,
	      rc_text(rc));
	rc = pqtpm_tss_flush(c->t, made.handle);
	return check(c, rc == TPM_RC_SUCCESS, "FlushContext of %s: %s", k->name, rc_text(rc));
}

static TPM_RC nv_define(struct pqtpm_tss *t)
{
	struct pqtpm_tss_nv_public nv = {
		.index = NV_INDEX,
		.attributes = TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA,
		.data_size = (uint16_t)(NV_SLOT * nclients),
	};

	return pqtpm_tss_nv_define_space(t, TPM_RH_OWNER, "", "", &nv);
}

/* ---- the operations ---- */

static void sha256(const uint8_t *m, size_t len, uint8_t *out)
{
	crypto_hash(TPM_ALG_SHA256, m, len, out);
}

static void op_sign(struct client *c)
{
	static _Thread_local struct pqtpm_tss_signature sig;
	struct shared_key *k = &keys[next(c) % SHARED_KEYS];
	uint8_t msg[100], digest[DIGEST];
	struct window w = window_open(k);
	TPM_RC rc;

	fill(c, msg, sizeof(msg));
	sha256(msg, sizeof(msg), digest);
	if (k->tmpl.type == TPM_ALG_MLDSA)
		rc = pqtpm_tss_sign_message(c->t, k->handle, "", NULL, 0, msg, sizeof(msg), &sig);
	else
		rc = pqtpm_tss_sign(c->t, k->handle, "", digest, DIGEST, TPM_ALG_NULL, TPM_ALG_NULL,
				    NULL, &sig);
	if (rc != TPM_RC_SUCCESS)
		judge(c, OP_SIGN, k->name, rc, key_gone_meanwhile(w, k));
	else
		check(c, key_verifies(k, msg, sizeof(msg),
				      k->tmpl.type == TPM_ALG_MLDSA ? NULL : digest, &sig),
		      "%s signature does not verify with any key 0x%08x held", k->name, k->handle);
}

static void op_evict(struct client *c)
{
	struct shared_key *k = &keys[next(c) % SHARED_KEYS];
	TPM_RC rc;

	if (pthread_mutex_trylock(&k->cycle) != 0) {
		c->skipped++;
		return;
	}
	atomic_fetch_add(&k->gen, 1);
	rc = pqtpm_tss_evict_control(c->t, TPM_RH_OWNER, "", k->handle, k->handle);
	if (check(c, rc == TPM_RC_SUCCESS, "EvictControl of %s at 0x%08x: %s", k->name,
		  k->handle, rc_text(rc)))
		key_make(c, k);
	atomic_fetch_add(&k->gen, 1);
	pthread_mutex_unlock(&k->cycle);
}

/* A signature with a key of the client's own, checked with its public area. */
static bool own_sign(struct client *c, TPM_HANDLE h, const struct pqtpm_tss_public *pub,
		     struct window w, const char *what)
{
	static _Thread_local struct pqtpm_tss_signature sig;
	uint8_t msg[64], digest[DIGEST];
	TPM_RC rc;
	bool mldsa = pqtpm_tss_public_type(pub) == TPM_ALG_MLDSA;

	fill(c, msg, sizeof(msg));
	sha256(msg, sizeof(msg), digest);
	rc = mldsa ? pqtpm_tss_sign_message(c->t, h, "", NULL, 0, msg, sizeof(msg), &sig)
		   : pqtpm_tss_sign(c->t, h, "", digest, DIGEST, TPM_ALG_NULL, TPM_ALG_NULL, NULL,
				    &sig);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_KEYGEN, what, rc, cleared_meanwhile(w));
		return false;
	}
	return check(c, mldsa ? sig_check_message(pub, msg, sizeof(msg), NULL, 0, &sig)
			      : sig_check_digest(pub, digest, DIGEST, &sig),
		     "%s: the signature does not verify with the key made", what);
}

/* A key of a template no one else uses (its own authPolicy): a primary-cache miss. */
static void op_keygen(struct client *c)
{
	static _Thread_local struct pqtpm_tss_public tmpl;
	static _Thread_local struct pqtpm_tss_key key;
	static _Thread_local struct pqtpm_tss_saved saved;
	uint8_t policy[DIGEST];
	unsigned pick = next(c) % 20;
	struct pqtpm_tss_template tm = { .type = TPM_ALG_ECC, .attributes = SIGN_ATTRS,
					 .scheme = TPM_ALG_ECDSA, .scheme_hash = TPM_ALG_SHA256,
					 .policy = policy, .policy_len = sizeof(policy) };
	struct window w = window_open(NULL);
	TPM_HANDLE again;
	TPM_RC rc;

	if (pick >= 10) {
		tm = (struct pqtpm_tss_template){ .type = TPM_ALG_MLDSA, .attributes = SIGN_ATTRS,
						  .parameter_set = TPM_MLDSA_65, .policy = policy,
						  .policy_len = sizeof(policy) };
	} else if (pick == 0) {
		tm.type = TPM_ALG_RSA;
		tm.scheme = TPM_ALG_RSASSA;
	}
	fill(c, policy, sizeof(policy));
	if (!check(c, pqtpm_tss_template_public(&tm, &tmpl) == TPM_RC_SUCCESS, "template"))
		return;
	rc = pqtpm_tss_create_primary(c->t, TPM_RH_OWNER, "", &tmpl, "", &key);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_KEYGEN, "CreatePrimary", rc, cleared_meanwhile(w));
		return;
	}
	pass();
	if (!own_sign(c, key.handle, &key.pub, w, "sign with a new key"))
		goto flush;
	rc = pqtpm_tss_context_save(c->t, key.handle, &saved);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_KEYGEN, "ContextSave", rc, cleared_meanwhile(w));
		goto flush;
	}
	pass();
	rc = pqtpm_tss_flush(c->t, key.handle);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_KEYGEN, "FlushContext", rc, cleared_meanwhile(w));
		return;
	}
	pass();
	rc = pqtpm_tss_context_load(c->t, &saved, &again);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_KEYGEN, "ContextLoad", rc, cleared_meanwhile(w));
		return;
	}
	pass();
	key.handle = again;
	own_sign(c, key.handle, &key.pub, w, "sign with a key loaded again");
flush:
	/* gone with a Clear meanwhile, else it must go now */
	rc = pqtpm_tss_flush(c->t, key.handle);
	if (rc != TPM_RC_SUCCESS)
		judge(c, OP_KEYGEN, "FlushContext", rc, cleared_meanwhile(w));
	else
		pass();
}

static void pcr_value(unsigned id, unsigned i, uint8_t *out)
{
	pthread_mutex_lock(&pcr_lock);
	memcpy(out, pcr_hist[id][i], DIGEST);
	pthread_mutex_unlock(&pcr_lock);
}

static unsigned pcr_count(unsigned id)
{
	unsigned n;

	pthread_mutex_lock(&pcr_lock);
	n = pcr_n[id];
	pthread_mutex_unlock(&pcr_lock);
	return n;
}

static void op_extend(struct client *c)
{
	uint8_t d[DIGEST], both[2 * DIGEST];
	unsigned n = pcr_count(c->id);
	TPM_RC rc;

	fill(c, d, sizeof(d));
	pcr_value(c->id, n - 1, both);
	memcpy(both + DIGEST, d, DIGEST);
	/* the value is noted before it exists: a quote that sees it finds it */
	pthread_mutex_lock(&pcr_lock);
	sha256(both, sizeof(both), pcr_hist[c->id][n]);
	pcr_n[c->id]++;
	pthread_mutex_unlock(&pcr_lock);
	rc = pqtpm_tss_pcr_extend(c->t, PCR_BASE + c->id, TPM_ALG_SHA256, d, DIGEST);
	check(c, rc == TPM_RC_SUCCESS, "PCR_Extend of PCR %u: %s", PCR_BASE + c->id, rc_text(rc));
}

/* Is digest H(value of PCR lo || value of PCR hi) for the client's own current value and one
 * the other client's PCR had between `from` and `to` (history indices)? */
static bool quote_digest_ok(struct client *c, unsigned other, unsigned from, unsigned to,
			    const struct pqtpm_tss_digest *digest)
{
	uint8_t both[2 * DIGEST], want[DIGEST];
	unsigned own_at = c->id < other ? 0 : DIGEST, other_at = DIGEST - own_at;

	if (digest->size != DIGEST)
		return false;
	pcr_value(c->id, pcr_count(c->id) - 1, both + own_at);
	for (unsigned i = from; i <= to; i++) {
		pcr_value(other, i, both + other_at);
		sha256(both, sizeof(both), want);
		if (memcmp(want, digest->b, DIGEST) == 0)
			return true;
	}
	return false;
}

static void op_quote(struct client *c)
{
	static _Thread_local struct pqtpm_tss_attest quoted;
	static _Thread_local struct pqtpm_tss_signature sig;
	struct shared_key *k = &keys[next(c) % SHARED_KEYS];
	unsigned other = (c->id + 1 + next(c) % (nclients - 1)) % nclients, before, after;
	struct pqtpm_tss_pcr_select sel = {
		TPM_ALG_SHA256, 1u << (PCR_BASE + c->id) | 1u << (PCR_BASE + other)
	}, got;
	struct pqtpm_tss_attest_info info;
	struct pqtpm_tss_digest digest;
	struct window w = window_open(k);
	uint8_t nonce[16];
	size_t nsel = 0;
	TPM_RC rc;

	fill(c, nonce, sizeof(nonce));
	before = pcr_count(other);
	rc = pqtpm_tss_quote(c->t, k->handle, "", nonce, sizeof(nonce), TPM_ALG_NULL,
			     TPM_ALG_NULL, &sel, 1, &quoted, &sig);
	after = pcr_count(other);
	if (rc != TPM_RC_SUCCESS) {
		judge(c, OP_QUOTE, k->name, rc, key_gone_meanwhile(w, k));
		return;
	}
	check(c, key_verifies(k, quoted.b, quoted.size, NULL, &sig),
	      "quote by %s: the signature does not verify with any key 0x%08x held", k->name,
	      k->handle);
	if (!check(c, pqtpm_tss_attest_parse(&quoted, &info) == TPM_RC_SUCCESS &&
			      pqtpm_tss_quote_info(&info, &got, 1, &nsel, &digest) ==
				      TPM_RC_SUCCESS,
		   "quote by %s does not parse", k->name))
		return;
	check(c, info.magic == TPM_GENERATED_VALUE && info.type == TPM_ST_ATTEST_QUOTE &&
			 info.extra_size == sizeof(nonce) &&
			 memcmp(info.extra, nonce, sizeof(nonce)) == 0 && nsel == 1 &&
			 got.hash == sel.hash && got.pcrs == sel.pcrs,
	      "quote by %s: magic 0x%08x, type 0x%04x, its nonce or selection not ours", k->name,
	      info.magic, info.type);
	check(c, quote_digest_ok(c, other, before >= 2 ? before - 2 : 0, after - 1, &digest),
	      "quote of PCRs %u and %u: a digest of values they never had at once (PCR %u: "
	      "values %u to %u)",
	      PCR_BASE + c->id, PCR_BASE + other, PCR_BASE + other, before >= 2 ? before - 2 : 0,
	      after - 1);
}

static void op_nv(struct client *c)
{
	uint8_t data[NV_SLOT], back[NV_SLOT];
	uint16_t offset = (uint16_t)(c->id * NV_SLOT);
	struct window w = window_open(NULL);
	TPM_RC rc;

	fill(c, data, sizeof(data));
	rc = pqtpm_tss_nv_write(c->t, NV_INDEX, "", NV_INDEX, offset, data, sizeof(data));
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_nv_read(c->t, NV_INDEX, "", NV_INDEX, offset, back, sizeof(back));
	if (rc != TPM_RC_SUCCESS)
		judge(c, OP_NV, "NV_Write, NV_Read", rc, cleared_meanwhile(w));
	else if (memcmp(data, back, sizeof(data)) != 0 && cleared_meanwhile(w)) {
		c->excused[OP_NV]++;
		pass();
	} else {
		check(c, memcmp(data, back, sizeof(data)) == 0,
		      "NV_Read of slot %u: not what the client wrote", c->id);
	}
}

static void op_session(struct client *c)
{
	static _Thread_local struct pqtpm_tss_saved saved;
	struct pqtpm_tss_digest nonce;
	TPM_HANDLE h, again;
	TPM_RC rc;

	rc = pqtpm_tss_start_auth_session(c->t, TPM_SE_HMAC, TPM_ALG_SHA256, &h, &nonce);
	if (!check(c, rc == TPM_RC_SUCCESS, "StartAuthSession: %s", rc_text(rc)))
		return;
	rc = pqtpm_tss_context_save(c->t, h, &saved);
	if (check(c, rc == TPM_RC_SUCCESS, "ContextSave of a session: %s", rc_text(rc))) {
		rc = pqtpm_tss_context_load(c->t, &saved, &again);
		check(c, rc == TPM_RC_SUCCESS && again == h, "ContextLoad of a session: %s",
		      rc_text(rc));
	}
	rc = pqtpm_tss_flush(c->t, h);
	check(c, rc == TPM_RC_SUCCESS, "FlushContext of a session: %s", rc_text(rc));
}

static void op_random(struct client *c)
{
	uint8_t r[32];
	TPM_RC rc = pqtpm_tss_get_random(c->t, r, sizeof(r));

	check(c, rc == TPM_RC_SUCCESS, "GetRandom: %s", rc_text(rc));
}

/* Clear, then the owner hierarchy as the clients use it: the shared keys and the index. */
static void op_clear(struct client *c)
{
	TPM_RC rc;

	for (unsigned i = 0; i < SHARED_KEYS; i++)
		pthread_mutex_lock(&keys[i].cycle);
	atomic_fetch_add(&clear_gen, 1);
	rc = pqtpm_tss_clear(c->t, TPM_RH_LOCKOUT, "");
	if (check(c, rc == TPM_RC_SUCCESS, "Clear: %s", rc_text(rc))) {
		for (unsigned i = 0; i < SHARED_KEYS; i++)
			key_make(c, &keys[i]);
		rc = nv_define(c->t);
		check(c, rc == TPM_RC_SUCCESS, "NV_DefineSpace after Clear: %s", rc_text(rc));
	}
	atomic_fetch_add(&clear_gen, 1);
	for (unsigned i = SHARED_KEYS; i-- > 0;)
		pthread_mutex_unlock(&keys[i].cycle);
}

/* What round r of client c does: client 0 clears at its CLEARS evenly spread rounds. */
static enum op pick(struct client *c)
{
	static const struct {
		enum op op;
		unsigned weight;
	} mix[] = { { OP_SIGN, 28 }, { OP_EVICT, 8 },   { OP_KEYGEN, 14 }, { OP_EXTEND, 15 },
		    { OP_QUOTE, 15 }, { OP_NV, 10 },     { OP_SESSION, 5 }, { OP_RANDOM, 5 } };
	unsigned x = next(c) % 100;

	if (c->id == 0 && rounds > CLEARS && (c->round + 1) % (rounds / (CLEARS + 1)) == 0 &&
	    (c->round + 1) / (rounds / (CLEARS + 1)) <= CLEARS)
		return OP_CLEAR;
	for (unsigned i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		if (x < mix[i].weight)
			return mix[i].op;
		x -= mix[i].weight;
	}
	return OP_RANDOM;
}

static void (*const run_op[OPS])(struct client *) = {
	op_sign, op_evict, op_keygen, op_extend, op_quote, op_nv, op_session, op_random, op_clear,
};

/* How many handles of first's type (TPM_HR_*) the client sees; UINT32_MAX if it cannot ask. */
static uint32_t handles(struct pqtpm_tss *t, uint32_t first, uint32_t last)
{
	uint8_t data[4 * 256];
	size_t len;
	uint32_t count;

	if (pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, first, last, 0, data, sizeof(data),
					 &len, &count) != TPM_RC_SUCCESS)
		return UINT32_MAX;
	return count;
}

static int open_client(struct pqtpm_tss **t)
{
	return tcti ? pqtpm_tss_open_tcti(t, tcti) : pqtpm_tss_open_engine(t, engine);
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	int rc = open_client(&c->t);

	pthread_barrier_wait(&start_line);
	if (rc != 0) {
		fail(c, "cannot connect: %d", rc);
		return NULL;
	}
	for (c->round = 0; c->round < rounds; c->round++) {
		enum op op = pick(c);

		c->done[op]++;
		run_op[op](c);
	}
	check(c, handles(c->t, TPM_HR_TRANSIENT, TPM_HR_TRANSIENT | 0xFFFFFF) == 0,
	      "transient objects left");
	check(c, handles(c->t, TPM_HR_HMAC_SESSION, TPM_HR_POLICY_SESSION | 0xFFFFFF) == 0,
	      "sessions left");
	pqtpm_tss_close(c->t);
	return NULL;
}

/* Before the clients: the TPM started, the shared keys and the index made, the PCRs' values. */
static bool prepare(struct pqtpm_tss *t)
{
	struct client setup = { .id = 0, .t = t };
	size_t len;
	TPM_RC rc;

	if (tcti && !check(NULL, pqtpm_tss_power_on(t) == 0 && pqtpm_tss_startup(t, TPM_SU_CLEAR) ==
								   TPM_RC_SUCCESS,
			   "power on and Startup(CLEAR)"))
		return false;
	for (unsigned i = 0; i < SHARED_KEYS; i++)
		if (!key_make(&setup, &keys[i]))
			return false;
	rc = nv_define(t);
	if (!check(NULL, rc == TPM_RC_SUCCESS, "NV_DefineSpace: %s", rc_text(rc)))
		return false;
	for (unsigned i = 0; i < nclients; i++) {
		pcr_hist[i] = calloc(rounds + 1, DIGEST);
		if (!pcr_hist[i])
			return false;
		rc = pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, 1u << (PCR_BASE + i), pcr_hist[i][0],
					DIGEST, &len);
		if (!check(NULL, rc == TPM_RC_SUCCESS && len == DIGEST, "PCR_Read of PCR %u: %s",
			   PCR_BASE + i, rc_text(rc)))
			return false;
		pcr_n[i] = 1;
	}
	return true;
}

/* After the clients: the keys are the last ones made, then nothing of the run is left. */
static void wind_up(struct pqtpm_tss *t)
{
	static struct pqtpm_tss_public pub;
	struct pqtpm_tss_name name;
	TPM_RC rc;

	check(NULL, handles(t, KEY_BASE, KEY_BASE + SHARED_KEYS - 1) == SHARED_KEYS,
	      "the %d shared keys are persistent", SHARED_KEYS);
	for (unsigned i = 0; i < SHARED_KEYS; i++) {
		struct shared_key *k = &keys[i];

		rc = pqtpm_tss_read_public(t, k->handle, &pub, &name);
		check(NULL, rc == TPM_RC_SUCCESS && same_public(&pub, &k->hist[k->n - 1]),
		      "0x%08x holds the %s key made last: %s", k->handle, k->name, rc_text(rc));
		rc = pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", k->handle, k->handle);
		check(NULL, rc == TPM_RC_SUCCESS, "EvictControl of %s: %s", k->name, rc_text(rc));
	}
	rc = pqtpm_tss_nv_undefine_space(t, TPM_RH_OWNER, "", NV_INDEX);
	check(NULL, rc == TPM_RC_SUCCESS, "NV_UndefineSpace: %s", rc_text(rc));
	check(NULL, handles(t, KEY_BASE, KEY_BASE + SHARED_KEYS - 1) == 0,
	      "no persistent key of the run left");
	check(NULL, handles(t, NV_INDEX, NV_INDEX) == 0, "no NV index of the run left");
	check(NULL, handles(t, TPM_HR_TRANSIENT, TPM_HR_TRANSIENT | 0xFFFFFF) == 0,
	      "no transient object left");
	check(NULL, handles(t, TPM_HR_HMAC_SESSION, TPM_HR_POLICY_SESSION | 0xFFFFFF) == 0,
	      "no session left, loaded or saved");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static unsigned env_uint(const char *name, unsigned dflt, unsigned max)
{
	const char *v = getenv(name);
	unsigned long n = v && *v ? strtoul(v, NULL, 10) : dflt;

	return n > 0 && n <= max ? (unsigned)n : dflt;
}

static void report(const struct client *cl)
{
	for (unsigned i = 0; i < nclients; i++) {
		const struct client *c = &cl[i];

		printf("client %u:", c->id);
		for (int op = 0; op < OPS; op++)
			if (c->done[op])
				printf(" %s %u", op_name[op], c->done[op]);
		printf("; answers excused by a peer's act:");
		for (int op = 0; op < OPS; op++)
			if (c->excused[op])
				printf(" %s %u", op_name[op], c->excused[op]);
		printf("; evictions left to a peer: %u\n", c->skipped);
	}
}

int main(int argc, char **argv)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	static struct client cl[MAX_CLIENTS];
	char dir[] = "/tmp/pqtpm-stress.XXXXXX", err[256];
	pthread_t th[MAX_CLIENTS];
	struct pqtpm_tss *t = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: stress TCTI | stress engine\n");
		return 2;
	}
	tcti = strcmp(argv[1], "engine") ? argv[1] : NULL;
	nclients = tcti ? MSSIM_CLIENTS : ENGINE_CLIENTS;
	rounds = env_uint("STRESS_ROUNDS", DEFAULT_ROUNDS, MAX_ROUNDS);
	seed = env_uint("STRESS_SEED", 1, UINT32_MAX);
	printf("stress: %u clients %s, %u rounds each, seed %llu\n", nclients,
	       tcti ? "over the transport" : "of an in-process engine", rounds,
	       (unsigned long long)seed);
	if (!tcti) {
		cfg.state_dir = dir;
		if (!mkdtemp(dir) || pqtpm_engine_open(&engine, &cfg, err, sizeof(err)) != 0) {
			fail(NULL, "engine: %s", err);
			goto out;
		}
	}
	if (open_client(&t) != 0) {
		fail(NULL, "cannot connect to %s", tcti ? tcti : "the engine");
		goto out;
	}
	if (!prepare(t))
		goto out;
	pthread_barrier_init(&start_line, NULL, nclients);
	for (unsigned i = 0; i < nclients; i++) {
		cl[i] = (struct client){ .id = i, .rng = (seed * 0x9E3779B97F4A7C15ULL) ^ (i + 1) };
		for (int spin = 0; spin < 8; spin++)
			next(&cl[i]);
		if (pthread_create(&th[i], NULL, client_run, &cl[i]) != 0) {
			fail(NULL, "pthread_create");
			return 1;
		}
	}
	for (unsigned i = 0; i < nclients; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start_line);
	report(cl);
	wind_up(t);
out:
	pqtpm_tss_close(t);
	if (engine) {
		pqtpm_engine_close(engine);
		if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			fail(NULL, "could not remove %s", dir);
	}
	for (unsigned i = 0; i < MAX_CLIENTS; i++)
		free(pcr_hist[i]);
	printf("%u passed, %u failed\n", atomic_load(&passed), atomic_load(&failed));
	return atomic_load(&failed) || !atomic_load(&passed);
}
