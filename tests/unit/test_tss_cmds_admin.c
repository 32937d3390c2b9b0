/* The client library's hierarchy, duplication and capability commands (tss/cmd_hierarchy.c,
 * cmd_dup.c, cmd_cap.c) against the engine in process: EvictControl and the persistent
 * handles a GetCapability walk lists (one entry per round, so through moreData), Clear,
 * HierarchyChangeAuth, ObjectChangeAuth then Load with the new auth, the DA lockout and its
 * reset, Duplicate to another parent and Import there, the algorithm and command lists walked,
 * TestParms. */
#include <string.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "marshal.h"
#include "tss_util.h"
#include "unit_main.h"

#define PERSISTENT_A 0x81000100
#define PERSISTENT_B 0x81000101

static struct pqtpm_engine *e;
static struct pqtpm_tss *t;

static void setup(void)
{
	tss_util_open(&e, &t);
}

static void teardown(void)
{
	tss_util_close(e, t);
}

/* Every persistent handle, walked n entries a round. */
static uint32_t persistent(uint32_t per_round, TPM_HANDLE *h, uint32_t cap)
{
	uint8_t data[4 * 64];
	size_t len;
	uint32_t count = 0;
	struct rd r;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, TPM_HR_PERSISTENT,
							   TPM_HR_PERSISTENT | 0xFFFFFF,
							   per_round, data, sizeof(data), &len,
							   &count),
			      0);
	CU_ASSERT_EQUAL(len, 4 * count);
	rd_init(&r, data, len);
	for (uint32_t i = 0; i < count && i < cap; i++)
		rd_u32(&r, &h[i]);
	return count;
}

static void test_evict_walk(void)
{
	static struct pqtpm_tss_key a, b;
	TPM_HANDLE h[8];
	uint32_t n;

	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &a), 0);
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 1, &b), 0);
	CU_ASSERT_EQUAL(persistent(0, h, 8), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", a.handle, PERSISTENT_A), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", b.handle, PERSISTENT_B), 0);
	n = persistent(1, h, 8);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(h[0], PERSISTENT_A);
	CU_ASSERT_EQUAL(h[1], PERSISTENT_B);
	CU_ASSERT_EQUAL(persistent(0, h, 8), 2);
	/* the persistent copy works like the transient one */
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, a.handle), 0);
	{
		static struct pqtpm_tss_public pub;
		struct pqtpm_tss_name name;

		CU_ASSERT_EQUAL(pqtpm_tss_read_public(t, PERSISTENT_A, &pub, &name), 0);
		CU_ASSERT_EQUAL(name.size, a.name.size);
		CU_ASSERT_EQUAL(memcmp(name.b, a.name.b, name.size), 0);
	}
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", PERSISTENT_A, PERSISTENT_A),
			0);
	n = persistent(1, h, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(h[0], PERSISTENT_B);
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", PERSISTENT_B, PERSISTENT_B),
			0);
	CU_ASSERT_EQUAL(persistent(1, h, 8), 0);
}

/* Clear takes the owner's persistent and transient objects with it and gives the owner a new
 * seed: the same template makes another key. */
static void test_clear(void)
{
	static struct pqtpm_tss_key before, after;
	static struct pqtpm_tss_public pub;
	struct pqtpm_tss_name name;
	TPM_HANDLE h[8];

	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &before), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", before.handle, PERSISTENT_A),
			0);
	CU_ASSERT_EQUAL(persistent(0, h, 8), 1);
	CU_ASSERT_EQUAL(pqtpm_tss_clear(t, TPM_RH_LOCKOUT, ""), 0);
	CU_ASSERT_EQUAL(persistent(0, h, 8), 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_read_public(t, before.handle, &pub, &name), 0);
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &after), 0);
	CU_ASSERT(after.name.size != before.name.size ||
		  memcmp(after.name.b, before.name.b, after.name.size) != 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, after.handle), 0);
}

static void test_hierarchy_change_auth(void)
{
	static struct pqtpm_tss_key k;

	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hierarchy_change_auth(t, TPM_RH_OWNER, "", "owner"), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_evict_control(t, TPM_RH_OWNER, "", k.handle, PERSISTENT_A),
			TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
	{
		struct pqtpm_tss_template tm = { .type = TPM_ALG_ECC,
						 .attributes = TSS_UTIL_KEY |
							       TPMA_OBJECT_SIGN_ENCRYPT };
		static struct pqtpm_tss_public pub;

		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &pub), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_create_primary(t, TPM_RH_OWNER, "owner", &pub, "", &k),
				0);
		CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
	}
	CU_ASSERT_EQUAL(pqtpm_tss_hierarchy_change_auth(t, TPM_RH_OWNER, "owner", ""), 0);
	CU_ASSERT_EQUAL(tss_util_storage(t, 0, &k), 0);
}

static void test_object_change_auth(void)
{
	struct pqtpm_tss_template tm = { .type = TPM_ALG_ECC,
					 .attributes = TSS_UTIL_KEY | TPMA_OBJECT_SIGN_ENCRYPT,
					 .scheme = TPM_ALG_ECDSA,
					 .scheme_hash = TPM_ALG_SHA256 };
	static struct pqtpm_tss_key parent, k, k2;
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_signature sig;
	uint8_t digest[32] = { 1, 2, 3 };

	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &parent), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create(t, parent.handle, "", &tmpl, "old", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, parent.handle, "", &k), 0);
	k2 = k;
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_object_change_auth(t, k.handle, "old", parent.handle,
							   "new", &k2.priv),
			      0);
	CU_ASSERT(k2.priv.size > 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, parent.handle, "", &k2), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k2.handle, "new", digest, 32, 0, 0, NULL, &sig), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k2.handle, "old", digest, 32, 0, 0, NULL, &sig),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
	/* the object loaded before keeps its old authValue */
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "old", digest, 32, 0, 0, NULL, &sig), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_da_lock_reset(t, ""), 0); /* the wrong try above */
}

static void test_dictionary_attack(void)
{
	struct pqtpm_tss_template tm = { .type = TPM_ALG_ECC,
					 .attributes = TSS_UTIL_KEY | TPMA_OBJECT_SIGN_ENCRYPT,
					 .scheme = TPM_ALG_ECDSA,
					 .scheme_hash = TPM_ALG_SHA256 };
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_signature sig;
	uint8_t digest[32] = { 4 };

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_da_parameters(t, "", 2, 3600, 3600), 0);
	CU_ASSERT_EQUAL_FATAL(tss_util_primary(t, &tm, "right", &k), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "wrong", digest, 32, 0, 0, NULL, &sig),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "wrong", digest, 32, 0, 0, NULL, &sig),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
	/* locked out: even the right value is refused */
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "right", digest, 32, 0, 0, NULL, &sig),
			TPM_RC_LOCKOUT);
	CU_ASSERT_EQUAL(pqtpm_tss_da_lock_reset(t, ""), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "right", digest, 32, 0, 0, NULL, &sig), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

/* A signing key that may be duplicated (PolicyCommandCode(Duplicate)) moves from one storage
 * parent to another, with an inner wrapper, and signs there. */
static void dup_round_trip(TPM_ALG_ID inner, const uint8_t *key_in, size_t key_len)
{
	uint8_t policy[32], digest[32] = { 9, 9 };
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_ECC,
		.attributes = TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_SIGN_ENCRYPT,
		.scheme = TPM_ALG_ECDSA,
		.scheme_hash = TPM_ALG_SHA256,
		.policy = policy,
		.policy_len = sizeof(policy),
	};
	static struct pqtpm_tss_key from, to, k, moved;
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_duplicate dup;
	static struct pqtpm_tss_signature sig;
	struct pqtpm_tss_session_params sp = { .type = TPM_SE_POLICY,
					       .attrs = TPMA_SESSION_CONTINUESESSION };
	struct pqtpm_tss_session *session;
	struct pqtpm_tss_ticket tk;
	struct pqtpm_tss_digest d;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_calc_start(TPM_ALG_SHA256, &d), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_calc_command_code(&d, TPM_ALG_SHA256,
								 TPM_CC_Duplicate),
			      0);
	memcpy(policy, d.b, sizeof(policy));
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 1, &from), 0);
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &to), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create(t, from.handle, "", &tmpl, "dk", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, from.handle, "", &k), 0);
	/* a password cannot fill the DUP role */
	CU_ASSERT_EQUAL(pqtpm_tss_duplicate(t, k.handle, "dk", to.handle, key_in, key_len, inner,
					    128, &dup),
			RC_H(TPM_RC_AUTH_UNAVAILABLE, 1));
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_session_start(t, &sp, &session), 0);
	/* without the policy the session does not satisfy it either */
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, session, NULL, NULL), 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_duplicate(t, k.handle, "", to.handle, key_in, key_len,
						inner, 128, &dup),
			    0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_policy_command_code(session, TPM_CC_Duplicate), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_use_sessions(t, session, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_duplicate(t, k.handle, "", to.handle, key_in, key_len,
						  inner, 128, &dup),
			      0);
	pqtpm_tss_session_free(session);
	CU_ASSERT(dup.dup.size > 0);
	CU_ASSERT(dup.seed.size > 0);
	CU_ASSERT_EQUAL(dup.key.size, inner == TPM_ALG_AES ? 16 : 0);
	if (key_len)
		CU_ASSERT_EQUAL(memcmp(dup.key.b, key_in, key_len), 0);

	moved.pub = k.pub;
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_import(t, to.handle, "", &k.pub, &dup, inner, 128,
					       &moved.priv),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, to.handle, "", &moved), 0);
	CU_ASSERT_EQUAL(moved.name.size, k.name.size);
	CU_ASSERT_EQUAL(memcmp(moved.name.b, k.name.b, k.name.size), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, moved.handle, "dk", digest, 32, 0, 0, NULL, &sig), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, digest, 32, &sig, &tk), 0);
	/* under the wrong parent the outer wrapper does not open */
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_import(t, from.handle, "", &k.pub, &dup, inner, 128,
					     &moved.priv),
			    0);
}

static void test_duplicate_tpm_key(void)
{
	dup_round_trip(TPM_ALG_AES, NULL, 0);
}

static void test_duplicate_caller_key(void)
{
	static const uint8_t key[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	dup_round_trip(TPM_ALG_AES, key, sizeof(key));
}

static void test_duplicate_outer_only(void)
{
	dup_round_trip(TPM_ALG_NULL, NULL, 0);
}

/* The algorithm list walked two at a time equals it in one round, ascending, with RSA, ECC,
 * SHA-256 and AES. */
static void test_walk_algorithms(void)
{
	uint8_t one[6 * 128], two[6 * 128];
	size_t l1, l2;
	uint32_t n1, n2, prev = 0;
	int rsa = 0, sha256 = 0;
	struct rd r;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_ALGS, 0, 0xFFFF, 0, one,
							   sizeof(one), &l1, &n1),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_ALGS, 0, 0xFFFF, 2, two,
							   sizeof(two), &l2, &n2),
			      0);
	CU_ASSERT(n1 > 4);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_EQUAL(l1, 6 * n1);
	CU_ASSERT_EQUAL_FATAL(l1, l2);
	CU_ASSERT_EQUAL(memcmp(one, two, l1), 0);
	rd_init(&r, one, l1);
	for (uint32_t i = 0; i < n1; i++) {
		uint16_t alg;
		uint32_t attrs;

		rd_u16(&r, &alg);
		rd_u32(&r, &attrs);
		CU_ASSERT(i == 0 || alg > prev);
		prev = alg;
		rsa |= alg == TPM_ALG_RSA;
		sha256 |= alg == TPM_ALG_SHA256;
	}
	CU_ASSERT(rsa && sha256);
	/* a range: only the hashes between SHA-256 and SHA-512 */
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_ALGS, TPM_ALG_SHA256,
						     TPM_ALG_SHA512, 1, one, sizeof(one), &l1,
						     &n1),
			0);
	CU_ASSERT_EQUAL(n1, 3);
	/* too little room */
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_ALGS, 0, 0xFFFF, 0, one, 12, &l1,
						     &n1),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_PCRS, 0, 0, 0, one, sizeof(one),
						     &l1, &n1),
			PQTPM_TSS_RC_BAD_VALUE);
}

static void test_walk_commands_properties(void)
{
	static uint8_t data[8 * 256];
	size_t len;
	uint32_t n, v, pt, found = 0;
	struct rd r;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_COMMANDS, 0x11F,
							   0x1FFF, 16, data, sizeof(data),
							   &len, &n),
			      0);
	CU_ASSERT(n > 60);
	rd_init(&r, data, len);
	for (uint32_t i = 0; i < n; i++) {
		rd_u32(&r, &v);
		found |= (v & TPMA_CC_COMMANDINDEX_MASK) == (TPM_CC_PCR_Extend & 0xFFFF);
	}
	CU_ASSERT(found);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_TPM_PROPERTIES,
							   0x100, 0x1FF, 5,
							   data, sizeof(data), &len, &n),
			      0);
	CU_ASSERT_EQUAL(len, 8 * n);
	found = 0;
	rd_init(&r, data, len);
	for (uint32_t i = 0; i < n; i++) {
		rd_u32(&r, &pt);
		rd_u32(&r, &v);
		if (pt == TPM_PT_NV_BUFFER_MAX)
			found = v;
	}
	CU_ASSERT_EQUAL(found, 1024);
}

/* Lists of variable-size entries (TPMS_TAGGED_PCR_SELECT) and of curves walked. */
static void test_walk_pcr_properties_curves(void)
{
	uint8_t one[512], two[512], curves[64];
	size_t l1, l2, lc;
	uint32_t n1, n2, nc, tag;
	uint16_t curve;
	uint8_t size;
	int p256 = 0;
	struct rd r;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_PCR_PROPERTIES, 0, 0xFF, 0,
							   one, sizeof(one), &l1, &n1),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_PCR_PROPERTIES, 0, 0xFF, 1,
							   two, sizeof(two), &l2, &n2),
			      0);
	CU_ASSERT(n1 > 0);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_EQUAL_FATAL(l1, l2);
	CU_ASSERT_EQUAL(memcmp(one, two, l1), 0);
	rd_init(&r, one, l1);
	for (uint32_t i = 0; i < n1; i++) {
		CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &tag), 0);
		CU_ASSERT_EQUAL_FATAL(rd_u8(&r, &size), 0);
		CU_ASSERT_FATAL(rd_left(&r) >= size);
		r.off += size;
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_get_capability_all(t, TPM_CAP_ECC_CURVES, 0, 0xFFFF, 1,
							   curves, sizeof(curves), &lc, &nc),
			      0);
	CU_ASSERT_EQUAL(lc, 2 * nc);
	rd_init(&r, curves, lc);
	for (uint32_t i = 0; i < nc; i++) {
		rd_u16(&r, &curve);
		p256 |= curve == TPM_ECC_NIST_P256;
	}
	CU_ASSERT(p256);
}

static void test_test_parms(void)
{
	/* TPMT_PUBLIC_PARMS: RSA, symmetric NULL, scheme NULL, keyBits, exponent 0 */
	uint8_t rsa[] = { 0x00, 0x01, 0x00, 0x10, 0x00, 0x10, 0x08, 0x00, 0, 0, 0, 0 };
	uint8_t ecc[] = { 0x00, 0x23, 0x00, 0x10, 0x00, 0x10, 0x00, 0x03, 0x00, 0x10 };
	uint8_t mldsa[] = { 0x00, 0xA1, 0x00, 0x02, 0x00 }; /* ML-DSA-65, no external mu */

	CU_ASSERT_EQUAL(pqtpm_tss_test_parms(t, rsa, sizeof(rsa)), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_test_parms(t, ecc, sizeof(ecc)), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_test_parms(t, mldsa, sizeof(mldsa)), 0);
	rsa[6] = 0x03; /* 1000 bits */
	rsa[7] = 0xE8;
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_test_parms(t, rsa, sizeof(rsa)), 0);
	ecc[7] = 0x77; /* no such curve */
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_test_parms(t, ecc, sizeof(ecc)), 0);
	mldsa[3] = 0x09;
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_test_parms(t, mldsa, sizeof(mldsa)), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "EvictControl and the persistent handles walked", test_evict_walk },
		{ "Clear", test_clear },
		{ "HierarchyChangeAuth", test_hierarchy_change_auth },
		{ "ObjectChangeAuth, then Load with the new auth", test_object_change_auth },
		{ "DA lockout and DictionaryAttackLockReset", test_dictionary_attack },
		{ "Duplicate and Import, inner key from the TPM", test_duplicate_tpm_key },
		{ "Duplicate and Import, inner key from the caller", test_duplicate_caller_key },
		{ "Duplicate and Import, outer wrapper only", test_duplicate_outer_only },
		{ "GetCapability walk: algorithms", test_walk_algorithms },
		{ "GetCapability walk: commands and properties", test_walk_commands_properties },
		{ "GetCapability walk: PCR properties and curves", test_walk_pcr_properties_curves },
		{ "TestParms", test_test_parms },
	};

	return UNIT_RUN("tss_cmds_admin", tests, setup, teardown);
}
