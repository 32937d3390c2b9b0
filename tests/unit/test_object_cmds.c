/* The object commands through the engine (core/cmd/object.c, core/cmd/primary.c): primary
 * determinism (same template, other unique, other hierarchy, across a restart), Create / Load
 * / Unseal / ReadPublic round trips, creation data and tickets recomputed here, CreateLoaded,
 * ObjectChangeAuth, LoadExternal with and without a private part, post-quantum keys, and the
 * exact error codes with their handle and parameter numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "harness.h"
#include "keys.h"
#include "object/object.h"
#include "pcr.h"
#include "sessions.h"
#include "unit_main.h"

#define FIXED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
#define ORIGIN TPMA_OBJECT_SENSITIVEDATAORIGIN
#define USER TPMA_OBJECT_USERWITHAUTH
#define STORAGE (FIXED | ORIGIN | USER | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
#define SIGNING (FIXED | ORIGIN | USER | TPMA_OBJECT_SIGN_ENCRYPT)
#define SEALED (FIXED | USER)

static struct harness h;
static char tmp_root[] = "/tmp/pqtpm-test-object-XXXXXX";

/* ---- templates ---- */

static void signing_ecc(struct tpmt_public *p)
{
	key_template_attrs(p, TPM_ALG_ECC, SIGNING);
	p->scheme.scheme = TPM_ALG_ECDSA;
	p->scheme.hash_alg = TPM_ALG_SHA256;
}

/* ---- commands ---- */

struct made {
	TPM_HANDLE handle;
	struct tpm2b_private priv;
	struct tpmt_public pub;
	struct tpm2b_name name;
	uint8_t creation[512]; /* TPMS_CREATION_DATA as returned */
	uint16_t creation_len;
	struct tpm2b_digest creation_hash;
	struct tpmt_ticket ticket;
};

static void put_outside_and_pcrs(struct cmdbuf *b, const char *outside,
				 const struct tpml_pcr_selection *pcrs)
{
	static const struct tpml_pcr_selection none = { 0 };

	wr_tpm2b(&b->params, outside, (uint16_t)strlen(outside));
	wr_pcr_selection(&b->params, pcrs ? pcrs : &none);
}

static void get_creation(struct rd *r, struct made *m)
{
	CU_ASSERT_EQUAL(rd_tpm2b(r, m->creation, sizeof(m->creation), &m->creation_len),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(r, &m->creation_hash), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_ticket(r, &m->ticket), TPM_RC_SUCCESS);
}

static TPM_RC create_primary(TPM_HANDLE hier, const struct tpmt_public *t, const char *auth,
			     const char *data, struct made *m)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	memset(m, 0, sizeof(*m));
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hier);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, auth, data, (uint16_t)strlen(data));
	wr_tpm2b_public(&b.params, t);
	put_outside_and_pcrs(&b, "", NULL);
	rc = harness_run(&h, &b, &r, &m->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &m->pub), TPM_RC_SUCCESS);
	get_creation(&r, m);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &m->name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static TPM_RC create_with(TPM_HANDLE parent, const char *pw, const struct tpmt_public *t,
			  const char *auth, const char *data, const char *outside,
			  const struct tpml_pcr_selection *pcrs, struct made *m)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	memset(m, 0, sizeof(*m));
	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, pw);
	cmd_sensitive(&b, auth, data, (uint16_t)strlen(data));
	wr_tpm2b_public(&b.params, t);
	put_outside_and_pcrs(&b, outside, pcrs);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, m->priv.b, sizeof(m->priv.b), &m->priv.size),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &m->pub), TPM_RC_SUCCESS);
	get_creation(&r, m);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(object_name(&m->pub, &m->name), TPM_RC_SUCCESS);
	return rc;
}

static TPM_RC create(TPM_HANDLE parent, const struct tpmt_public *t, const char *auth,
		     const char *data, struct made *m)
{
	return create_with(parent, "", t, auth, data, "", NULL, m);
}

static TPM_RC load(TPM_HANDLE parent, const struct tpm2b_private *priv,
		   const struct tpmt_public *pub, TPM_HANDLE *out)
{
	struct tpm2b_name name, want;
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv->b, priv->size);
	wr_tpm2b_public(&b.params, pub);
	rc = harness_run(&h, &b, &r, out);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(object_name(pub, &want), TPM_RC_SUCCESS);
	CU_ASSERT(name.size == want.size && memcmp(name.b, want.b, want.size) == 0);
	return rc;
}

static TPM_RC unseal(TPM_HANDLE item, const char *pw, struct tpm2b_sensitive_data *out)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, item);
	cmd_auth_pw(&b, pw);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->b, sizeof(out->b), &out->size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static TPM_RC read_public(TPM_HANDLE obj, struct tpmt_public *pub, struct tpm2b_name *name,
			  struct tpm2b_name *qn)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, obj);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, qn), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static void flush(TPM_HANDLE handle)
{
	CU_ASSERT_EQUAL(sess_flush(&h, handle), TPM_RC_SUCCESS);
}

static bool same_public(const struct tpmt_public *a, const struct tpmt_public *b)
{
	static uint8_t x[4096], y[4096];
	struct wr wa, wb;

	wr_init(&wa, x, sizeof(x));
	wr_init(&wb, y, sizeof(y));
	return wr_public(&wa, a) == TPM_RC_SUCCESS && wr_public(&wb, b) == TPM_RC_SUCCESS &&
	       wa.off == wb.off && memcmp(x, y, wa.off) == 0;
}

static bool same_name(const struct tpm2b_name *a, const struct tpm2b_name *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- primaries ---- */

static void test_primary_determinism(void)
{
	struct tpmt_public t;
	struct made a, b, c, d, e;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &a), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL((a.handle >> 24), TPM_HT_TRANSIENT);
	CU_ASSERT_EQUAL(a.pub.x.size, 32);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &b), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(a.handle, b.handle);
	CU_ASSERT(same_public(&a.pub, &b.pub));
	CU_ASSERT(same_name(&a.name, &b.name));

	/* another unique, another hierarchy, other sensitive data: other keys */
	t.x.size = 1;
	t.x.b[0] = 1;
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &c), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(a.pub.x.b, c.pub.x.b, 32) != 0);
	t.x.size = 0;
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_ENDORSEMENT, &t, "", "", &d), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(a.pub.x.b, d.pub.x.b, 32) != 0);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_NULL, &t, "", "", &e), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(a.pub.x.b, e.pub.x.b, 32) != 0);
	/* the auth value is not part of the derivation; the name is that of the public area */
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "pw", "", &c), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&a.pub, &c.pub));
	teardown();
}

static void test_primary_rsa(void)
{
	struct tpmt_public t;
	struct made a, b;

	setup();
	key_storage_template(&t, TPM_ALG_RSA, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &a), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(a.pub.unique.size, 256);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &b), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&a.pub, &b.pub));
	teardown();
}

/* The owner seed survives anything; the NULL seed survives a new engine on the directory (no
 * reboot: the TPM is as the last engine left it) and is new at every TPM Reset. */
static void test_primary_restart(void)
{
	char dir[64];
	struct tpmt_public t;
	struct made owner1, null1, owner2, null2, null3;
	struct cmdbuf b;

	snprintf(dir, sizeof(dir), "%s/state", tmp_root);
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &owner1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_NULL, &t, "", "", &null1), TPM_RC_SUCCESS);
	harness_close(&h);
	harness_open_dir(&h, dir);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &owner2), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_NULL, &t, "", "", &null2), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&owner1.pub, &owner2.pub));
	CU_ASSERT(same_public(&null1.pub, &null2.pub));
	/* a reboot: power cycle and Startup(CLEAR), a TPM Reset */
	CU_ASSERT_EQUAL_FATAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_NULL, &t, "", "", &null3), TPM_RC_SUCCESS);
	CU_ASSERT(!same_public(&null1.pub, &null3.pub));
	harness_close(&h);
	harness_rm_tree(dir);
}

static void test_primary_errors(void)
{
	struct tpmt_public t;
	struct made m;
	struct cmdbuf b;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	t.symmetric.alg = TPM_ALG_NULL;
	CU_ASSERT_EQUAL(create_primary(TPM_RH_OWNER, &t, "", "", &m),
			RC_P(TPM_RC_SYMMETRIC, 2));
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	t.attributes &= ~(uint32_t)TPMA_OBJECT_FIXEDPARENT;
	CU_ASSERT_EQUAL(create_primary(TPM_RH_OWNER, &t, "", "", &m),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	t.name_alg = TPM_ALG_SHA1;
	CU_ASSERT_EQUAL(create_primary(TPM_RH_OWNER, &t, "0123456789012345678901", "", &m),
			RC_P(TPM_RC_SIZE, 1));
	/* a handle that is no hierarchy */
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", "", 0);
	wr_tpm2b_public(&b.params, &t);
	put_outside_and_pcrs(&b, "", NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_VALUE, 1));
	/* an empty TPM2B_SENSITIVE_CREATE, an empty TPM2B_PUBLIC */
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", "", 0);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));
	teardown();
}

/* ---- Create, Load, Unseal, ReadPublic ---- */

static void test_create_load_unseal(void)
{
	struct tpmt_public t, pub;
	struct tpm2b_name name, qn, srk_name, srk_qn;
	struct tpm2b_sensitive_data data;
	struct made srk, item;
	TPM_HANDLE handle;
	uint8_t buf[2 * 34], d[32];

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create(srk.handle, &t, "pw", "secret", &item), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(item.pub.unique.size, 32);
	CU_ASSERT(item.priv.size > 34);
	CU_ASSERT_EQUAL_FATAL(load(srk.handle, &item.priv, &item.pub, &handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(unseal(handle, "pw", &data), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(data.size, 6);
	CU_ASSERT(memcmp(data.b, "secret", 6) == 0);
	CU_ASSERT_EQUAL(unseal(handle, "wrong", &data), RC_S(TPM_RC_AUTH_FAIL, 1));

	/* ReadPublic: the public area, its Name, and QN = H(parent QN || Name) */
	CU_ASSERT_EQUAL_FATAL(read_public(srk.handle, &pub, &srk_name, &srk_qn), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&pub, &srk.pub));
	CU_ASSERT(same_name(&srk_name, &srk.name));
	CU_ASSERT_EQUAL_FATAL(read_public(handle, &pub, &name, &qn), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&pub, &item.pub));
	CU_ASSERT(same_name(&name, &item.name));
	memcpy(buf, srk_qn.b, 34);
	memcpy(buf + 34, name.b, 34);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, buf, sizeof(buf), d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(qn.size, 34);
	CU_ASSERT(memcmp(qn.b + 2, d, 32) == 0);

	/* the same blob loads again, into another handle */
	CU_ASSERT_EQUAL(load(srk.handle, &item.priv, &item.pub, &handle), TPM_RC_SUCCESS);
	flush(handle);
	CU_ASSERT_EQUAL(read_public(handle, &pub, &name, &qn), TPM_RC_REFERENCE_H0);
	teardown();
}

/* creationData, creationHash and the ticket, all recomputed from what the TPM holds. */
static void test_creation_data(void)
{
	struct tpml_pcr_selection pcrs = { 0 };
	struct tpmt_public t;
	struct made srk, key, null_key;
	struct tpm2b_name pname, pqn, name;
	struct tpml_pcr_selection sel;
	struct tpm2b_digest pcr_digest, hash;
	struct tpm2b_data outside;
	uint8_t locality, concat[64], mac_in[2 + 34 + 32], mac[32];
	uint16_t parent_alg;
	struct rd r;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);
	pcrs.count = 1;
	pcrs.sel[0].hash = TPM_ALG_SHA256;
	pcrs.sel[0].size_of_select = 3;
	pcrs.sel[0].select[0] = 0x03; /* PCR 0 and 1 */
	signing_ecc(&t);
	CU_ASSERT_EQUAL_FATAL(create_with(srk.handle, "", &t, "", "", "xyz", &pcrs, &key),
			      TPM_RC_SUCCESS);

	rd_init(&r, key.creation, key.creation_len);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &sel), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sel.count, 1);
	CU_ASSERT_EQUAL(sel.sel[0].select[0], 0x03);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &pcr_digest), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &locality), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u16(&r, &parent_alg), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &pname), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &pqn), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, outside.b, sizeof(outside.b), &outside.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);

	memcpy(concat, pcr_value(h.e, TPM_ALG_SHA256, 0), 32);
	memcpy(concat + 32, pcr_value(h.e, TPM_ALG_SHA256, 1), 32);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, concat, 64, hash.b), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pcr_digest.size, 32);
	CU_ASSERT(memcmp(pcr_digest.b, hash.b, 32) == 0);
	CU_ASSERT_EQUAL(locality, TPMA_LOCALITY_TPM2_LOC_ZERO);
	CU_ASSERT_EQUAL(parent_alg, TPM_ALG_SHA256);
	CU_ASSERT(same_name(&pname, &srk.name));
	CU_ASSERT_EQUAL(pqn.size, 34);
	CU_ASSERT_EQUAL(outside.size, 3);
	CU_ASSERT(memcmp(outside.b, "xyz", 3) == 0);

	/* creationHash = H(creationData); ticket = HMAC(owner proof, CREATION || Name || hash) */
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, key.creation, key.creation_len, hash.b),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(key.creation_hash.size, 32);
	CU_ASSERT(memcmp(key.creation_hash.b, hash.b, 32) == 0);
	CU_ASSERT_EQUAL(key.ticket.tag, TPM_ST_CREATION);
	CU_ASSERT_EQUAL(key.ticket.hierarchy, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(key.ticket.digest.size, 32);
	mac_in[0] = 0x80;
	mac_in[1] = 0x21;
	memcpy(mac_in + 2, key.name.b, 34);
	memcpy(mac_in + 36, hash.b, 32);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, hier_proof(h.e, TPM_RH_OWNER),
				    PRIMARY_SEED_SIZE, mac_in, sizeof(mac_in), mac),
			TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(key.ticket.digest.b, mac, 32) == 0);

	/* a primary's parent is its hierarchy; the NULL hierarchy's ticket is the NULL Ticket */
	rd_init(&r, srk.creation, srk.creation_len);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &sel), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sel.count, 0);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &pcr_digest), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "", 0, hash.b), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(pcr_digest.b, hash.b, 32) == 0);
	CU_ASSERT_EQUAL(rd_u8(&r, &locality), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u16(&r, &parent_alg), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(parent_alg, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(name.size, 4);
	CU_ASSERT_EQUAL(name.b[3], 0x01);
	CU_ASSERT_EQUAL(srk.ticket.hierarchy, TPM_RH_OWNER);
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_NULL, &t, "", "", &null_key), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(null_key.ticket.tag, TPM_ST_CREATION);
	CU_ASSERT_EQUAL(null_key.ticket.hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL(null_key.ticket.digest.size, 0);
	teardown();
}

static void test_create_errors(void)
{
	struct tpmt_public t;
	struct made srk, item, m;
	TPM_HANDLE sealed_handle;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);

	/* the TPM cannot invent sealed data */
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED | ORIGIN);
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_ATTRIBUTES, 2));
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED); /* ... and the caller must give some */
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_ATTRIBUTES, 2));
	key_template_attrs(&t, TPM_ALG_RSA, SIGNING);
	t.key_bits = 1024;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_KEY_SIZE, 2));
	signing_ecc(&t);
	t.attributes |= TPMA_OBJECT_RESTRICTED;
	t.scheme.scheme = TPM_ALG_NULL;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_SCHEME, 2));
	signing_ecc(&t);
	t.auth_policy.size = 20;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_SIZE, 2));
	signing_ecc(&t);
	t.attributes &= ~(uint32_t)TPMA_OBJECT_FIXEDPARENT;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_ATTRIBUTES, 2));
	signing_ecc(&t);
	t.curve_id = TPM_ECC_BN_P256;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_CURVE, 2));
	signing_ecc(&t);
	t.attributes |= 0x8;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "", "", &m), RC_P(TPM_RC_RESERVED_BITS, 2));
	signing_ecc(&t);
	t.name_alg = TPM_ALG_SHA1;
	CU_ASSERT_EQUAL(create(srk.handle, &t, "012345678901234567890", "", &m),
			RC_P(TPM_RC_SIZE, 1));

	/* only a storage key is a parent */
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create(srk.handle, &t, "", "x", &item), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(srk.handle, &item.priv, &item.pub, &sealed_handle),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(create(sealed_handle, &t, "", "x", &m), RC_H(TPM_RC_TYPE, 1));
	CU_ASSERT_EQUAL(create(0x80FFFFFF, &t, "", "x", &m), TPM_RC_REFERENCE_H0);
	teardown();
}

static void test_load_errors(void)
{
	struct tpmt_public t, other_pub;
	struct made srk, other, item;
	struct tpm2b_private bad;
	TPM_HANDLE handle;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_ENDORSEMENT, &t, "", "", &other),
			      TPM_RC_SUCCESS);
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create(srk.handle, &t, "", "secret", &item), TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL(load(other.handle, &item.priv, &item.pub, &handle),
			RC_P(TPM_RC_INTEGRITY, 1));
	bad = item.priv;
	bad.b[bad.size - 1] ^= 0x80;
	CU_ASSERT_EQUAL(load(srk.handle, &bad, &item.pub, &handle), RC_P(TPM_RC_INTEGRITY, 1));
	bad = item.priv;
	bad.b[5] ^= 0x01;
	CU_ASSERT_EQUAL(load(srk.handle, &bad, &item.pub, &handle), RC_P(TPM_RC_INTEGRITY, 1));
	bad.size = 0;
	CU_ASSERT_EQUAL(load(srk.handle, &bad, &item.pub, &handle), RC_P(TPM_RC_SIZE, 1));
	other_pub = item.pub;
	other_pub.attributes |= TPMA_OBJECT_NODA;
	CU_ASSERT_EQUAL(load(srk.handle, &item.priv, &other_pub, &handle),
			RC_P(TPM_RC_INTEGRITY, 1));
	other_pub = item.pub;
	other_pub.unique.size = 20;
	CU_ASSERT_EQUAL(load(srk.handle, &item.priv, &other_pub, &handle), RC_P(TPM_RC_KEY, 2));
	CU_ASSERT_EQUAL(load(srk.handle, &item.priv, &item.pub, &handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(load(handle, &item.priv, &item.pub, &handle), RC_H(TPM_RC_TYPE, 1));
	teardown();
}

static void test_unseal_errors(void)
{
	struct tpmt_public t;
	struct made srk, hmac_key;
	struct tpm2b_sensitive_data data;
	TPM_HANDLE handle;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(srk.handle, "", &data), RC_H(TPM_RC_TYPE, 1));
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SIGNING);
	t.scheme.scheme = TPM_ALG_HMAC;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(create(srk.handle, &t, "", "", &hmac_key), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(srk.handle, &hmac_key.priv, &hmac_key.pub, &handle),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(handle, "", &data), RC_H(TPM_RC_ATTRIBUTES, 1));
	teardown();
}

/* ---- CreateLoaded ---- */

static TPM_RC create_loaded(TPM_HANDLE parent, const struct tpmt_public *t, const char *data,
			    struct made *m)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	memset(m, 0, sizeof(*m));
	cmd_begin(&b, TPM_CC_CreateLoaded);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", data, (uint16_t)strlen(data));
	wr_tpm2b_public(&b.params, t);
	rc = harness_run(&h, &b, &r, &m->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, m->priv.b, sizeof(m->priv.b), &m->priv.size),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_public(&r, &m->pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &m->name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static void test_create_loaded(void)
{
	struct tpmt_public t;
	struct made primary, loaded_primary, child, sealed;
	struct tpm2b_sensitive_data data;
	TPM_HANDLE handle;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &primary), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_loaded(TPM_RH_OWNER, &t, "", &loaded_primary),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(loaded_primary.priv.size, 0);
	CU_ASSERT(same_public(&primary.pub, &loaded_primary.pub));
	CU_ASSERT(same_name(&primary.name, &loaded_primary.name));

	signing_ecc(&t);
	CU_ASSERT_EQUAL_FATAL(create_loaded(primary.handle, &t, "", &child), TPM_RC_SUCCESS);
	CU_ASSERT(child.priv.size > 0);
	CU_ASSERT_EQUAL(load(primary.handle, &child.priv, &child.pub, &handle), TPM_RC_SUCCESS);

	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create_loaded(primary.handle, &t, "data", &sealed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(sealed.handle, "", &data), TPM_RC_SUCCESS);
	CU_ASSERT(data.size == 4 && memcmp(data.b, "data", 4) == 0);
	CU_ASSERT_EQUAL(create_loaded(sealed.handle, &t, "data", &child), RC_H(TPM_RC_TYPE, 1));
	t.attributes |= ORIGIN;
	CU_ASSERT_EQUAL(create_loaded(TPM_RH_OWNER, &t, "", &child), RC_P(TPM_RC_ATTRIBUTES, 2));
	teardown();
}

/* ---- ObjectChangeAuth ---- */

static TPM_RC change_auth(TPM_HANDLE obj, TPM_HANDLE parent, const char *pw,
			  const char *new_auth, struct tpm2b_private *out)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ObjectChangeAuth);
	cmd_handle(&b, obj);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, pw);
	wr_tpm2b(&b.params, new_auth, (uint16_t)strlen(new_auth));
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->b, sizeof(out->b), &out->size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static void test_change_auth(void)
{
	struct tpmt_public t;
	struct made srk, other, item;
	struct tpm2b_private priv;
	struct tpm2b_sensitive_data data;
	TPM_HANDLE old_handle, new_handle;

	setup();
	key_storage_template(&t, TPM_ALG_ECC, STORAGE);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &srk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_ENDORSEMENT, &t, "", "", &other),
			      TPM_RC_SUCCESS);
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create(srk.handle, &t, "old", "secret", &item), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(srk.handle, &item.priv, &item.pub, &old_handle),
			      TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL(change_auth(old_handle, srk.handle, "old", "new", &priv), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(srk.handle, &priv, &item.pub, &new_handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(new_handle, "new", &data), TPM_RC_SUCCESS);
	CU_ASSERT(data.size == 6 && memcmp(data.b, "secret", 6) == 0);
	CU_ASSERT_EQUAL(unseal(new_handle, "old", &data), RC_S(TPM_RC_AUTH_FAIL, 1));
	/* the loaded object keeps its old authValue */
	CU_ASSERT_EQUAL(unseal(old_handle, "old", &data), TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL(change_auth(old_handle, other.handle, "old", "new", &priv),
			RC_H(TPM_RC_TYPE, 2));
	CU_ASSERT_EQUAL(change_auth(old_handle, srk.handle, "old",
				    "012345678901234567890123456789012", &priv),
			RC_P(TPM_RC_SIZE, 1));
	/* a primary has no parent object */
	CU_ASSERT_EQUAL(change_auth(srk.handle, other.handle, "", "new", &priv),
			RC_H(TPM_RC_TYPE, 2));
	teardown();
}

/* ---- LoadExternal ---- */

static TPM_RC load_external(const struct tpmt_sensitive *sens, const struct tpmt_public *pub,
			    TPM_HANDLE hierarchy, TPM_HANDLE *out, struct tpm2b_name *name)
{
	struct cmdbuf b;
	struct rd r;
	size_t mark;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_size_begin(&b.params, &mark);
	if (sens)
		wr_sensitive(&b.params, sens);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, pub);
	wr_u32(&b.params, hierarchy);
	rc = harness_run(&h, &b, &r, out);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}

static void external_ecc(struct tpmt_public *p, struct tpmt_sensitive *s)
{
	signing_ecc(p);
	p->attributes &= ~(uint32_t)FIXED;
	memset(s, 0, sizeof(*s));
	s->type = TPM_ALG_ECC;
	s->auth_value.size = 1;
	s->auth_value.b[0] = 'k';
	s->sensitive.size = 32;
	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256,
						  s->sensitive.b, p->x.b, p->y.b),
			      TPM_RC_SUCCESS);
	p->x.size = p->y.size = 32;
}

static void test_load_external(void)
{
	struct tpmt_public p, q, pub;
	struct tpmt_sensitive s, t;
	struct tpm2b_name name, rname, qn, hq, want;
	struct tpm2b_sensitive_data data;
	TPM_HANDLE handle;

	setup();
	external_ecc(&p, &s);
	/* public part only, in any hierarchy; QN from the hierarchy handle */
	CU_ASSERT_EQUAL_FATAL(load_external(NULL, &p, TPM_RH_OWNER, &handle, &name),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(object_name(&p, &want), TPM_RC_SUCCESS);
	CU_ASSERT(same_name(&name, &want));
	CU_ASSERT_EQUAL_FATAL(read_public(handle, &pub, &rname, &qn), TPM_RC_SUCCESS);
	object_hierarchy_qn(TPM_RH_OWNER, &hq);
	CU_ASSERT_EQUAL(object_qualified_name(&hq, &name, TPM_ALG_SHA256, &want), TPM_RC_SUCCESS);
	CU_ASSERT(same_name(&qn, &want));
	/* a public key of a fixedTPM object may be loaded; its private part never */
	q = p;
	q.attributes |= FIXED;
	CU_ASSERT_EQUAL(load_external(NULL, &q, TPM_RH_ENDORSEMENT, &handle, &name),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(load_external(&s, &q, TPM_RH_NULL, &handle, &name),
			RC_P(TPM_RC_ATTRIBUTES, 2));

	/* with the private part: NULL hierarchy only, and it must match */
	CU_ASSERT_EQUAL(load_external(&s, &p, TPM_RH_NULL, &handle, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(load_external(&s, &p, TPM_RH_OWNER, &handle, &name),
			RC_P(TPM_RC_HIERARCHY, 3));
	CU_ASSERT_EQUAL(load_external(&s, &p, TPM_RH_LOCKOUT, &handle, &name),
			RC_P(TPM_RC_VALUE, 3));
	external_ecc(&q, &t);
	CU_ASSERT_EQUAL(load_external(&t, &p, TPM_RH_NULL, &handle, &name),
			RC_P(TPM_RC_BINDING, 1));
	q = p;
	q.x.b[0] ^= 1;
	CU_ASSERT_EQUAL(load_external(NULL, &q, TPM_RH_NULL, &handle, &name),
			RC_P(TPM_RC_ECC_POINT, 2));
	t = s;
	t.type = TPM_ALG_RSA;
	CU_ASSERT_EQUAL(load_external(&t, &p, TPM_RH_NULL, &handle, &name), RC_P(TPM_RC_TYPE, 1));

	/* an external sealed object: unique = H(seedValue || data) */
	key_template_attrs(&p, TPM_ALG_KEYEDHASH, USER);
	memset(&s, 0, sizeof(s));
	s.type = TPM_ALG_KEYEDHASH;
	s.seed_value.size = 32;
	memset(s.seed_value.b, 7, 32);
	s.sensitive.size = 4;
	memcpy(s.sensitive.b, "blob", 4);
	{
		uint8_t in[36];

		memcpy(in, s.seed_value.b, 32);
		memcpy(in + 32, "blob", 4);
		CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, in, 36, p.unique.b), TPM_RC_SUCCESS);
		p.unique.size = 32;
	}
	CU_ASSERT_EQUAL_FATAL(load_external(&s, &p, TPM_RH_NULL, &handle, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(handle, "", &data), TPM_RC_SUCCESS);
	CU_ASSERT(data.size == 4 && memcmp(data.b, "blob", 4) == 0);
	s.sensitive.b[0] = 'B';
	CU_ASSERT_EQUAL(load_external(&s, &p, TPM_RH_NULL, &handle, &name),
			RC_P(TPM_RC_BINDING, 1));
	teardown();
}

/* ---- post-quantum ---- */

static void test_pq(void)
{
	struct tpmt_public t, pub;
	struct tpmt_sensitive s;
	struct made kem_srk, item, dsa;
	struct tpm2b_name name, qn;
	struct tpm2b_sensitive_data data;
	uint8_t sk[MLDSA_MAX_SK_BYTES];
	TPM_HANDLE handle;

	setup();
	/* an ML-KEM-768 storage parent protects a sealed object */
	key_storage_template(&t, TPM_ALG_MLKEM, STORAGE);
	t.parameter_set = TPM_MLKEM_768;
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &kem_srk), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(kem_srk.pub.unique.size, 1184);
	key_template_attrs(&t, TPM_ALG_KEYEDHASH, SEALED);
	CU_ASSERT_EQUAL_FATAL(create(kem_srk.handle, &t, "", "pq secret", &item), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(kem_srk.handle, &item.priv, &item.pub, &handle),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(handle, "", &data), TPM_RC_SUCCESS);
	CU_ASSERT(data.size == 9 && memcmp(data.b, "pq secret", 9) == 0);

	/* ML-DSA-87 signing keys: primaries are deterministic, children load and read back */
	key_template_attrs(&t, TPM_ALG_MLDSA, SIGNING);
	t.parameter_set = TPM_MLDSA_87;
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &dsa), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(dsa.pub.unique.size, 2592);
	CU_ASSERT_EQUAL_FATAL(create_primary(TPM_RH_OWNER, &t, "", "", &item), TPM_RC_SUCCESS);
	CU_ASSERT(same_public(&dsa.pub, &item.pub));
	t.parameter_set = TPM_MLDSA_44;
	t.attributes |= TPMA_OBJECT_RESTRICTED;
	CU_ASSERT_EQUAL_FATAL(create(kem_srk.handle, &t, "", "", &item), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load(kem_srk.handle, &item.priv, &item.pub, &handle),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(read_public(handle, &pub, &name, &qn), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pub.unique.size, 1312);
	CU_ASSERT(same_public(&pub, &item.pub));
	t.attributes |= TPMA_OBJECT_DECRYPT;
	CU_ASSERT_EQUAL(create(kem_srk.handle, &t, "", "", &item), RC_P(TPM_RC_ATTRIBUTES, 2));

	/* an ML-DSA key from outside: the seed is the private part */
	key_template_attrs(&t, TPM_ALG_MLDSA, USER | TPMA_OBJECT_SIGN_ENCRYPT);
	t.parameter_set = TPM_MLDSA_65;
	memset(&s, 0, sizeof(s));
	s.type = TPM_ALG_MLDSA;
	s.sensitive.size = 32;
	memset(s.sensitive.b, 0x5A, 32);
	CU_ASSERT_EQUAL_FATAL(mldsa_keygen(TPM_MLDSA_65, s.sensitive.b, t.unique.b, sk), 0);
	t.unique.size = 1952;
	CU_ASSERT_EQUAL(load_external(&s, &t, TPM_RH_NULL, &handle, &name), TPM_RC_SUCCESS);
	s.sensitive.b[31] ^= 1;
	CU_ASSERT_EQUAL(load_external(&s, &t, TPM_RH_NULL, &handle, &name),
			RC_P(TPM_RC_BINDING, 1));
	t.unique.size = 1312;
	CU_ASSERT_EQUAL(load_external(NULL, &t, TPM_RH_NULL, &handle, &name), RC_P(TPM_RC_KEY, 2));
	teardown();
}

/* ---- ReadPublic of what has no public area ---- */

static void test_read_public_sequence(void)
{
	struct tpmt_public pub;
	struct tpm2b_name name, qn;
	struct cmdbuf b;
	TPM_HANDLE seq;

	setup();
	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_public(seq, &pub, &name, &qn), TPM_RC_SEQUENCE);
	CU_ASSERT_EQUAL(read_public(TPM_RH_OWNER, &pub, &name, &qn), RC_H(TPM_RC_VALUE, 1));
	teardown();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "primary determinism", test_primary_determinism },
		{ "primary RSA", test_primary_rsa },
		{ "primary across restart", test_primary_restart },
		{ "primary errors", test_primary_errors },
		{ "create, load, unseal, read public", test_create_load_unseal },
		{ "creation data and ticket", test_creation_data },
		{ "create errors", test_create_errors },
		{ "load errors", test_load_errors },
		{ "unseal errors", test_unseal_errors },
		{ "create loaded", test_create_loaded },
		{ "object change auth", test_change_auth },
		{ "load external", test_load_external },
		{ "post-quantum keys", test_pq },
		{ "read public of a sequence", test_read_public_sequence },
	};
	int failed;

	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	failed = UNIT_RUN("object commands", tests, NULL, NULL);
	harness_rm_tree(tmp_root);
	return failed;
}
