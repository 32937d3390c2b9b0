/* Secrets are wiped: the memory of a flushed object (its sensitive area) and of a flushed
 * session (its session key), of everything a departing client owned, and a buffer wiped just
 * before free (a plain memset there is a dead store the compiler may drop; crypto_wipe's is
 * not). Freed memory cannot be read afterwards (ASan and valgrind would rightly object), so
 * this program replaces crypto_wipe_observed() (core/crypto/util.c), which crypto_wipe calls
 * after each wipe, and checks the range it sees: the right address and size, all zeros. */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "session.h"
#include "sessions.h"

static struct harness h;

#define MAX_SEEN 4096
static struct {
	const void *p;
	size_t n;
	bool zero;
} seen[MAX_SEEN];
static unsigned nseen;

void crypto_wipe_observed(const void *p, size_t n)
{
	const uint8_t *b = p;
	bool zero = true;

	for (size_t i = 0; i < n; i++)
		zero &= b[i] == 0;
	if (nseen < MAX_SEEN) {
		seen[nseen].p = p;
		seen[nseen].n = n;
		seen[nseen].zero = zero;
		nseen++;
	}
}

/* Was exactly [p, p + n) wiped since the last reset, leaving zeros? */
static bool wiped(const void *p, size_t n)
{
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].p == p && seen[i].n == n)
			return seen[i].zero;
	return false;
}

/* A keyedHash primary whose sensitive data is the given secret. */
static struct object *secret_object(struct harness *hh, const uint8_t secret[32], struct key *k)
{
	struct tpmt_public t;
	struct object *o;

	key_template(&t, TPM_ALG_KEYEDHASH, TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_HMAC;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(key_primary_in(hh, TPM_RH_OWNER, &t, "", secret, 32, k),
			      TPM_RC_SUCCESS);
	o = object_find(hh->c, k->handle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	/* the test looks at the right memory: the secret is there before the flush */
	CU_ASSERT_PTR_NOT_NULL(memmem(o, sizeof(*o), secret, 32));
	return o;
}

static void test_buffer_before_free(void)
{
	size_t n = 256;
	uint8_t *p = malloc(n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0xA5, n);
	nseen = 0;
	crypto_wipe(p, n);
	CU_ASSERT_TRUE(wiped(p, n));
	free(p);
}

static void test_flushed_object(void)
{
	uint8_t secret[32];
	struct key k;
	struct object *o;

	memset(secret, 0x5C, sizeof(secret));
	o = secret_object(&h, secret, &k);
	nseen = 0;
	CU_ASSERT_EQUAL(sess_flush(&h, k.handle), TPM_RC_SUCCESS);
	CU_ASSERT_TRUE(wiped(o, sizeof(*o)));
	CU_ASSERT_PTR_NULL(object_find(h.c, k.handle));
}

/* StartAuthSession bound to the owner hierarchy, whose authValue is not empty, so that the
 * session has a key. */
static void test_flushed_session(void)
{
	static const char pw[] = "owner secret";
	struct cmdbuf b;
	struct rd rsp;
	TPM_HANDLE handle = 0;
	struct session *s;
	uint8_t nonce[32];

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, pw, (uint16_t)strlen(pw));
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);

	memset(nonce, 0x11, sizeof(nonce));
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_tpm2b(&b.params, nonce, sizeof(nonce));
	wr_tpm2b(&b.params, NULL, 0);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, &handle), TPM_RC_SUCCESS);
	s = session_find(h.c, handle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->session_key.size, 32);
	CU_ASSERT_EQUAL(s->bind_auth.size, strlen(pw));

	nseen = 0;
	CU_ASSERT_EQUAL(sess_flush(&h, handle), TPM_RC_SUCCESS);
	CU_ASSERT_TRUE(wiped(s, sizeof(*s)));
	CU_ASSERT_PTR_NULL(session_find(h.c, handle));

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, pw);
	wr_tpm2b(&b.params, NULL, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

/* A client that goes away takes its objects with it, wiped. */
static void test_departed_client(void)
{
	struct harness other = h;
	uint8_t secret[32];
	struct key k;
	struct object *o;

	other.c = pqtpm_client_new(h.e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other.c);
	memset(secret, 0x3B, sizeof(secret));
	o = secret_object(&other, secret, &k);
	nseen = 0;
	pqtpm_client_free(other.c);
	CU_ASSERT_TRUE(wiped(o, sizeof(*o)));
}

static int setup(void)
{
	harness_open(&h);
	return 0;
}

static int teardown(void)
{
	harness_close(&h);
	return 0;
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "a buffer wiped just before free", test_buffer_before_free },
		{ "FlushContext wipes the object", test_flushed_object },
		{ "FlushContext wipes the session and its key", test_flushed_session },
		{ "a departing client's objects are wiped", test_departed_client },
	};
	CU_pSuite suite;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	suite = CU_add_suite("wiping secrets", setup, teardown);
	if (!suite)
		return 1;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!CU_add_test(suite, tests[i].name, tests[i].fn))
			return 1;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed != 0;
}
