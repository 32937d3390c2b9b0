/* The client library's sessions (tss/session*.c, tss/salt.c) against the engine in process:
 * HMAC sessions unsalted and unbound, salted with RSA-2048, ECC P-256 and ML-KEM-768 keys,
 * bound; each authorizing commands, with AES-128-CFB and XOR parameter encryption both ways
 * (and Camellia, TDES);
 * nonces rolled over several commands; a wrong password; a tampered response; continueSession
 * cleared; several sessions on one command, two of them authorizing (a sequence and its key);
 * a Name the library must ask for; sessions that are the calling thread's; the kernel's
 * NULL-key flow; an audit-only
 * session; HierarchyChangeAuth, whose response HMAC is keyed with the new authValue; argument
 * checks; the session's secrets wiped when it is freed. */
#include <pthread.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "../../tss/tss_int.h" /* the session's layout, for the wipe check */
#include "tss_util.h"
#include "unit_main.h"

#define RC_S(rc, n) ((rc) | TPM_RC_S | ((n) << 8))
#define CONT TPMA_SESSION_CONTINUESESSION
#define CRYPT (TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT)

static struct tss_env env;
static struct pqtpm_tss *t;
static struct pqtpm_tss_key parent;

static void setup(void)
{
	tss_env_open(&env);
	t = env.t;
	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_ECC, TSS_STORAGE, "parent", &parent), 0);
}

static void teardown(void)
{
	tss_env_close(&env);
}

/* ---- the response observer (tss_response_observed): a copy of each response, and an
 * optional flip of its last byte (the last session's HMAC) ---- */
static uint8_t seen[TSS_BUF];
static size_t seen_len;
static int tamper;

void tss_response_observed(uint8_t *rsp, size_t len)
{
	if (tamper && len > 10) {
		rsp[len - 1] ^= 1;
		tamper = 0;
	}
	memcpy(seen, rsp, len);
	seen_len = len;
}

/* ---- the wipe observer (crypto_wipe_observed): was [p, p + n) wiped, to zeros? ---- */
static const void *watch;
static size_t watch_len;
static int watch_wiped;

void crypto_wipe_observed(const void *p, size_t n)
{
	const uint8_t *b = p;
	int zero = 1;

	if (p != watch || n != watch_len)
		return;
	for (size_t i = 0; i < n; i++)
		zero &= b[i] == 0;
	watch_wiped = zero;
}

/* A child storage key made under `parent` with the sessions given for its Create, loaded; it
 * takes the password "secret" afterwards: so its Create went through, inSensitive decrypted
 * right, outPrivate encrypted right (Load accepts it). */
static TPM_RC child_with(struct pqtpm_tss_session *s1, struct pqtpm_tss_session *s2,
			 const char *parent_auth, struct pqtpm_tss_key *k)
{
	static struct pqtpm_tss_key grandchild;
	TPM_RC rc;

	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s1, s2, NULL), 0);
	rc = tss_child(t, parent.handle, parent_auth, TPM_ALG_ECC, TSS_STORAGE, NULL, "secret", k);
	if (rc)
		return rc;
	/* the authValue the TPM decrypted is the one sent */
	CU_ASSERT_EQUAL(tss_child(t, k->handle, "secret", TPM_ALG_ECC, TSS_STORAGE, NULL, "",
				  &grandchild),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, grandchild.handle), 0);
	return TPM_RC_SUCCESS;
}

static void test_hmac_plain(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_key k;

	/* three commands: each takes the TPM's new nonce */
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
	}
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_session_handle(s), 0);
	/* a wrong password fails as the TPM encodes it: session 1 */
	CU_ASSERT_EQUAL(child_with(s, NULL, "wrong", &k), RC_S(TPM_RC_AUTH_FAIL, 1));
	/* and the session goes on afterwards */
	CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
	pqtpm_tss_session_free(s);
}

/* A salted session with AES-128-CFB or XOR both ways authorizes Create under the parent, for
 * each salt key kind; GetRandom's randomBytes arrive encrypted (the response on the wire is
 * not what the library returns) and ReadPublic's outPublic decrypts to the key's public area. */
static void salted(TPM_ALG_ID type)
{
	static struct pqtpm_tss_key salt, k;
	static struct pqtpm_tss_public pub;
	static const TPM_ALG_ID syms[] = { TPM_ALG_AES, TPM_ALG_XOR };
	struct pqtpm_tss_name name;
	uint8_t rnd[32];

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, type, TPMA_OBJECT_DECRYPT | TPMA_OBJECT_USERWITHAUTH,
					  "", &salt),
			      0);
	for (unsigned i = 0; i < 2; i++) {
		struct pqtpm_tss_session_params p = {
			.type = TPM_SE_HMAC, .salt_key = salt.handle, .salt_pub = &salt.pub,
			.sym = syms[i], .sym_bits = 128, .attrs = CRYPT,
		};
		struct pqtpm_tss_session *s = tss_session(t, &p);

		CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
		/* nothing to decrypt there: encrypt only */
		pqtpm_tss_session_set_attrs(s, CONT | TPMA_SESSION_ENCRYPT);
		CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, rnd, sizeof(rnd)), 0);
		CU_ASSERT(seen_len > 12 + sizeof(rnd) &&
			  memcmp(seen + 16, rnd, sizeof(rnd)) != 0); /* header, size, size */
		CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_read_public(t, k.handle, &pub, &name), 0);
		CU_ASSERT(pub.size == k.pub.size && memcmp(pub.b, k.pub.b, pub.size) == 0);
		CU_ASSERT(name.size == k.name.size && memcmp(name.b, k.name.b, name.size) == 0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
		pqtpm_tss_session_free(s);
	}
}

static void test_salted_rsa(void)
{
	salted(TPM_ALG_RSA);
}

static void test_salted_ecc(void)
{
	salted(TPM_ALG_ECC);
}

static void test_salted_mlkem(void)
{
	salted(TPM_ALG_MLKEM);
}

/* The other authHashes, salt curves and ML-KEM parameter sets, with AES-256-CFB. */
static void test_more_kinds(void)
{
	static const TPM_ALG_ID hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA384, TPM_ALG_SHA512,
					     TPM_ALG_SHA512 };
	static const struct pqtpm_tss_template salts[] = {
		{ .type = TPM_ALG_ECC, .name_alg = TPM_ALG_SHA384, .curve = TPM_ECC_NIST_P384 },
		{ .type = TPM_ALG_MLKEM, .parameter_set = TPM_MLKEM_512 },
		{ .type = TPM_ALG_MLKEM, .name_alg = TPM_ALG_SHA512,
		  .parameter_set = TPM_MLKEM_1024 },
		{ .type = TPM_ALG_ECC, .name_alg = TPM_ALG_SHA512, .curve = TPM_ECC_NIST_P521 },
	};
	static struct pqtpm_tss_public pub;
	static struct pqtpm_tss_key salt, k;

	for (unsigned i = 0; i < 4; i++) {
		struct pqtpm_tss_template tm = salts[i];
		struct pqtpm_tss_session *s;

		tm.attributes = TSS_KEY_BASE | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_USERWITHAUTH;
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &pub), 0);
		CU_ASSERT_EQUAL_FATAL(
			pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", &salt), 0);
		struct pqtpm_tss_session_params p = {
			.type = TPM_SE_HMAC, .hash = hashes[i], .salt_key = salt.handle,
			.salt_pub = &salt.pub, .sym = TPM_ALG_AES, .sym_bits = 256, .attrs = CRYPT,
		};
		s = tss_session(t, &p);
		CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, salt.handle), 0);
		pqtpm_tss_session_free(s);
	}
}

/* Parameter encryption with the other block ciphers: Camellia of each size and two- and
 * three-key TDES (an 8-byte block, so a 64-bit iv from the KDF), salted with ECC. */
static void test_other_ciphers(void)
{
	static const struct {
		TPM_ALG_ID alg;
		uint16_t bits;
	} ciphers[] = {
		{ TPM_ALG_CAMELLIA, 128 }, { TPM_ALG_CAMELLIA, 192 }, { TPM_ALG_CAMELLIA, 256 },
		{ TPM_ALG_TDES, 128 },	   { TPM_ALG_TDES, 192 },
	};
	static struct pqtpm_tss_key salt, k;

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_ECC, TPMA_OBJECT_DECRYPT |
					  TPMA_OBJECT_USERWITHAUTH, "", &salt),
			      0);
	for (unsigned i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		struct pqtpm_tss_session_params p = {
			.type = TPM_SE_HMAC, .salt_key = salt.handle, .salt_pub = &salt.pub,
			.sym = ciphers[i].alg, .sym_bits = ciphers[i].bits, .attrs = CRYPT,
		};
		struct pqtpm_tss_session *s = tss_session(t, &p);

		CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
		pqtpm_tss_session_free(s);
	}
}

/* Bound to the parent: its authValue is left out of the HMAC for the parent and put in for
 * another entity (the child), both accepted; bound and salted with AES-256 and SHA-384. */
static void test_bound(void)
{
	static struct pqtpm_tss_key k, gk, salt;
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .bind = parent.handle, .bind_auth = "parent", .attrs = CONT,
	};
	struct pqtpm_tss_session *s = tss_session(t, &p);

	CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tss_child(t, k.handle, "secret", TPM_ALG_ECC, TSS_STORAGE, NULL, "", &gk),
			0);
	CU_ASSERT_EQUAL(child_with(s, NULL, "wrong", &k), RC_S(TPM_RC_AUTH_FAIL, 1));
	pqtpm_tss_session_free(s);

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_ECC, TPMA_OBJECT_DECRYPT |
					  TPMA_OBJECT_USERWITHAUTH, "", &salt),
			      0);
	p.hash = TPM_ALG_SHA384;
	p.salt_key = salt.handle;
	p.salt_pub = &salt.pub;
	p.sym = TPM_ALG_AES;
	p.sym_bits = 256;
	p.attrs = CRYPT;
	s = tss_session(t, &p);
	CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
	pqtpm_tss_session_free(s);
}

/* A response whose HMAC was altered on the way is refused. */
static void test_tampered_response(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_public pub;

	tss_template(TPM_ALG_ECC, TSS_STORAGE, NULL, &pub);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	tamper = 1;
	CU_ASSERT_EQUAL(pqtpm_tss_create(t, parent.handle, "parent", &pub, "", &k),
			PQTPM_TSS_RC_RESPONSE_HMAC);
	CU_ASSERT_EQUAL(tamper, 0);
	/* password sessions carry no HMAC to check: the same flip goes unnoticed there */
	tamper = 1;
	CU_ASSERT_EQUAL(pqtpm_tss_create(t, parent.handle, "parent", &pub, "", &k), 0);
	pqtpm_tss_session_free(s);
}

/* Without continueSession the TPM forgets the session after the command. */
static void test_no_continue(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_key k;
	TPM_HANDLE h = pqtpm_tss_session_handle(s);

	pqtpm_tss_session_set_attrs(s, 0);
	CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &k), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_session_handle(s), 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_flush(t, h), 0); /* no longer there */
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), PQTPM_TSS_RC_BAD_VALUE);
	pqtpm_tss_session_free(s);
}

/* Session 1 authorizes, session 2 (salted) only encrypts: its nonceTPM is in session 1's
 * HMAC. */
static void test_two_sessions(void)
{
	static struct pqtpm_tss_key salt, k;
	struct pqtpm_tss_session_params p1 = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s1 = tss_session(t, &p1), *s2;

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_MLKEM, TPMA_OBJECT_DECRYPT |
					  TPMA_OBJECT_USERWITHAUTH, "", &salt),
			      0);
	struct pqtpm_tss_session_params p2 = {
		.type = TPM_SE_HMAC, .salt_key = salt.handle, .salt_pub = &salt.pub,
		.sym = TPM_ALG_AES, .sym_bits = 128, .attrs = CRYPT,
	};
	s2 = tss_session(t, &p2);
	CU_ASSERT_EQUAL(child_with(s1, s2, "parent", &k), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
	/* decrypt on one, encrypt on the other */
	pqtpm_tss_session_set_attrs(s1, CONT | TPMA_SESSION_ENCRYPT);
	/* s1 has no cipher */
	CU_ASSERT_EQUAL(child_with(s1, s2, "parent", &k), PQTPM_TSS_RC_BAD_VALUE);
	pqtpm_tss_session_set_attrs(s1, CONT);
	pqtpm_tss_session_set_attrs(s2, CONT | TPMA_SESSION_DECRYPT);
	CU_ASSERT_EQUAL(child_with(s1, s2, "parent", &k), 0);
	pqtpm_tss_session_free(s1);
	pqtpm_tss_session_free(s2);
}

/* A key reloaded from a saved context: the library has no Name for it and asks. */
static void test_name_fetched(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_saved saved;
	static struct pqtpm_tss_key k, gk;
	TPM_HANDLE h;

	CU_ASSERT_EQUAL_FATAL(tss_child(t, parent.handle, "parent", TPM_ALG_ECC, TSS_STORAGE, NULL,
					"secret", &k),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_context_save(t, k.handle, &saved), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_flush(t, k.handle), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_context_load(t, &saved, &h), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tss_child(t, h, "secret", TPM_ALG_ECC, TSS_STORAGE, NULL, "", &gk), 0);
	pqtpm_tss_session_free(s);
}

static void test_arguments(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CRYPT };
	struct pqtpm_tss_session *s, *s2, *other_s;
	struct pqtpm_tss *other;
	uint8_t data[64], more;
	size_t len;

	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), 0); /* no sym: set below */
	/* decrypt and encrypt asked of a session without a cipher */
	CU_ASSERT_EQUAL(child_with(s, NULL, "parent", &(struct pqtpm_tss_key){ 0 }),
			PQTPM_TSS_RC_BAD_VALUE);
	pqtpm_tss_session_free(s);
	p.sym = TPM_ALG_AES;
	p.sym_bits = 100;
	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_PTR_NULL(s);
	p.sym = TPM_ALG_TDES;
	p.sym_bits = 256;
	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_PTR_NULL(s);
	p.sym = TPM_ALG_SM4;
	p.sym_bits = 128;
	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_PTR_NULL(s);
	p.sym = TPM_ALG_AES;
	p.type = 7;
	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), PQTPM_TSS_RC_BAD_VALUE);
	p.type = TPM_SE_HMAC;
	p.salt_key = parent.handle; /* no public area given */
	CU_ASSERT_EQUAL(pqtpm_tss_session_start(t, &p, &s), PQTPM_TSS_RC_BAD_VALUE);
	p.salt_pub = &parent.pub;
	p.salt_key = 0;
	s = tss_session(t, &p);
	/* a gap, the same session twice, a session of another connection */
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, NULL, s, NULL), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, s, NULL), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_engine(&other, env.e), 0);
	other_s = tss_session(other, &(struct pqtpm_tss_session_params){ .type = TPM_SE_HMAC });
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, other_s, NULL), PQTPM_TSS_RC_BAD_VALUE);
	/* GetCapability has no parameter to encrypt */
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability(t, TPM_CAP_TPM_PROPERTIES, TPM_PT_MANUFACTURER,
						 1, &more, data, sizeof(data), &len),
			PQTPM_TSS_RC_BAD_VALUE);
	/* the sessions were for that command only: the next one runs without */
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability(t, TPM_CAP_TPM_PROPERTIES, TPM_PT_MANUFACTURER,
						 1, &more, data, sizeof(data), &len),
			0);
	pqtpm_tss_session_free(other_s);
	pqtpm_tss_close(other);
	pqtpm_tss_session_free(s);
	/* starting and freeing another session leaves the thread's sessions for the next
	 * command, which uses them (an audit session ending with it: no continueSession) */
	p = (struct pqtpm_tss_session_params){ .type = TPM_SE_HMAC, .attrs = TPMA_SESSION_AUDIT };
	s = tss_session(t, &p);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	pqtpm_tss_session_free(tss_session(t, &p));
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, data, 16), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_session_handle(s), 0);
	/* a freed session is no longer pending */
	s2 = tss_session(t, &p);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s2, NULL, NULL), 0);
	pqtpm_tss_session_free(s2);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, data, 16), 0);
	pqtpm_tss_session_free(s);
}

/* HierarchyChangeAuth as a builder of the library sends it (tss_int.h): the TPM keys the
 * response HMAC with the new owner authValue, which tss_auth_changes tells the library. */
static TPM_RC change_owner_auth(struct pqtpm_tss_session *s, const char *old, const char *new,
				int announce)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_HierarchyChangeAuth);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, TPM_RH_OWNER);
	tss_auth(&c, old);
	if (announce)
		tss_auth_changes(&c, new);
	tss_tpm2b_str(&c, new);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

static void test_auth_changes(void)
{
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .sym = TPM_ALG_AES, .sym_bits = 128,
		.attrs = CONT | TPMA_SESSION_DECRYPT,
	};
	struct pqtpm_tss_session *s = tss_session(t, &p);
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_public tmpl;

	CU_ASSERT_EQUAL(change_owner_auth(s, "", "owner2", 1), 0);
	/* the new value works (it was decrypted right) */
	tss_template(TPM_ALG_ECC, TSS_STORAGE, NULL, &tmpl);
	CU_ASSERT_EQUAL(pqtpm_tss_create_primary(t, TPM_RH_OWNER, "owner2", &tmpl, "", &k), 0);
	/* not told, the library checks the response against the old value and refuses it */
	CU_ASSERT_EQUAL(change_owner_auth(s, "owner2", "", 0), PQTPM_TSS_RC_RESPONSE_HMAC);
	CU_ASSERT_EQUAL(pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, "", &k), 0);
	/* the library's own HierarchyChangeAuth (cmd_hierarchy.c) tells it, both ways */
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_hierarchy_change_auth(t, TPM_RH_OWNER, "", "owner3"), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_hierarchy_change_auth(t, TPM_RH_OWNER, "owner3", ""), 0);
	pqtpm_tss_session_free(s);
}

/* An audit session on a command without authorization: its response HMAC is checked. */
static void test_audit_only(void)
{
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .attrs = CONT | TPMA_SESSION_AUDIT,
	};
	struct pqtpm_tss_session *s = tss_session(t, &p);
	uint8_t r[16];

	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	tamper = 1;
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), PQTPM_TSS_RC_RESPONSE_HMAC);
	pqtpm_tss_session_free(s);
}

/* Two authorizing sessions on SignSequenceComplete: session 1 for the sequence (whose Name
 * is empty), session 2 for the ML-DSA key; a wrong key password fails in session 2. */
static void test_sequence(void)
{
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key key;
	static struct pqtpm_tss_signature sig;
	static struct pqtpm_tss_ticket tk;
	static const uint8_t msg[] = "a message signed through a sequence";
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_MLDSA, .parameter_set = TPM_MLDSA_44,
		.attributes = TSS_KEY_BASE | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT,
	};
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = CONT };
	struct pqtpm_tss_session *s1 = tss_session(t, &p), *s2 = tss_session(t, &p);
	TPM_HANDLE seq;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, "k", &key), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign_sequence_start(t, key.handle, "seq", NULL, 0, &seq),
			      0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s1, NULL, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, seq, "seq", msg, 10), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s1, s2, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign_sequence_complete(t, seq, "seq", key.handle, "K",
							 msg + 10, sizeof(msg) - 10, &sig),
			RC_S(TPM_RC_AUTH_FAIL, 2));
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s1, s2, NULL), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign_sequence_complete(t, seq, "seq", key.handle, "k",
							 msg + 10, sizeof(msg) - 10, &sig),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_message(t, key.handle, NULL, 0, msg, sizeof(msg), &sig,
						 &tk),
			0);
	pqtpm_tss_session_free(s1);
	pqtpm_tss_session_free(s2);
}

/* The sessions given are the calling thread's: another thread's command on the same
 * connection goes without them, and the thread that gave them uses them next. */
static void *other_thread_command(void *arg)
{
	uint8_t r[16];

	*(TPM_RC *)arg = pqtpm_tss_get_random(t, r, sizeof(r));
	return NULL;
}

static void test_thread_local(void)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_HMAC, .attrs = TPMA_SESSION_AUDIT };
	struct pqtpm_tss_session *s = tss_session(t, &p);
	TPM_RC rc = TPM_RC_FAILURE;
	pthread_t th;
	uint8_t r[16];

	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, other_thread_command, &rc), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_session_handle(s), 0); /* not used by the other thread */
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_session_handle(s), 0); /* used here, without continueSession */
	pqtpm_tss_session_free(s);
}

/* The Linux kernel's flow (drivers/char/tpm/tpm2-sessions.c): an ECC P-256 storage primary in
 * the NULL hierarchy, saved and loaded again, salts an unbound HMAC session (AES-128-CFB,
 * SHA-256) that encrypts GetRandom's answer. */
static void test_kernel_flow(void)
{
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_saved saved;
	static struct pqtpm_tss_key null_key;
	struct pqtpm_tss_session *s;
	TPM_HANDLE h;
	uint8_t r[32];

	tss_template(TPM_ALG_ECC, TSS_STORAGE, NULL, &tmpl);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create_primary(t, TPM_RH_NULL, "", &tmpl, "", &null_key),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_context_save(t, null_key.handle, &saved), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_flush(t, null_key.handle), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_context_load(t, &saved, &h), 0);
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .salt_key = h, .salt_pub = &null_key.pub,
		.sym = TPM_ALG_AES, .sym_bits = 128,
		.attrs = CONT | TPMA_SESSION_ENCRYPT,
	};
	s = tss_session(t, &p);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0); /* the session outlives its salt key */
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, s, NULL, NULL), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), 0);
	}
	CU_ASSERT_EQUAL(pqtpm_tss_session_flush(s), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_session_handle(s), 0);
	pqtpm_tss_session_free(s);
}

/* Freeing a session wipes all of it: session key, nonces, authValues. */
static void test_wiped(void)
{
	static struct pqtpm_tss_key salt;
	struct pqtpm_tss_session *s;
	static const uint8_t zero[64];

	CU_ASSERT_EQUAL_FATAL(tss_primary(t, TPM_ALG_MLKEM, TPMA_OBJECT_DECRYPT |
					  TPMA_OBJECT_USERWITHAUTH, "", &salt),
			      0);
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .salt_key = salt.handle, .salt_pub = &salt.pub,
		.bind = parent.handle, .bind_auth = "parent", .attrs = CONT,
	};
	s = tss_session(t, &p);
	CU_ASSERT(s->key.size == 32 && memcmp(s->key.b, zero, 32) != 0);
	CU_ASSERT(s->bind_auth.size == 6);
	watch = s;
	watch_len = sizeof(*s);
	watch_wiped = 0;
	pqtpm_tss_session_free(s);
	CU_ASSERT(watch_wiped);
	watch = NULL;
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "HMAC session, unsalted and unbound", test_hmac_plain },
		{ "salted with RSA-2048, AES-CFB and XOR", test_salted_rsa },
		{ "salted with ECC P-256, AES-CFB and XOR", test_salted_ecc },
		{ "salted with ML-KEM-768, AES-CFB and XOR", test_salted_mlkem },
		{ "SHA-1/384/512, ECC P-384/521, ML-KEM-512/1024, AES-256", test_more_kinds },
		{ "Camellia and TDES parameter encryption", test_other_ciphers },
		{ "bound, then bound and salted", test_bound },
		{ "tampered response HMAC", test_tampered_response },
		{ "continueSession cleared", test_no_continue },
		{ "two sessions on one command", test_two_sessions },
		{ "a Name asked for", test_name_fetched },
		{ "audit only", test_audit_only },
		{ "an authValue the command changes", test_auth_changes },
		{ "two authorizing sessions on a sequence", test_sequence },
		{ "sessions are the calling thread's", test_thread_local },
		{ "the kernel's flow", test_kernel_flow },
		{ "argument checks", test_arguments },
		{ "secrets wiped on free", test_wiped },
	};

	return UNIT_RUN("tss_session", tests, setup, teardown);
}
