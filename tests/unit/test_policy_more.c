/* More policy assertions, and sessions that outlive the server:
 * - PolicyNvWritten, PolicyDuplicationSelect (core/cmd/policy.c) and PolicyAuthorizeNV
 *   (core/cmd/policy_nv.c): digests against known answers and against H(old || CC || args)
 *   computed here, their argument checks, and a use of each that authorizes (NV_Write and
 *   NV_Read of indices whose policy needs PolicyNvWritten, Duplicate to the selected new
 *   parent only, Unseal of an object whose policy an NV index approves);
 * - saved session contexts across Shutdown(STATE) and a new engine on the same state
 *   directory (core/session_context.c, the saved-sessions section of core/state/codec.c,
 *   core/startup.c): the session loads after a Resume or Restart with every field intact and
 *   authorizes, and does not after a TPM Reset; the section's validation;
 * - PolicyCounterTimer against TPMS_TIME_INFO as ReadClock reports it (core/cmd/clock.c).
 * Every helper runs on the harness nvh of nv_util.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "nv/nv.h"
#include "keys.h"
#include "nv_util.h"
#include "pcr.h"
#include "session.h"
#include "sessions.h"
#include "state/state_int.h"
#include "state/store.h"
#include "unit_main.h"

#define FIXED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
#define SEALED (FIXED | TPMA_OBJECT_NODA)
#define PCR_TEST 16
#define EO_EQ 0
#define EO_NEQ 1
#define EO_UNSIGNED_LT 5
#define EO_UNSIGNED_GE 7
#define EO_UNSIGNED_LE 9

static TPM_HANDLE parent;		/* a storage primary in the owner hierarchy */
static struct tpm2b_name parent_name;

/* ---- digests ---- */

static void hex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		CU_ASSERT_FATAL(sscanf(s + 2 * i, "%2x", &v) == 1);
		out[i] = (uint8_t)v;
	}
}

/* ---- sessions ---- */

static void start(struct psess *s, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(sess_start(&nvh, type, &s->handle, &s->nonce_tpm), TPM_RC_SUCCESS);
}

static void check_digest(const struct psess *s, const uint8_t expect[DSIZE])
{
	uint8_t d[DSIZE];

	sess_policy_digest(&nvh, s->handle, d);
	CU_ASSERT(memcmp(d, expect, DSIZE) == 0);
}

static TPM_RC nv_written(const struct psess *s, uint8_t yes)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyNvWritten);
	cmd_handle(&b, s->handle);
	wr_u8(&b.params, yes);
	return harness_run(&nvh, &b, NULL, NULL);
}

static TPM_RC dup_select(const struct psess *s, const struct tpm2b_name *object,
			 const struct tpm2b_name *new_parent, uint8_t include)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyDuplicationSelect);
	cmd_handle(&b, s->handle);
	wr_tpm2b_name(&b.params, object);
	wr_tpm2b_name(&b.params, new_parent);
	wr_u8(&b.params, include);
	return harness_run(&nvh, &b, NULL, NULL);
}

/* PolicyAuthorizeNV with authHandle auth (password pw) */
static TPM_RC authorize_nv(const struct psess *s, TPM_HANDLE auth, TPM_HANDLE idx, const char *pw)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyAuthorizeNV);
	cmd_handle(&b, auth);
	cmd_handle(&b, idx);
	cmd_handle(&b, s->handle);
	cmd_auth_pw(&b, pw);
	return harness_run(&nvh, &b, NULL, NULL);
}

/* TPML_PCR_SELECTION of PCR_TEST in SHA-256 */
static TPM_RC policy_pcr(const struct psess *s)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyPCR);
	cmd_handle(&b, s->handle);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u8(&b.params, 3);
	wr_u8(&b.params, 0);
	wr_u8(&b.params, 0);
	wr_u8(&b.params, 1u << (PCR_TEST - 16));
	return harness_run(&nvh, &b, NULL, NULL);
}

/* ---- objects ---- */

/* A storage primary (deterministic: the same key after a restart) in hierarchy hier. */
static TPM_HANDLE storage_primary(TPM_HANDLE hier, struct tpm2b_name *name)
{
	struct tpmt_public t;
	struct key k;

	key_storage_template(&t, TPM_ALG_ECC,
			     FIXED | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
				     TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&nvh, hier, &t, "", NULL, 0, &k), TPM_RC_SUCCESS);
	*name = k.name;
	return k.handle;
}

struct sealed {
	TPM_HANDLE handle;
	struct tpm2b_name name;
	struct tpm2b_private priv;
	struct tpmt_public pub;
};

static void load(TPM_HANDLE under, struct sealed *o)
{
	CU_ASSERT_EQUAL_FATAL(key_load(&nvh, under, &o->priv, &o->pub, &o->handle, &o->name),
			      TPM_RC_SUCCESS);
}

/* Sealed data under the parent with this authPolicy and attributes, loaded. */
static void seal(const uint8_t policy[DSIZE], uint32_t attrs, struct sealed *o)
{
	struct tpmt_public t;

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, attrs);
	t.auth_policy.size = DSIZE;
	memcpy(t.auth_policy.b, policy, DSIZE);
	CU_ASSERT_EQUAL_FATAL(key_create(&nvh, parent, &t, "", "sealed secret", 13, &o->priv,
					 &o->pub),
			      TPM_RC_SUCCESS);
	load(parent, o);
}

/* Unseal o with policy session s; the session is flushed if the command fails. */
static TPM_RC unseal(const struct psess *s, const struct sealed *o)
{
	struct tpm2b_sensitive_data out;
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, o->handle);
	sess_auth_policy(&b, s->handle, &s->nonce_tpm, &o->name);
	rc = harness_run(&nvh, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out.b, sizeof(out.b), &out.size), TPM_RC_SUCCESS);
		CU_ASSERT(out.size == 13 && memcmp(out.b, "sealed secret", 13) == 0);
	} else {
		sess_flush(&nvh, s->handle);
	}
	return rc;
}

static void setup(void)
{
	parent = storage_primary(TPM_RH_OWNER, &parent_name);
}

/* ---- PolicyNvWritten ---- */

static void test_nv_written_digest(void)
{
	uint8_t yes[DSIZE], no[DSIZE], expect[DSIZE] = { 0 }, v = 1;
	struct psess s;

	/* known answers: H(0^32 || 0000018F || 01) and || 00 */
	hex("f7887d158ae8d38be0ac5319f37a9e07618bf54885453c7a54ddb0c6a6193beb", yes, DSIZE);
	hex("3c326323670e28ad37bd57f63b4cc34d26ab205ef22f275c58d47fab2485466e", no, DSIZE);
	sess_policy_extend(expect, TPM_CC_PolicyNvWritten, &v, 1);
	CU_ASSERT(memcmp(expect, yes, DSIZE) == 0);

	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(nv_written(&s, 1), TPM_RC_SUCCESS);
	check_digest(&s, yes);
	/* the same again is allowed (and extends again); the other value is not */
	CU_ASSERT_EQUAL(nv_written(&s, 1), TPM_RC_SUCCESS);
	sess_policy_extend(expect, TPM_CC_PolicyNvWritten, &v, 1);
	check_digest(&s, expect);
	CU_ASSERT_EQUAL(nv_written(&s, 0), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nv_written(&s, 2), RC_P(TPM_RC_VALUE, 1)); /* TPMI_YES_NO */
	check_digest(&s, expect);
	sess_flush(&nvh, s.handle);

	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(nv_written(&s, 0), TPM_RC_SUCCESS);
	check_digest(&s, no);
	CU_ASSERT_EQUAL(nv_written(&s, 1), RC_P(TPM_RC_VALUE, 1));
	/* PolicyRestart forgets the assertion */
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_PolicyRestart);
		cmd_handle(&b, s.handle);
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(nv_written(&s, 1), TPM_RC_SUCCESS);
	check_digest(&s, yes);
	sess_flush(&nvh, s.handle);
}

/* NV_Write of idx by itself, authorized by policy session s */
static TPM_RC policy_write(const struct psess *s, TPM_HANDLE idx, const char *data)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_Write);
	cmd_handle(&b, idx);
	cmd_handle(&b, idx);
	wr_tpm2b(&b.params, data, (uint16_t)strlen(data));
	wr_u16(&b.params, 0);
	nvt_auth_policy(&b, s, NULL);
	return harness_run(&nvh, &b, NULL, NULL);
}

static TPM_RC policy_read(const struct psess *s, TPM_HANDLE idx, uint16_t size)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_Read);
	cmd_handle(&b, idx);
	cmd_handle(&b, idx);
	wr_u16(&b.params, size);
	wr_u16(&b.params, 0);
	nvt_auth_policy(&b, s, NULL);
	return harness_run(&nvh, &b, NULL, NULL);
}

/* A write-once index (PolicyNvWritten(NO) + PolicyCommandCode(NV_Write)), an index readable
 * only once written (PolicyNvWritten(YES)), and the assertion on an object. */
static void test_nv_written_use(void)
{
	const TPM_HANDLE once = IDX + 0x10, after = IDX + 0x11;
	uint8_t p_once[DSIZE] = { 0 }, p_after[DSIZE] = { 0 }, no = 0, yes = 1, buf[16];
	struct sealed o;
	struct psess s;

	sess_policy_extend(p_once, TPM_CC_PolicyNvWritten, &no, 1);
	{
		uint8_t cc[4];

		nvt_be32(cc, TPM_CC_NV_Write);
		sess_policy_extend(p_once, TPM_CC_PolicyCommandCode, cc, 4);
	}
	sess_policy_extend(p_after, TPM_CC_PolicyNvWritten, &yes, 1);
	CU_ASSERT_EQUAL_FATAL(nvt_define_full(TPM_RH_OWNER, once, TPM_ALG_SHA256,
					      TPMA_NV_POLICYWRITE | TPMA_NV_OWNERREAD, 8, "",
					      p_once, DSIZE),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(nvt_define_full(TPM_RH_OWNER, after, TPM_ALG_SHA256,
					      TPMA_NV_POLICYREAD | TPMA_NV_OWNERWRITE, 8, "",
					      p_after, DSIZE),
			      TPM_RC_SUCCESS);

	/* write once */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(nv_written(&s, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_NV_Write), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_write(&s, once, "first!!!"), TPM_RC_SUCCESS);
	CU_ASSERT(nvt_attrs_of(once) & TPMA_NV_WRITTEN);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(nv_written(&s, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_NV_Write), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_write(&s, once, "second!!"), RC_S(TPM_RC_POLICY_FAIL, 1));
	sess_flush(&nvh, s.handle);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, once, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, "first!!!", 8) == 0);

	/* read once written: refused before (the policy, before the uninitialized data) */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(nv_written(&s, 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_read(&s, after, 8), RC_S(TPM_RC_POLICY_FAIL, 1));
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, after, "", "written.", 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_read(&s, after, 8), TPM_RC_SUCCESS);

	/* the assertion on something that is not an index fails */
	seal(p_after, SEALED, &o);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(nv_written(&s, 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), RC_S(TPM_RC_POLICY_FAIL, 1));
	sess_flush(&nvh, o.handle);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, once), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, after), TPM_RC_SUCCESS);
}

/* ---- PolicyDuplicationSelect ---- */

static void test_dup_select_digest(void)
{
	struct tpm2b_name obj = { .size = 34 }, np = { .size = 34 };
	uint8_t yes[DSIZE], no[DSIZE], expect[DSIZE] = { 0 }, args[34 + 34 + 1];
	struct psess s;

	obj.b[1] = np.b[1] = 0x0B;
	memset(obj.b + 2, 0x11, 32);
	memset(np.b + 2, 0x22, 32);
	/* H(0^32 || 00000188 || objectName || newParentName || 01), and without the object */
	hex("cb20b19c2f10e6a1658196c10f2c778cc19923891bb615d331cc2990bf3f56bf", yes, DSIZE);
	hex("820aae210e1deb8ce8335ab6cfee2818fea5e0cd43c9f1e55bf178d4604dadce", no, DSIZE);
	memcpy(args, obj.b, 34);
	memcpy(args + 34, np.b, 34);
	args[68] = 1;
	sess_policy_extend(expect, TPM_CC_PolicyDuplicationSelect, args, sizeof(args));
	CU_ASSERT(memcmp(expect, yes, DSIZE) == 0);

	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 1), TPM_RC_SUCCESS);
	check_digest(&s, yes);
	/* it sets the command code and the name hash: a second one is refused */
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 1), TPM_RC_CPHASH);
	sess_flush(&nvh, s.handle);
	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 0), TPM_RC_SUCCESS);
	check_digest(&s, no);
	sess_flush(&nvh, s.handle);

	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 2), RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Duplicate), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 0), TPM_RC_COMMAND_CODE);
	sess_flush(&nvh, s.handle);
	start(&s, TPM_SE_TRIAL);
	{
		struct cmdbuf b;
		uint8_t cp[DSIZE] = { 5 };

		cmd_begin(&b, TPM_CC_PolicyCpHash);
		cmd_handle(&b, s.handle);
		wr_tpm2b(&b.params, cp, DSIZE);
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(dup_select(&s, &obj, &np, 0), TPM_RC_CPHASH);
	sess_flush(&nvh, s.handle);
}

static TPM_RC duplicate(const struct psess *s, const struct sealed *o, TPM_HANDLE np,
			const struct tpm2b_name *np_name)
{
	struct tpm2b_name names[2] = { o->name, *np_name };
	struct cmdbuf b;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Duplicate);
	cmd_handle(&b, o->handle);
	cmd_handle(&b, np);
	wr_u16(&b.params, 0);		 /* encryptionKeyIn */
	wr_u16(&b.params, TPM_ALG_NULL); /* symmetricAlg */
	sess_auth_policy(&b, s->handle, &s->nonce_tpm, names);
	rc = harness_run(&nvh, &b, NULL, NULL);
	if (rc != TPM_RC_SUCCESS)
		sess_flush(&nvh, s->handle);
	return rc;
}

/* An object that only PolicyDuplicationSelect(any object, np, NO) lets duplicate, and only
 * to np. */
static void test_dup_select_use(void)
{
	struct tpm2b_name np_name, null_name = { 4, { 0x40, 0, 0, 0x07 } };
	uint8_t policy[DSIZE] = { 0 }, args[sizeof(np_name.b) + 1];
	TPM_HANDLE np;
	struct sealed o;
	struct psess s;

	np = storage_primary(TPM_RH_ENDORSEMENT, &np_name);
	memcpy(args, np_name.b, np_name.size);
	args[np_name.size] = 0;
	sess_policy_extend(policy, TPM_CC_PolicyDuplicationSelect, args, np_name.size + 1u);
	seal(policy, TPMA_OBJECT_NODA, &o); /* neither fixedTPM nor fixedParent */

	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(dup_select(&s, &o.name, &np_name, 0), TPM_RC_SUCCESS);
	check_digest(&s, policy);
	CU_ASSERT_EQUAL(duplicate(&s, &o, np, &np_name), TPM_RC_SUCCESS);

	/* to another parent: the digest does not match */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(dup_select(&s, &o.name, &null_name, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(duplicate(&s, &o, TPM_RH_NULL, &null_name), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* the digest matches, the new parent of the command does not (nameHash) */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(dup_select(&s, &o.name, &np_name, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(duplicate(&s, &o, TPM_RH_NULL, &null_name), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* another object named in the assertion: nameHash fails */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(dup_select(&s, &parent_name, &np_name, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(duplicate(&s, &o, np, &np_name), RC_S(TPM_RC_POLICY_FAIL, 1));
	/* the session is for Duplicate only */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(dup_select(&s, &o.name, &np_name, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), RC_S(TPM_RC_POLICY_CC, 1));
	sess_flush(&nvh, o.handle);
	sess_flush(&nvh, np);
}

/* ---- PolicyAuthorizeNV ---- */

/* idx holds TPMT_HA { alg, digest } */
static void write_policy_index(TPM_HANDLE idx, TPM_ALG_ID alg, const uint8_t *d, uint16_t len)
{
	uint8_t buf[2 + 64];

	buf[0] = (uint8_t)(alg >> 8);
	buf[1] = (uint8_t)alg;
	memcpy(buf + 2, d, len);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, idx, "", buf, 2u + len, 0), TPM_RC_SUCCESS);
}

static void test_authorize_nv(void)
{
	const TPM_HANDLE idx = IDX + 0x20;
	uint8_t approved[DSIZE], other[DSIZE], policy[DSIZE] = { 0 };
	struct tpm2b_name name;
	struct sealed o;
	struct psess s;

	CU_ASSERT_EQUAL_FATAL(nvt_define(idx, OWNER_RW | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA, 2 + DSIZE),
			      TPM_RC_SUCCESS);
	nvt_cc_policy(TPM_CC_Unseal, approved);
	nvt_cc_policy(TPM_CC_NV_Read, other);

	/* not written yet */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_NV_UNINITIALIZED);
	sess_flush(&nvh, s.handle);

	write_policy_index(idx, TPM_ALG_SHA256, approved, DSIZE);
	CU_ASSERT_EQUAL_FATAL(nvt_readpublic(idx, NULL, &name), TPM_RC_SUCCESS);
	sess_policy_extend(policy, TPM_CC_PolicyAuthorizeNV, name.b, name.size);

	/* trial: the digest only, whatever the session's digest */
	start(&s, TPM_SE_TRIAL);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_SUCCESS);
	check_digest(&s, policy);
	sess_flush(&nvh, s.handle);

	seal(policy, SEALED, &o);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_SUCCESS);
	check_digest(&s, policy);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	/* the owner may read it too (authHandle owner, OWNERREAD) */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, TPM_RH_OWNER, idx, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);

	/* a session whose digest is not the approved policy; a wrong password */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_NV_Read), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "wrong"), RC_S(TPM_RC_BAD_AUTH, 1));
	sess_flush(&nvh, s.handle);

	/* the owner approves another policy: the old one no longer works, the new one does,
	 * and the sealed object is the same */
	write_policy_index(idx, TPM_ALG_SHA256, other, DSIZE);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_VALUE);
	sess_flush(&nvh, s.handle);

	/* a policy of another hash algorithm; an unknown one; too short for its digest */
	write_policy_index(idx, TPM_ALG_SHA1, approved, 20);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_HASH);
	write_policy_index(idx, 0x0099, approved, DSIZE);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_HASH);
	sess_flush(&nvh, s.handle);
	sess_flush(&nvh, o.handle);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, idx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(nvt_define(idx, OWNER_RW | TPMA_NV_AUTHREAD, 16), TPM_RC_SUCCESS);
	write_policy_index(idx, TPM_ALG_SHA256, approved, 14);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(authorize_nv(&s, idx, idx, "pw"), TPM_RC_INSUFFICIENT);
	sess_flush(&nvh, s.handle);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, idx), TPM_RC_SUCCESS);
}

/* ---- PolicyCounterTimer and ReadClock ---- */

static void read_clock(uint8_t info[25])
{
	struct cmdbuf b;
	struct rd r;

	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_bytes(&r, info, 25), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
}

static void be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Each field of TPMS_TIME_INFO at the offset ReadClock has it: time 0, clock 8,
 * resetCount 16, restartCount 20, safe 24. */
static void check_time_info(void)
{
	uint8_t info[25], later[8], wrong[9];
	struct psess s;

	read_clock(info);
	start(&s, TPM_SE_POLICY);
	/* resetCount || restartCount || safe, as ReadClock gave them */
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info + 16, 9, 16, EO_EQ),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info + 24, 1, 24, EO_EQ),
			TPM_RC_SUCCESS);
	memcpy(wrong, info + 16, 9);
	wrong[8] ^= 1;
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, wrong, 9, 16, EO_EQ),
			TPM_RC_POLICY);
	memcpy(wrong, info + 16, 9);
	wrong[7] ^= 1; /* restartCount */
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, wrong + 4, 4, 20, EO_NEQ),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, wrong + 4, 4, 20, EO_EQ),
			TPM_RC_POLICY);
	/* clock and time: not before what ReadClock said, within a minute of it */
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info + 8, 8, 8, EO_UNSIGNED_GE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info, 8, 0, EO_UNSIGNED_GE),
			TPM_RC_SUCCESS);
	be64(later, get64(info + 8) + 60000);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, later, 8, 8, EO_UNSIGNED_LE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, later, 8, 8, EO_UNSIGNED_GE),
			TPM_RC_POLICY);
	be64(later, get64(info) + 60000);
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, later, 8, 0, EO_UNSIGNED_LT),
			TPM_RC_SUCCESS);
	/* 25 bytes in all */
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info + 24, 1, 25, EO_EQ),
			RC_P(TPM_RC_RANGE, 2));
	CU_ASSERT_EQUAL(sess_policy_counter_timer(&nvh, s.handle, info + 16, 9, 17, EO_EQ),
			RC_P(TPM_RC_RANGE, 2));
	sess_flush(&nvh, s.handle);
}

static void test_counter_timer_read_clock(void)
{
	check_time_info();
	/* after a Resume: restartCount + 1 */
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	check_time_info();
	/* after a power loss Clock is not safe: safe is 0 in both */
	CU_ASSERT_EQUAL(nvt_cycle(LOSS, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvh.e->ps.clock_safe, false);
	check_time_info();
	parent = storage_primary(TPM_RH_OWNER, &parent_name); /* the Reset flushed it */
}

/* ---- saved sessions across a restart ---- */

static bool same_session(const struct session *a, const struct session *b)
{
#define SAME_D(f) (a->f.size == b->f.size && memcmp(a->f.b, b->f.b, a->f.size) == 0)
	return a->handle == b->handle && a->type == b->type && a->auth_hash == b->auth_hash &&
	       a->sym.alg == b->sym.alg && a->sym.key_bits == b->sym.key_bits &&
	       a->sym.mode == b->sym.mode && SAME_D(session_key) && SAME_D(nonce_tpm) &&
	       a->bound == b->bound && SAME_D(bind_name) && SAME_D(bind_auth) &&
	       a->da_bound == b->da_bound && a->lockout_bound == b->lockout_bound &&
	       SAME_D(policy_digest) && a->need_auth_value == b->need_auth_value &&
	       a->need_password == b->need_password && a->command_code == b->command_code &&
	       SAME_D(cp_hash) && SAME_D(name_hash) && a->locality == b->locality &&
	       a->pcr_counter_set == b->pcr_counter_set && a->pcr_counter == b->pcr_counter &&
	       a->need_pp == b->need_pp && SAME_D(template_hash) && a->timeout == b->timeout &&
	       a->check_nv_written == b->check_nv_written &&
	       a->nv_written_state == b->nv_written_state &&
	       a->saved_sequence == b->saved_sequence;
#undef SAME_D
}

static struct session *saved(TPM_HANDLE h)
{
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		if (nvh.e->saved_sessions[i] && nvh.e->saved_sessions[i]->handle == h)
			return nvh.e->saved_sessions[i];
	return NULL;
}

/* Every field something else than what a new session has (and valid). */
static void fill_session(struct session *s)
{
	s->sym.alg = TPM_ALG_AES;
	s->sym.key_bits = 256;
	s->sym.mode = TPM_ALG_CFB;
	s->session_key.size = DSIZE;
	memset(s->session_key.b, 0xA1, DSIZE);
	s->bound = true;
	s->bind_name.size = 34;
	memset(s->bind_name.b, 0xA2, 34);
	s->bind_auth.size = 5;
	memcpy(s->bind_auth.b, "auth!", 5);
	s->da_bound = true;
	s->lockout_bound = true;
	memset(s->policy_digest.b, 0xA3, DSIZE);
	s->need_auth_value = true;
	s->need_password = true;
	s->command_code = TPM_CC_Sign;
	s->cp_hash.size = DSIZE;
	memset(s->cp_hash.b, 0xA4, DSIZE);
	s->name_hash.size = DSIZE;
	memset(s->name_hash.b, 0xA5, DSIZE);
	s->locality = 0x03;
	s->pcr_counter_set = true;
	s->pcr_counter = 0x12345678;
	s->need_pp = true;
	s->template_hash.size = DSIZE;
	memset(s->template_hash.b, 0xA6, DSIZE);
	s->timeout = 0x0102030405060708ull;
	s->check_nv_written = true;
	s->nv_written_state = true;
}

enum restart_kind { RESUME, RESTART, RESET_AFTER_CLEAR, RESET_AFTER_LOSS };

/* Shut down as the kind says, close the engine, open a new one on dir and start it. */
static void restart_engine(const char *dir, enum restart_kind kind)
{
	if (kind == RESUME || kind == RESTART) {
		CU_ASSERT_EQUAL_FATAL(nvt_su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_SUCCESS);
	} else if (kind == RESET_AFTER_CLEAR) {
		CU_ASSERT_EQUAL_FATAL(nvt_su(TPM_CC_Shutdown, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	}
	harness_close(&nvh);
	nvt_open_raw(&nvh, dir);
	CU_ASSERT_EQUAL_FATAL(nvt_su(TPM_CC_Startup, kind == RESUME ? TPM_SU_STATE : TPM_SU_CLEAR),
			      TPM_RC_SUCCESS);
}

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A policy session (PolicyCommandCode(Unseal)), a session with every field set, a PolicyPCR
 * session and a NULL-hierarchy primary are saved; a new engine on the same directory loads
 * them after Startup, and the policy session unseals. */
static void saved_across_restart(enum restart_kind kind)
{
	char dir[256];
	uint8_t digest[DSIZE], null_proof[PRIMARY_SEED_SIZE];
	struct tpms_context ctx, full_ctx, pcr_ctx, key_ctx, again;
	struct tpm2b_name null_name;
	struct session full;
	struct psess s, f, p;
	struct sealed o;
	TPM_HANDLE loaded = 0, null_key;
	bool survives = kind == RESUME || kind == RESTART;

	harness_close(&nvh);
	nvt_new_dir(dir, sizeof(dir));
	harness_open_dir(&nvh, dir);
	parent = storage_primary(TPM_RH_OWNER, &parent_name);

	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	sess_policy_digest(&nvh, s.handle, digest);
	seal(digest, SEALED, &o);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	start(&f, TPM_SE_POLICY);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, f.handle, &full_ctx), TPM_RC_SUCCESS);
	fill_session(saved(f.handle));
	full = *saved(f.handle);
	start(&p, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_pcr(&p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, p.handle, &pcr_ctx), TPM_RC_SUCCESS);
	null_key = storage_primary(TPM_RH_NULL, &null_name);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, null_key, &key_ctx), TPM_RC_SUCCESS);
	memcpy(null_proof, nvh.e->null_proof, sizeof(null_proof));

	restart_engine(dir, kind);
	/* a new process never runs with an all-zero NULL hierarchy */
	CU_ASSERT(!all_zero(nvh.e->null_proof, sizeof(nvh.e->null_proof)));
	CU_ASSERT(!all_zero(nvh.e->null_seed, sizeof(nvh.e->null_seed)));
	if (!survives) {
		CU_ASSERT(memcmp(nvh.e->null_proof, null_proof, sizeof(null_proof)) != 0);
		CU_ASSERT_EQUAL(sess_context_load(&nvh, &ctx, &loaded), RC_P(TPM_RC_HANDLE, 1));
		CU_ASSERT_EQUAL(sess_context_load(&nvh, &full_ctx, &loaded),
				RC_P(TPM_RC_HANDLE, 1));
		CU_ASSERT_EQUAL(sess_context_load(&nvh, &key_ctx, &loaded),
				RC_P(TPM_RC_INTEGRITY, 1));
		CU_ASSERT_EQUAL(session_count(nvh.e), 0);
		harness_close(&nvh);
		harness_open(&nvh);
		parent = storage_primary(TPM_RH_OWNER, &parent_name);
		return;
	}
	CU_ASSERT(memcmp(nvh.e->null_proof, null_proof, sizeof(null_proof)) == 0);
	/* every field as it was saved */
	CU_ASSERT_FATAL(saved(f.handle) != NULL);
	CU_ASSERT(same_session(saved(f.handle), &full));
	CU_ASSERT_EQUAL(session_count(nvh.e), 3);

	/* the policy session: loads, its digest intact, and unseals */
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&nvh, &ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(loaded, s.handle);
	check_digest(&s, digest);
	parent = storage_primary(TPM_RH_OWNER, &parent_name);
	load(parent, &o);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	sess_flush(&nvh, o.handle);
	/* loaded once: the same context again is refused */
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &ctx, &loaded), RC_P(TPM_RC_HANDLE, 1));

	/* PolicyPCR: the PCRs count as changed since */
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&nvh, &pcr_ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_pcr(&p), TPM_RC_PCR_CHANGED);
	/* saved again, the context counter goes on from before the restart */
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, p.handle, &again), TPM_RC_SUCCESS);
	CU_ASSERT(again.sequence > pcr_ctx.sequence && again.sequence > key_ctx.sequence);
	/* a replay */
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &pcr_ctx, &loaded), RC_P(TPM_RC_INTEGRITY, 1));
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &again, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_flush(&nvh, p.handle), TPM_RC_SUCCESS);

	/* the NULL-hierarchy key's context loads: the NULL proof survived */
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &key_ctx, &loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_flush(&nvh, loaded), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_flush(&nvh, f.handle), TPM_RC_SUCCESS); /* a saved session flushes */
	CU_ASSERT_EQUAL(session_count(nvh.e), 0);

	/* a second power cycle without Shutdown(STATE): a Reset, nothing comes back */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	restart_engine(dir, RESET_AFTER_LOSS);
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &ctx, &loaded), RC_P(TPM_RC_HANDLE, 1));
	harness_close(&nvh);
	harness_open(&nvh);
	parent = storage_primary(TPM_RH_OWNER, &parent_name);
}

static void test_saved_resume(void)
{
	saved_across_restart(RESUME);
}

static void test_saved_restart(void)
{
	saved_across_restart(RESTART);
}

static void test_saved_reset(void)
{
	saved_across_restart(RESET_AFTER_CLEAR);
	saved_across_restart(RESET_AFTER_LOSS);
}

/* In one process: a Restart keeps saved sessions (Part 1 §30), a Reset ends them. */
static void test_saved_in_process(void)
{
	struct tpms_context ctx;
	TPM_HANDLE loaded = 0;
	uint8_t digest[DSIZE];
	struct psess s;

	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	sess_policy_digest(&nvh, s.handle, digest);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(sess_context_load(&nvh, &ctx, &loaded), TPM_RC_SUCCESS);
	check_digest(&s, digest);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(session_count(nvh.e), 1);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &ctx, &loaded), RC_P(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(session_count(nvh.e), 0);
	parent = storage_primary(TPM_RH_OWNER, &parent_name);
}

/* A Shutdown(STATE) whose save fails (the temp file is /dev/full) fails and changes nothing
 * on disk; the copy of the sessions it made is neither lost nor leaked (ASan), and the next
 * Shutdown(STATE) works. */
static void test_saved_failed_shutdown(void)
{
	char dir[256], tmp[512];
	struct tpms_context ctx;
	TPM_HANDLE loaded = 0;
	uint8_t digest[DSIZE];
	struct psess s;

	harness_close(&nvh);
	nvt_new_dir(dir, sizeof(dir));
	harness_open_dir(&nvh, dir);
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, STATE_TMP_FILE);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&nvh, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	sess_policy_digest(&nvh, s.handle, digest);
	CU_ASSERT_EQUAL_FATAL(sess_context_save(&nvh, s.handle, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_PTR_NULL(nvh.e->ps.resume);
	CU_ASSERT_FATAL(symlink("/dev/full", tmp) == 0);
	CU_ASSERT_EQUAL(nvt_su(TPM_CC_Shutdown, TPM_SU_STATE), TPM_RC_NV_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvh.e->ps.saved_state_valid, false);
	CU_ASSERT_PTR_NOT_NULL(nvh.e->ps.resume); /* kept through the rollback */
	restart_engine(dir, RESUME);
	CU_ASSERT_EQUAL(sess_context_load(&nvh, &ctx, &loaded), TPM_RC_SUCCESS);
	check_digest(&s, digest);
	CU_ASSERT_EQUAL(sess_flush(&nvh, s.handle), TPM_RC_SUCCESS);
	harness_close(&nvh);
	harness_open(&nvh);
	parent = storage_primary(TPM_RH_OWNER, &parent_name);
}

/* ---- the saved-sessions section of the state file ---- */

/* A body with a saved-sessions section of two sessions; the offset of the section. */
static size_t section_body(uint8_t *buf, size_t cap, struct persist *ps)
{
	struct session_resume *r = calloc(1, sizeof(*r));
	struct wr w;
	size_t before;

	CU_ASSERT_FATAL(r != NULL);
	memset(ps, 0, sizeof(*ps));
	ps->saved_state_valid = true;
	memset(r->null_seed, 1, sizeof(r->null_seed));
	memset(r->null_proof, 2, sizeof(r->null_proof));
	r->context_counter = 77;
	r->pcr_update_counter = 9;
	r->count = 2;
	for (unsigned i = 0; i < 2; i++) {
		struct session *s = &r->sessions[i];

		s->handle = (i ? TPM_HR_HMAC_SESSION : TPM_HR_POLICY_SESSION) | (i + 1);
		s->type = i ? TPM_SE_HMAC : TPM_SE_POLICY;
		s->auth_hash = TPM_ALG_SHA256;
		s->sym.alg = TPM_ALG_NULL;
		s->saved_sequence = 5 + i;
	}
	fill_session(&r->sessions[0]);
	wr_init(&w, buf, cap);
	ps->resume = NULL;
	CU_ASSERT_FATAL(state_encode(ps, 1, &w) == TPM_RC_SUCCESS);
	before = w.off;
	ps->resume = r;
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(ps, 1, &w) == TPM_RC_SUCCESS);
	CU_ASSERT(w.off > before);
	ps->saved_state_valid = false; /* not written then */
	{
		uint8_t *tmp = malloc(cap);
		struct wr w2;

		CU_ASSERT_FATAL(tmp != NULL);
		wr_init(&w2, tmp, cap);
		CU_ASSERT(state_encode(ps, 1, &w2) == TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(w2.off, before);
		free(tmp);
	}
	ps->saved_state_valid = true;
	return before;
}

static TPM_RC decode(const uint8_t *buf, size_t len, struct persist *out, const char **what)
{
	struct rd r;

	rd_init(&r, buf, len);
	return state_decode(&r, out, STATE_VERSION, what);
}

static void test_section(void)
{
	size_t cap = 64 * 1024, at, len, first;
	uint8_t *buf = malloc(cap), *bad = malloc(cap);
	struct persist ps, out;
	const char *what = NULL;
	struct wr w;

	CU_ASSERT_FATAL(buf && bad);
	at = section_body(buf, cap, &ps);
	wr_init(&w, buf, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	len = w.off;
	CU_ASSERT_EQUAL_FATAL(decode(buf, len, &out, &what), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(out.resume != NULL);
	CU_ASSERT_EQUAL(out.resume->count, 2);
	CU_ASSERT_EQUAL(out.resume->context_counter, 77);
	CU_ASSERT_EQUAL(out.resume->pcr_update_counter, 9);
	CU_ASSERT(memcmp(out.resume->null_proof, ps.resume->null_proof, PRIMARY_SEED_SIZE) == 0);
	CU_ASSERT(memcmp(out.resume->null_seed, ps.resume->null_seed, PRIMARY_SEED_SIZE) == 0);
	CU_ASSERT(same_session(&out.resume->sessions[0], &ps.resume->sessions[0]));
	CU_ASSERT(same_session(&out.resume->sessions[1], &ps.resume->sessions[1]));
	state_free_persist(&out);

	/* offsets: tag 4, seeds 128, counters 12, count 2, then the first session */
	first = at + 4 + 128 + 12 + 2;
#define BAD(off, val, phrase)                                                         \
	do {                                                                          \
		memcpy(bad, buf, len);                                                \
		bad[off] = (uint8_t)(val);                                            \
		CU_ASSERT_NOT_EQUAL(decode(bad, len, &out, &what), TPM_RC_SUCCESS);   \
		CU_ASSERT(what && strstr(what, phrase) != NULL);                      \
	} while (0)
	BAD(at, 'X', "unexpected bytes after the last field");	/* tag */
	BAD(at + 144, 0xFF, "too many saved sessions");		/* count 0xFF02 */
	BAD(at + 145, 65, "too many saved sessions");
	BAD(at + 145, 3, "malformed field");			/* 3 announced, 2 there */
	BAD(first, 0x04, "bad saved session");			/* handle 0x04000001 */
	BAD(first + 4, TPM_SE_HMAC, "bad saved session");	/* an HMAC type on 0x03 */
	BAD(first + 6, 0x99, "bad saved session");		/* authHash 0x0099 */
	BAD(first + 9, 0x02, "bad saved session");		/* AES key bits 512 */
	BAD(first + 4 + 1 + 2 + 6 + 34 + 2, 2, "bad boolean"); /* bound */
#undef BAD
	/* the second session with the first one's handle */
	memcpy(bad, buf, len);
	{
		size_t second = len - (4 + 1 + 2 + 6 + 2 + 2 + 1 + 2 + 2 + 1 + 1 + 2 + 1 + 1 + 4 +
				       2 + 2 + 1 + 1 + 4 + 1 + 2 + 8 + 1 + 1 + 8 + 1 + 2);

		CU_ASSERT_EQUAL(bad[second], TPM_HT_HMAC_SESSION);
		bad[second] = TPM_HT_POLICY_SESSION;
		bad[second + 3] = 1;
		bad[second + 4] = TPM_SE_POLICY;
		CU_ASSERT_NOT_EQUAL(decode(bad, len, &out, &what), TPM_RC_SUCCESS);
		CU_ASSERT(what && strstr(what, "saved session twice") != NULL);
	}
	/* a section when no Shutdown(STATE) is pending */
	memcpy(bad, buf, len);
	ps.saved_state_valid = false;
	wr_init(&w, bad, cap);
	CU_ASSERT_FATAL(state_encode(&ps, 1, &w) == TPM_RC_SUCCESS);
	memcpy(bad + w.off, buf + at, len - at);
	CU_ASSERT_NOT_EQUAL(decode(bad, w.off + len - at, &out, &what), TPM_RC_SUCCESS);
	CU_ASSERT(what && strstr(what, "without a Shutdown(STATE)") != NULL);
	/* truncated anywhere in the section */
	for (size_t cut = at + 1; cut < len; cut += 37)
		CU_ASSERT_NOT_EQUAL(decode(buf, cut, &out, &what), TPM_RC_SUCCESS);
	state_free_persist(&ps);
	free(buf);
	free(bad);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "a storage parent", setup },
		{ "PolicyNvWritten digest and arguments", test_nv_written_digest },
		{ "PolicyNvWritten on NV_Write and NV_Read", test_nv_written_use },
		{ "PolicyDuplicationSelect digest and arguments", test_dup_select_digest },
		{ "PolicyDuplicationSelect on Duplicate", test_dup_select_use },
		{ "PolicyAuthorizeNV on Unseal", test_authorize_nv },
		{ "PolicyCounterTimer against ReadClock", test_counter_timer_read_clock },
		{ "saved sessions: Resume in a new engine", test_saved_resume },
		{ "saved sessions: Restart in a new engine", test_saved_restart },
		{ "saved sessions: Reset ends them", test_saved_reset },
		{ "saved sessions: Restart and Reset in one engine", test_saved_in_process },
		{ "saved sessions: a failed Shutdown(STATE)", test_saved_failed_shutdown },
		{ "the saved-sessions section of the state file", test_section },
	};
	int failed;

	if (nv_tmp_init() != 0)
		return 1;
	harness_open(&nvh);
	failed = UNIT_RUN("policy_more", tests, NULL, NULL);
	harness_close(&nvh);
	nv_tmp_clean();
	return failed;
}
