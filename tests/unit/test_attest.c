/* Attestation commands (core/attest.c, core/cmd/attest.c): Quote, Certify, CertifyCreation
 * and GetTime with RSA, ECC, ML-DSA-44/65/87 and HashML-DSA keys. Every signature is checked
 * over the returned TPMS_ATTEST with the engine's verifier, every header field is checked (the
 * Part 1 obfuscation of the counts and firmware version recomputed with KDFa), the quote's
 * pcrDigest is recomputed from PCR_Read, and the errors carry the exact codes. */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <pqtpm/tss.h>

#include "attest.h"
#include "engine_int.h"
#include "harness.h"
#include "object/object.h"
#include "pq_util.h"
#include "scheme.h"
#include "sessions.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED
#define AK (SIGN | RESTRICTED)

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- keys ---- */

struct akey {
	TPM_HANDLE handle, hierarchy;
	struct tpmt_public pub;
	struct tpm2b_name name;
	struct tpm2b_digest creation_hash;
	struct tpmt_ticket creation_ticket;
};

static TPM_RC make_key(TPM_HANDLE hierarchy, const struct tpmt_public *t, struct akey *k)
{
	struct cmdbuf b;
	struct rd rsp, sub;
	uint16_t size;
	size_t mark;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hierarchy);
	cmd_auth_pw(&b, "");
	wr_size_begin(&b.params, &mark);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 0);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	rc = harness_run(&h, &b, &rsp, &k->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	k->hierarchy = hierarchy;
	CU_ASSERT_EQUAL(rd_tpm2b_public(&rsp, &k->pub), 0);
	CU_ASSERT_EQUAL(rd_sub(&rsp, &sub, &size), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &k->creation_hash), 0);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, &k->creation_ticket), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&rsp, &k->name), 0);
	return rc;
}

/* A signing key of type (set: ML-DSA parameter set) with scheme/hash, in hierarchy. */
static void key_of(TPM_HANDLE hierarchy, TPM_ALG_ID type, uint16_t set, uint32_t attrs,
		   TPM_ALG_ID scheme, TPM_ALG_ID hash, struct akey *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, type, set, attrs);
	t.scheme.scheme = scheme;
	t.scheme.hash_alg = hash;
	CU_ASSERT_EQUAL_FATAL(make_key(hierarchy, &t, k), TPM_RC_SUCCESS);
}

/* The same for an ECC key on curve */
static void ecc_key_of(TPM_HANDLE hierarchy, uint16_t curve, uint32_t attrs, TPM_ALG_ID scheme,
		       TPM_ALG_ID hash, struct akey *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_ECC, 0, attrs);
	t.curve_id = curve;
	t.scheme.scheme = scheme;
	t.scheme.hash_alg = hash;
	CU_ASSERT_EQUAL_FATAL(make_key(hierarchy, &t, k), TPM_RC_SUCCESS);
}

static void storage_key(TPM_HANDLE hierarchy, struct akey *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_ECC, 0, PQ_STORAGE);
	CU_ASSERT_EQUAL_FATAL(make_key(hierarchy, &t, k), TPM_RC_SUCCESS);
}

static void flush(TPM_HANDLE handle)
{
	CU_ASSERT_EQUAL(pq_flush(&h, handle), TPM_RC_SUCCESS);
}

/* ---- the attestation response ---- */

struct att {
	uint8_t raw[2048];
	uint16_t len;
	struct tpmt_signature sig;
	uint32_t magic;
	uint16_t type;
	struct tpm2b_name signer;
	struct attest_data extra;
	uint64_t clock, fw;
	uint32_t reset, restart;
	uint8_t safe;
	struct rd body;	/* the attested union */
	size_t rsp_len;	/* of the whole response */
};

static const struct tpmt_scheme null_scheme = { .scheme = TPM_ALG_NULL,
						.hash_alg = TPM_ALG_NULL,
						.kdf = TPM_ALG_NULL };

static void parse(struct att *a)
{
	struct rd r;

	rd_init(&r, a->raw, a->len);
	CU_ASSERT_EQUAL(rd_u32(&r, &a->magic), 0);
	CU_ASSERT_EQUAL(rd_u16(&r, &a->type), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &a->signer), 0);
	CU_ASSERT_EQUAL(attest_rd_data(&r, &a->extra), 0);
	CU_ASSERT_EQUAL(rd_u64(&r, &a->clock), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &a->reset), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &a->restart), 0);
	CU_ASSERT_EQUAL(rd_u8(&r, &a->safe), 0);
	CU_ASSERT_EQUAL(rd_u64(&r, &a->fw), 0);
	a->body = r;
	CU_ASSERT_EQUAL(a->magic, TPM_GENERATED_VALUE);
}

static TPM_RC run_attest(struct cmdbuf *b, struct att *a)
{
	struct rd rsp;
	TPM_RC rc;

	memset(a, 0, sizeof(*a));
	rc = harness_run(&h, b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	a->rsp_len = h.rsp_len;
	CU_ASSERT(a->rsp_len <= PQTPM_MAX_RESPONSE_SIZE);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&rsp, a->raw, sizeof(a->raw), &a->len), 0);
	CU_ASSERT_EQUAL(rd_signature(&rsp, &a->sig), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	parse(a);
	return rc;
}

/* A TPM_ALG_NULL signature is two bytes, which rd_signature refuses (no command takes one):
 * read by hand. */
static TPM_RC run_attest_unsigned(struct cmdbuf *b, struct att *a)
{
	struct rd rsp;
	uint16_t alg;
	TPM_RC rc;

	memset(a, 0, sizeof(*a));
	rc = harness_run(&h, b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&rsp, a->raw, sizeof(a->raw), &a->len), 0);
	CU_ASSERT_EQUAL(rd_u16(&rsp, &alg), 0);
	CU_ASSERT_EQUAL(alg, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	a->sig.sig_alg = alg;
	parse(a);
	return rc;
}

static void wr_data(struct wr *w, const uint8_t *q, uint16_t qlen)
{
	wr_tpm2b(w, q, qlen);
}

static const uint8_t nonce[] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
				 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };

/* Quote PCRs 0 and 16 of the SHA-256 bank. */
static void quote_cmd(struct cmdbuf *b, TPM_HANDLE key, const uint8_t *q, uint16_t qlen,
		      const struct tpmt_scheme *s)
{
	cmd_begin(b, TPM_CC_Quote);
	cmd_handle(b, key);
	cmd_auth_pw(b, "");
	wr_data(&b->params, q, qlen);
	wr_scheme(&b->params, s);
	wr_u32(&b->params, 1);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_u8(&b->params, 3);
	wr_u8(&b->params, 0x01);
	wr_u8(&b->params, 0x00);
	wr_u8(&b->params, 0x01);
}

static void certify_cmd(struct cmdbuf *b, TPM_HANDLE obj, TPM_HANDLE key,
			const struct tpmt_scheme *s)
{
	cmd_begin(b, TPM_CC_Certify);
	cmd_handle(b, obj);
	cmd_handle(b, key);
	cmd_auth_pw(b, "");
	cmd_auth_pw(b, "");
	wr_data(&b->params, nonce, sizeof(nonce));
	wr_scheme(&b->params, s);
}

static void certify_creation_cmd(struct cmdbuf *b, TPM_HANDLE key, const struct akey *obj,
				 const struct tpm2b_digest *hash, const struct tpmt_ticket *t,
				 const struct tpmt_scheme *s)
{
	cmd_begin(b, TPM_CC_CertifyCreation);
	cmd_handle(b, key);
	cmd_handle(b, obj->handle);
	cmd_auth_pw(b, "");
	wr_data(&b->params, nonce, sizeof(nonce));
	wr_tpm2b_digest(&b->params, hash);
	wr_scheme(&b->params, s);
	wr_ticket(&b->params, t);
}

static void get_time_cmd(struct cmdbuf *b, TPM_HANDLE privacy, TPM_HANDLE key,
			 const struct tpmt_scheme *s)
{
	cmd_begin(b, TPM_CC_GetTime);
	cmd_handle(b, privacy);
	cmd_handle(b, key);
	cmd_auth_pw(b, "");
	cmd_auth_pw(b, "");
	wr_data(&b->params, nonce, sizeof(nonce));
	wr_scheme(&b->params, s);
}

/* ---- checks ---- */

static void verify(const struct akey *k, const struct att *a)
{
	struct key_material *m = calloc(1, sizeof(*m));

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->pub = k->pub;
	scheme_mldsa_tr(&m->pub, m->mldsa_tr); /* as key_material_of has it for ML-DSA kinds */
	CU_ASSERT_EQUAL(scheme_verify_message(m, a->raw, a->len, &a->sig), TPM_RC_SUCCESS);
	/* one changed byte of the structure and the signature no longer holds */
	{
		struct att bad = *a;

		bad.raw[bad.len - 1] ^= 1;
		CU_ASSERT_NOT_EQUAL(scheme_verify_message(m, bad.raw, bad.len, &bad.sig),
				    TPM_RC_SUCCESS);
	}
	free(m);
}

static void qualified_name(const struct akey *k, struct tpm2b_name *qn)
{
	struct tpm2b_name hier;

	object_hierarchy_qn(k->hierarchy, &hier);
	CU_ASSERT_EQUAL(object_qualified_name(&hier, &k->name, k->pub.name_alg, qn), 0);
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Part 1 Privacy: signer outside endorsement/platform → counts and firmware obfuscated with
 * KDFa(nameAlg, shProof, "OBFUSCATE", QN, 128). */
static void check_header(const struct att *a, uint16_t type, const struct tpm2b_name *qn,
			 TPM_ALG_ID name_alg, bool obfuscated)
{
	uint64_t fw = (uint64_t)FIRMWARE_VERSION_1 << 32 | FIRMWARE_VERSION_2;
	uint32_t reset = h.e->ps.reset_count, restart = h.e->ps.restart_count;
	uint8_t k[16];

	CU_ASSERT_EQUAL(a->type, type);
	CU_ASSERT_EQUAL(a->signer.size, qn->size);
	CU_ASSERT_EQUAL(memcmp(a->signer.b, qn->b, qn->size), 0);
	CU_ASSERT_EQUAL(a->extra.size, sizeof(nonce));
	CU_ASSERT_EQUAL(memcmp(a->extra.b, nonce, sizeof(nonce)), 0);
	CU_ASSERT_EQUAL(a->safe, 1);
	CU_ASSERT(a->clock <= engine_clock_ms(h.e));
	if (obfuscated) {
		CU_ASSERT_EQUAL(crypto_kdfa(name_alg, h.e->ps.hier[HIER_OWNER].proof,
					    PRIMARY_SEED_SIZE, "OBFUSCATE", qn->b, qn->size, NULL,
					    0, 128, k),
				0);
		fw += (uint64_t)be32(k) << 32 | be32(k + 4);
		reset += be32(k + 8);
		restart += be32(k + 12);
		CU_ASSERT_NOT_EQUAL(a->fw, (uint64_t)FIRMWARE_VERSION_1 << 32 | FIRMWARE_VERSION_2);
	}
	CU_ASSERT_EQUAL(a->fw, fw);
	CU_ASSERT_EQUAL(a->reset, reset);
	CU_ASSERT_EQUAL(a->restart, restart);
}

static void check_key_header(const struct att *a, uint16_t type, const struct akey *k)
{
	struct tpm2b_name qn;

	qualified_name(k, &qn);
	check_header(a, type, &qn, k->pub.name_alg,
		     k->hierarchy != TPM_RH_ENDORSEMENT && k->hierarchy != TPM_RH_PLATFORM);
}

/* The SHA-256 value of one PCR, by PCR_Read. */
static void pcr_read(unsigned pcr, uint8_t out[32])
{
	struct cmdbuf b;
	struct rd r;
	uint32_t counter, n;
	uint16_t size;
	uint8_t sel[3] = { 0 };
	struct tpml_pcr_selection got;

	sel[pcr / 8] = (uint8_t)(1u << (pcr % 8));
	cmd_begin(&b, TPM_CC_PCR_Read);
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u8(&b.params, 3);
	wr_bytes(&b.params, sel, 3);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &counter), 0);
	CU_ASSERT_EQUAL(rd_pcr_selection(&r, &got), 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out, 32, &size), 0);
	CU_ASSERT_EQUAL(size, 32);
}

static void pcr_extend16(uint8_t fill)
{
	struct cmdbuf b;
	uint8_t d[32];

	memset(d, fill, sizeof(d));
	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 16);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, d, sizeof(d));
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
}

/* TPMS_QUOTE_INFO: selection {SHA-256: 0, 16}, digest = H(PCR0 || PCR16) with hash. */
static void check_quote_body(struct att *a, TPM_ALG_ID hash)
{
	struct tpml_pcr_selection sel;
	struct tpm2b_digest digest;
	uint8_t cat[64], want[64];

	CU_ASSERT_EQUAL(rd_pcr_selection(&a->body, &sel), 0);
	CU_ASSERT_EQUAL(sel.count, 1);
	CU_ASSERT_EQUAL(sel.sel[0].hash, TPM_ALG_SHA256);
	CU_ASSERT(sel.sel[0].select[0] == 1 && sel.sel[0].select[1] == 0 &&
		  sel.sel[0].select[2] == 1);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&a->body, &digest), 0);
	CU_ASSERT_EQUAL(rd_left(&a->body), 0);
	pcr_read(0, cat);
	pcr_read(16, cat + 32);
	CU_ASSERT_EQUAL(crypto_hash(hash, cat, sizeof(cat), want), 0);
	CU_ASSERT_EQUAL(digest.size, crypto_hash_size(hash));
	CU_ASSERT_EQUAL(memcmp(digest.b, want, digest.size), 0);
}

/* Returns the length of the response. */
static size_t quote_with(const struct akey *k, const struct tpmt_scheme *s, TPM_ALG_ID hash,
			 TPM_ALG_ID sig_alg)
{
	struct cmdbuf b;
	struct att a;

	quote_cmd(&b, k->handle, nonce, sizeof(nonce), s);
	CU_ASSERT_EQUAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	if (!a.len)
		return 0;
	CU_ASSERT_EQUAL(a.sig.sig_alg, sig_alg);
	check_key_header(&a, TPM_ST_ATTEST_QUOTE, k);
	check_quote_body(&a, hash);
	verify(k, &a);
	return a.rsp_len;
}

/* ---- tests ---- */

static void test_quote_classical(void)
{
	struct tpmt_scheme pss = { .scheme = TPM_ALG_RSAPSS, .hash_alg = TPM_ALG_SHA256,
				   .kdf = TPM_ALG_NULL };
	struct akey rsa, rsa_open, ecc, p521;

	pcr_extend16(0x5a);
	/* an RSA AK of the endorsement hierarchy: RSASSA-SHA256, nothing obfuscated */
	key_of(TPM_RH_ENDORSEMENT, TPM_ALG_RSA, 0, AK, TPM_ALG_RSASSA, TPM_ALG_SHA256, &rsa);
	quote_with(&rsa, &null_scheme, TPM_ALG_SHA256, TPM_ALG_RSASSA);
	/* an ECC key of the owner hierarchy with ECDSA-SHA384: the PCR digest follows the
	 * scheme's hash; counts obfuscated */
	key_of(TPM_RH_OWNER, TPM_ALG_ECC, 0, AK, TPM_ALG_ECDSA, TPM_ALG_SHA384, &ecc);
	quote_with(&ecc, &null_scheme, TPM_ALG_SHA384, TPM_ALG_ECDSA);
	/* P-521 with ECDSA-SHA512 */
	ecc_key_of(TPM_RH_OWNER, TPM_ECC_NIST_P521, AK, TPM_ALG_ECDSA, TPM_ALG_SHA512, &p521);
	CU_ASSERT_EQUAL(p521.pub.x.size, 66);
	quote_with(&p521, &null_scheme, TPM_ALG_SHA512, TPM_ALG_ECDSA);
	/* an unrestricted RSA key without a scheme takes the inScheme */
	key_of(TPM_RH_OWNER, TPM_ALG_RSA, 0, SIGN, TPM_ALG_NULL, TPM_ALG_NULL, &rsa_open);
	quote_with(&rsa_open, &pss, TPM_ALG_SHA256, TPM_ALG_RSAPSS);
	flush(rsa.handle);
	flush(ecc.handle);
	flush(p521.handle);
	flush(rsa_open.handle);
}

/* Pure ML-DSA: signed over the marshalled TPMS_ATTEST with an empty context, PCR digest with
 * the nameAlg; every parameter set in both privacy classes, and the ML-DSA-87 response fits the
 * 8,192-byte buffer. */
static void test_quote_mldsa(void)
{
	static const uint16_t sets[] = { TPM_MLDSA_44, TPM_MLDSA_65, TPM_MLDSA_87 };
	struct tpmt_scheme mldsa = { .scheme = TPM_ALG_MLDSA, .hash_alg = TPM_ALG_NULL,
				     .kdf = TPM_ALG_NULL };
	struct tpmt_public t;
	struct akey k;
	size_t len;

	pcr_extend16(0xa5);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		key_of(i == 1 ? TPM_RH_OWNER : TPM_RH_ENDORSEMENT, TPM_ALG_MLDSA, sets[i], AK,
		       TPM_ALG_NULL, TPM_ALG_NULL, &k);
		len = quote_with(&k, &null_scheme, TPM_ALG_SHA256, TPM_ALG_MLDSA);
		quote_with(&k, &mldsa, TPM_ALG_SHA256, TPM_ALG_MLDSA);
		if (sets[i] == TPM_MLDSA_87)
			CU_ASSERT(len > 4627 && len <= PQTPM_MAX_RESPONSE_SIZE);
		flush(k.handle);
	}
	/* a SHA-384 nameAlg: the PCR digest is SHA-384 */
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_65, AK);
	t.name_alg = TPM_ALG_SHA384;
	CU_ASSERT_EQUAL_FATAL(make_key(TPM_RH_OWNER, &t, &k), TPM_RC_SUCCESS);
	quote_with(&k, &null_scheme, TPM_ALG_SHA384, TPM_ALG_MLDSA);
	flush(k.handle);
}

/* HashML-DSA: the structure hashed with the pre-hash, signed as PH(M) with an empty context;
 * the PCR digest uses the pre-hash too. */
static void test_quote_hash_mldsa(void)
{
	struct tpmt_public t;
	struct akey k;

	pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_44, AK);
	t.pre_hash = TPM_ALG_SHA512;
	CU_ASSERT_EQUAL_FATAL(make_key(TPM_RH_ENDORSEMENT, &t, &k), TPM_RC_SUCCESS);
	quote_with(&k, &null_scheme, TPM_ALG_SHA512, TPM_ALG_HASH_MLDSA);
	flush(k.handle);
}

/* TPMS_CERTIFY_INFO: the certified object's Name and Qualified Name. */
static void test_certify(void)
{
	struct akey obj, rsa, mldsa;
	struct tpm2b_name qn, name;
	struct cmdbuf b;
	struct att a;

	storage_key(TPM_RH_OWNER, &obj);
	qualified_name(&obj, &qn);
	key_of(TPM_RH_OWNER, TPM_ALG_RSA, 0, AK, TPM_ALG_RSASSA, TPM_ALG_SHA384, &rsa);
	key_of(TPM_RH_ENDORSEMENT, TPM_ALG_MLDSA, TPM_MLDSA_65, SIGN, TPM_ALG_NULL, TPM_ALG_NULL,
	       &mldsa);
	for (int i = 0; i < 2; i++) {
		const struct akey *k = i ? &mldsa : &rsa;

		certify_cmd(&b, obj.handle, k->handle, &null_scheme);
		CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
		check_key_header(&a, TPM_ST_ATTEST_CERTIFY, k);
		CU_ASSERT_EQUAL(rd_tpm2b_name(&a.body, &name), 0);
		CU_ASSERT(name.size == obj.name.size &&
			  memcmp(name.b, obj.name.b, name.size) == 0);
		CU_ASSERT_EQUAL(rd_tpm2b_name(&a.body, &name), 0);
		CU_ASSERT(name.size == qn.size && memcmp(name.b, qn.b, qn.size) == 0);
		CU_ASSERT_EQUAL(rd_left(&a.body), 0);
		verify(k, &a);
	}
	/* a key certifies itself */
	certify_cmd(&b, mldsa.handle, mldsa.handle, &null_scheme);
	CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	verify(&mldsa, &a);
	flush(obj.handle);
	flush(rsa.handle);
	flush(mldsa.handle);
}

/* TPM_RH_NULL as signer: the structure unsigned (TPM_ALG_NULL), the inScheme ignored, the
 * counts obfuscated (the NULL signer is in neither endorsement nor platform hierarchy, QN
 * TPM_RH_NULL, SHA-256). */
static void test_null_signer(void)
{
	struct tpmt_scheme ecdsa = { .scheme = TPM_ALG_ECDSA, .hash_alg = TPM_ALG_SHA256,
				     .kdf = TPM_ALG_NULL };
	struct tpm2b_name qn;
	struct akey obj;
	struct cmdbuf b;
	struct att a;

	object_hierarchy_qn(TPM_RH_NULL, &qn);
	storage_key(TPM_RH_OWNER, &obj);
	certify_cmd(&b, obj.handle, TPM_RH_NULL, &ecdsa);
	CU_ASSERT_EQUAL_FATAL(run_attest_unsigned(&b, &a), TPM_RC_SUCCESS);
	check_header(&a, TPM_ST_ATTEST_CERTIFY, &qn, TPM_ALG_SHA256, true);
	get_time_cmd(&b, TPM_RH_ENDORSEMENT, TPM_RH_NULL, &null_scheme);
	CU_ASSERT_EQUAL_FATAL(run_attest_unsigned(&b, &a), TPM_RC_SUCCESS);
	check_header(&a, TPM_ST_ATTEST_TIME, &qn, TPM_ALG_SHA256, true);
	/* Quote's signHandle takes no TPM_RH_NULL (TPMI_DH_OBJECT without +) */
	quote_cmd(&b, TPM_RH_NULL, nonce, sizeof(nonce), &null_scheme);
	CU_ASSERT_NOT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	flush(obj.handle);
}

/* TPMS_CREATION_INFO, and the creation ticket checked: changed HMAC, another creationHash,
 * another hierarchy, the NULL Ticket: TPM_RC_TICKET (parameter 4); another tag: TPM_RC_TAG. */
static void test_certify_creation(void)
{
	struct akey obj, k;
	struct tpmt_ticket t;
	struct tpm2b_digest hash;
	struct tpm2b_name name;
	struct cmdbuf b;
	struct att a;

	storage_key(TPM_RH_OWNER, &obj);
	key_of(TPM_RH_ENDORSEMENT, TPM_ALG_MLDSA, TPM_MLDSA_44, AK, TPM_ALG_NULL, TPM_ALG_NULL,
	       &k);
	certify_creation_cmd(&b, k.handle, &obj, &obj.creation_hash, &obj.creation_ticket,
			     &null_scheme);
	CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	check_key_header(&a, TPM_ST_ATTEST_CREATION, &k);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&a.body, &name), 0);
	CU_ASSERT(name.size == obj.name.size && memcmp(name.b, obj.name.b, name.size) == 0);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&a.body, &hash), 0);
	CU_ASSERT(hash.size == obj.creation_hash.size &&
		  memcmp(hash.b, obj.creation_hash.b, hash.size) == 0);
	CU_ASSERT_EQUAL(rd_left(&a.body), 0);
	verify(&k, &a);

	t = obj.creation_ticket;
	t.digest.b[3] ^= 0x40;
	certify_creation_cmd(&b, k.handle, &obj, &obj.creation_hash, &t, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TICKET, 4));
	hash = obj.creation_hash;
	hash.b[0] ^= 1;
	certify_creation_cmd(&b, k.handle, &obj, &hash, &obj.creation_ticket, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TICKET, 4));
	t = obj.creation_ticket;
	t.hierarchy = TPM_RH_ENDORSEMENT;
	certify_creation_cmd(&b, k.handle, &obj, &obj.creation_hash, &t, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TICKET, 4));
	t.hierarchy = TPM_RH_NULL;
	t.digest.size = 0;
	certify_creation_cmd(&b, k.handle, &obj, &obj.creation_hash, &t, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TICKET, 4));
	t = obj.creation_ticket;
	t.tag = TPM_ST_HASHCHECK;
	certify_creation_cmd(&b, k.handle, &obj, &obj.creation_hash, &t, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TAG, 4));
	/* the ticket of one object does not certify another */
	certify_creation_cmd(&b, k.handle, &k, &obj.creation_hash, &obj.creation_ticket,
			     &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_TICKET, 4));
	flush(obj.handle);
	flush(k.handle);
}

/* TPMS_TIME_ATTEST_INFO: time, clock, counts, safe and firmware as they are, whatever the
 * signer's hierarchy; the header's counts obfuscated for an owner key. */
static void test_get_time(void)
{
	struct akey e, o;
	struct cmdbuf b;
	struct att a;
	uint64_t time, clock, fw;
	uint32_t reset, restart;
	uint8_t safe;

	key_of(TPM_RH_ENDORSEMENT, TPM_ALG_ECC, 0, AK, TPM_ALG_ECDSA, TPM_ALG_SHA256, &e);
	key_of(TPM_RH_OWNER, TPM_ALG_MLDSA, TPM_MLDSA_87, AK, TPM_ALG_NULL, TPM_ALG_NULL, &o);
	for (int i = 0; i < 2; i++) {
		const struct akey *k = i ? &o : &e;

		get_time_cmd(&b, TPM_RH_ENDORSEMENT, k->handle, &null_scheme);
		CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
		check_key_header(&a, TPM_ST_ATTEST_TIME, k);
		CU_ASSERT_EQUAL(rd_u64(&a.body, &time), 0);
		CU_ASSERT_EQUAL(rd_u64(&a.body, &clock), 0);
		CU_ASSERT_EQUAL(rd_u32(&a.body, &reset), 0);
		CU_ASSERT_EQUAL(rd_u32(&a.body, &restart), 0);
		CU_ASSERT_EQUAL(rd_u8(&a.body, &safe), 0);
		CU_ASSERT_EQUAL(rd_u64(&a.body, &fw), 0);
		CU_ASSERT_EQUAL(rd_left(&a.body), 0);
		CU_ASSERT_EQUAL(clock, a.clock);
		CU_ASSERT(time <= engine_time_ms(h.e));
		CU_ASSERT_EQUAL(reset, h.e->ps.reset_count);
		CU_ASSERT_EQUAL(restart, h.e->ps.restart_count);
		CU_ASSERT_EQUAL(safe, 1);
		CU_ASSERT_EQUAL(fw, (uint64_t)FIRMWARE_VERSION_1 << 32 | FIRMWARE_VERSION_2);
		verify(k, &a);
	}
	/* privacyAdminHandle is the endorsement hierarchy only */
	get_time_cmd(&b, TPM_RH_OWNER, e.handle, &null_scheme);
	CU_ASSERT_NOT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	flush(e.handle);
	flush(o.handle);
}

/* The errors: qualifyingData past sizeof(TPMT_HA), keys that cannot sign, schemes that do not
 * fit, each with its number. */
static void test_errors(void)
{
	struct tpmt_scheme pss = { .scheme = TPM_ALG_RSAPSS, .hash_alg = TPM_ALG_SHA256,
				   .kdf = TPM_ALG_NULL },
			   ssa384 = { .scheme = TPM_ALG_RSASSA, .hash_alg = TPM_ALG_SHA384,
				      .kdf = TPM_ALG_NULL },
			   ecdsa = { .scheme = TPM_ALG_ECDSA, .hash_alg = TPM_ALG_SHA256,
				     .kdf = TPM_ALG_NULL },
			   hash_mldsa = { .scheme = TPM_ALG_HASH_MLDSA,
					  .hash_alg = TPM_ALG_SHA256, .kdf = TPM_ALG_NULL };
	uint8_t big[ATTEST_MAX_DATA + 1];
	struct akey rsa, open_rsa, mldsa, store;
	struct cmdbuf b;
	struct att a;

	memset(big, 7, sizeof(big));
	key_of(TPM_RH_OWNER, TPM_ALG_RSA, 0, AK, TPM_ALG_RSASSA, TPM_ALG_SHA256, &rsa);
	key_of(TPM_RH_OWNER, TPM_ALG_RSA, 0, SIGN, TPM_ALG_NULL, TPM_ALG_NULL, &open_rsa);
	key_of(TPM_RH_OWNER, TPM_ALG_MLDSA, TPM_MLDSA_44, AK, TPM_ALG_NULL, TPM_ALG_NULL, &mldsa);
	storage_key(TPM_RH_OWNER, &store);

	/* qualifyingData: 66 bytes (a TPMT_HA of SHA-512) fit, 67 do not */
	quote_cmd(&b, rsa.handle, big, ATTEST_MAX_DATA, &null_scheme);
	CU_ASSERT_EQUAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(a.extra.size, ATTEST_MAX_DATA);
	quote_cmd(&b, rsa.handle, big, sizeof(big), &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	get_time_cmd(&b, TPM_RH_ENDORSEMENT, rsa.handle, &null_scheme);
	b.params.off = 0;
	wr_data(&b.params, big, sizeof(big));
	wr_scheme(&b.params, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));

	/* a storage key does not sign: TPM_RC_KEY with the signHandle's number */
	quote_cmd(&b, store.handle, nonce, sizeof(nonce), &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_KEY, 1));
	certify_cmd(&b, rsa.handle, store.handle, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_KEY, 2));
	get_time_cmd(&b, TPM_RH_ENDORSEMENT, store.handle, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_KEY, 2));
	certify_creation_cmd(&b, store.handle, &store, &store.creation_hash,
			     &store.creation_ticket, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_KEY, 1));

	/* schemes: another scheme or hash than the key's, one for another key type, none at all */
	quote_cmd(&b, rsa.handle, nonce, sizeof(nonce), &pss);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	quote_cmd(&b, rsa.handle, nonce, sizeof(nonce), &ssa384);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	quote_cmd(&b, open_rsa.handle, nonce, sizeof(nonce), &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	quote_cmd(&b, open_rsa.handle, nonce, sizeof(nonce), &ecdsa);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	quote_cmd(&b, mldsa.handle, nonce, sizeof(nonce), &hash_mldsa);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	certify_cmd(&b, rsa.handle, mldsa.handle, &ecdsa);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));

	/* a quote with nothing selected is a digest of nothing, still signed */
	cmd_begin(&b, TPM_CC_Quote);
	cmd_handle(&b, mldsa.handle);
	cmd_auth_pw(&b, "");
	wr_data(&b.params, nonce, sizeof(nonce));
	wr_scheme(&b.params, &null_scheme);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	verify(&mldsa, &a);
	/* a truncated selection */
	cmd_begin(&b, TPM_CC_Quote);
	cmd_handle(&b, mldsa.handle);
	cmd_auth_pw(&b, "");
	wr_data(&b.params, nonce, sizeof(nonce));
	wr_scheme(&b.params, &null_scheme);
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_INSUFFICIENT, 3));
	flush(rsa.handle);
	flush(open_rsa.handle);
	flush(mldsa.handle);
	flush(store.handle);
}

/* GetCapability(TPM_CAP_COMMANDS) lists the five commands. */
static void test_capability(void)
{
	static const TPM_CC want[] = { TPM_CC_Certify, TPM_CC_CertifyCreation, TPM_CC_GetTime,
				       TPM_CC_Quote, TPM_CC_NV_Certify };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct cmdbuf b;
		struct rd r;
		uint8_t more;
		uint32_t cap, count, attrs;

		cmd_begin(&b, TPM_CC_GetCapability);
		wr_u32(&b.params, TPM_CAP_COMMANDS);
		wr_u32(&b.params, want[i]);
		wr_u32(&b.params, 1);
		CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u8(&r, &more), 0);
		CU_ASSERT_EQUAL(rd_u32(&r, &cap), 0);
		CU_ASSERT_EQUAL(rd_u32(&r, &count), 0);
		CU_ASSERT_EQUAL_FATAL(count, 1);
		CU_ASSERT_EQUAL(rd_u32(&r, &attrs), 0);
		CU_ASSERT_EQUAL(attrs & 0xFFFF, want[i]);
	}
}

/* ---- NV_Certify ---- */

#define NV_IDX 0x01400001u

static TPM_RC nv_define(uint32_t attrs, uint16_t size)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, "nv", 2);
	wr_size_begin(&b.params, &mark);
	wr_u32(&b.params, NV_IDX);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, attrs);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, size);
	wr_size_end(&b.params, mark);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC nv_write(const uint8_t *data, uint16_t len)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_Write);
	cmd_handle(&b, NV_IDX);
	cmd_handle(&b, NV_IDX);
	cmd_auth_pw(&b, "nv");
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

static void nv_certify_cmd(struct cmdbuf *b, TPM_HANDLE key, TPM_HANDLE auth, const char *pw,
			   uint16_t size, uint16_t offset, const struct tpmt_scheme *s)
{
	cmd_begin(b, TPM_CC_NV_Certify);
	cmd_handle(b, key);
	cmd_handle(b, auth);
	cmd_handle(b, NV_IDX);
	cmd_auth_pw(b, "");
	cmd_auth_pw(b, pw);
	wr_data(&b->params, nonce, sizeof(nonce));
	wr_scheme(&b->params, s);
	wr_u16(&b->params, size);
	wr_u16(&b->params, offset);
}

/* The range form (TPMS_NV_CERTIFY_INFO) and the digest form (TPMS_NV_DIGEST_CERTIFY_INFO, the
 * key's scheme hash or, for ML-DSA, its nameAlg) signed by ML-DSA and ECC keys; the read rules
 * and the range with their codes. */
static void test_nv_certify(void)
{
	uint8_t data[600], buf[600], want[48];
	struct tpm2b_name name, got;
	struct tpm2b_digest d;
	struct akey mldsa, ecc;
	uint16_t off, size;
	struct cmdbuf b;
	struct att a;
	struct rd r;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	key_of(TPM_RH_ENDORSEMENT, TPM_ALG_MLDSA, TPM_MLDSA_65, AK, TPM_ALG_NULL, TPM_ALG_NULL,
	       &mldsa);
	key_of(TPM_RH_OWNER, TPM_ALG_ECC, 0, AK, TPM_ALG_ECDSA, TPM_ALG_SHA384, &ecc);
	CU_ASSERT_EQUAL_FATAL(nv_define(TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD | TPMA_NV_OWNERREAD,
					sizeof(data)),
			      TPM_RC_SUCCESS);
	nv_certify_cmd(&b, mldsa.handle, NV_IDX, "nv", 16, 0, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL_FATAL(nv_write(data, sizeof(data)), TPM_RC_SUCCESS);

	/* its Name as NV_ReadPublic gives it */
	cmd_begin(&b, TPM_CC_NV_ReadPublic);
	cmd_handle(&b, NV_IDX);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_sub(&r, &(struct rd){ 0 }, &size), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&r, &name), 0);

	nv_certify_cmd(&b, mldsa.handle, NV_IDX, "nv", 500, 100, &null_scheme);
	CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
	check_key_header(&a, TPM_ST_ATTEST_NV, &mldsa);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&a.body, &got), 0);
	CU_ASSERT(got.size == name.size && !memcmp(got.b, name.b, name.size));
	CU_ASSERT_EQUAL(rd_u16(&a.body, &off), 0);
	CU_ASSERT_EQUAL(off, 100);
	CU_ASSERT_EQUAL(rd_tpm2b(&a.body, buf, sizeof(buf), &size), 0);
	CU_ASSERT(size == 500 && !memcmp(buf, data + 100, 500));
	CU_ASSERT_EQUAL(rd_left(&a.body), 0);
	verify(&mldsa, &a);

	/* the digest form; the owner may read this index too */
	for (int i = 0; i < 2; i++) {
		const struct akey *k = i ? &ecc : &mldsa;
		TPM_ALG_ID hash = i ? TPM_ALG_SHA384 : TPM_ALG_SHA256;

		nv_certify_cmd(&b, k->handle, i ? TPM_RH_OWNER : NV_IDX, i ? "" : "nv", 0, 0,
			       &null_scheme);
		CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
		check_key_header(&a, TPM_ST_ATTEST_NV_DIGEST, k);
		CU_ASSERT_EQUAL(rd_tpm2b_name(&a.body, &got), 0);
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&a.body, &d), 0);
		CU_ASSERT_EQUAL(rd_left(&a.body), 0);
		CU_ASSERT_EQUAL(crypto_hash(hash, data, sizeof(data), want), 0);
		CU_ASSERT(d.size == crypto_hash_size(hash) && !memcmp(d.b, want, d.size));
		verify(k, &a);
	}

	/* the range, the size limit, who may read, the signer */
	nv_certify_cmd(&b, mldsa.handle, NV_IDX, "nv", 101, 500, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_NV_RANGE);
	nv_certify_cmd(&b, mldsa.handle, NV_IDX, "nv", 1025, 0, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 3));
	nv_certify_cmd(&b, mldsa.handle, TPM_RH_PLATFORM, "", 16, 0, &null_scheme);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_NV_AUTHORIZATION);
	nv_certify_cmd(&b, NV_IDX, NV_IDX, "nv", 16, 0, &null_scheme);
	CU_ASSERT_NOT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	nv_certify_cmd(&b, TPM_RH_NULL, NV_IDX, "nv", 16, 0, &null_scheme);
	CU_ASSERT_EQUAL(run_attest_unsigned(&b, &a), TPM_RC_SUCCESS);
	flush(mldsa.handle);
	flush(ecc.handle);
}

/* ---- ECDAA ---- */

/* Commit without P1 or P2: E = [r]G of a new commit, and its counter */
static uint16_t commit_e(const struct akey *k, uint8_t *ex, uint8_t *ey)
{
	struct tpm2b_ecc_parameter x, y;
	struct cmdbuf b;
	uint16_t counter = 0;
	struct rd r;

	cmd_begin(&b, TPM_CC_Commit);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, "", 0);
	wr_tpm2b(&b.params, "", 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	for (int i = 0; i < 2; i++) /* K and L: Empty Points */
		CU_ASSERT_EQUAL(rd_tpm2b_ecc_point(&r, &x, &y, true), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_ecc_point(&r, &x, &y, false), 0);
	CU_ASSERT_EQUAL(rd_u16(&r, &counter), 0);
	memcpy(ex, x.b, x.size);
	memcpy(ey, y.b, y.size);
	return counter;
}

/* The ECDAA equation over the attestation: T = H(R || H(TPMS_ATTEST)) mod n with the
 * scheme's hash, and [S]G = E + [T]Q. */
static void check_ecdaa(const struct akey *k, const struct att *a, const uint8_t *ex,
			const uint8_t *ey)
{
	uint16_t curve = k->pub.curve_id;
	size_t len = crypto_ecc_bytes(curve), dlen = crypto_hash_size(a->sig.hash);
	uint8_t hin[MAX_ECC_KEY_BYTES + 64], t[64], tn[MAX_ECC_KEY_BYTES];
	uint8_t lx[MAX_ECC_KEY_BYTES], ly[MAX_ECC_KEY_BYTES], tx[MAX_ECC_KEY_BYTES],
		ty[MAX_ECC_KEY_BYTES], rx[MAX_ECC_KEY_BYTES], ry[MAX_ECC_KEY_BYTES];

	CU_ASSERT_EQUAL(a->sig.sig_alg, TPM_ALG_ECDAA);
	CU_ASSERT_EQUAL(a->sig.hash, k->pub.scheme.hash_alg);
	CU_ASSERT_EQUAL_FATAL(a->sig.r.size, len);
	CU_ASSERT_EQUAL_FATAL(a->sig.s.size, len);
	memcpy(hin, a->sig.r.b, len);
	CU_ASSERT_EQUAL(crypto_hash(a->sig.hash, a->raw, a->len, hin + len), 0);
	CU_ASSERT_EQUAL(crypto_hash(a->sig.hash, hin, len + dlen, t), 0);
	CU_ASSERT_EQUAL(crypto_ecc_scalar_reduce(curve, t, dlen, tn), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(curve, a->sig.s.b, NULL, NULL, lx, ly), 0);
	CU_ASSERT_EQUAL(crypto_ecc_mul(curve, tn, k->pub.x.b, k->pub.y.b, tx, ty), 0);
	CU_ASSERT_EQUAL(crypto_ecc_add(curve, ex, ey, tx, ty, rx, ry), 0);
	CU_ASSERT(memcmp(lx, rx, len) == 0 && memcmp(ly, ry, len) == 0);
}

/* An HMAC session that has audited one GetRandom (unsalted, unbound: empty HMAC) */
static TPM_HANDLE audited_session(void)
{
	struct tpm2b_digest nonce_tpm;
	struct cmdbuf b;
	TPM_HANDLE s;

	CU_ASSERT_EQUAL_FATAL(sess_start(&h, TPM_SE_HMAC, &s, &nonce_tpm), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u32(&b.auth, s);
	wr_tpm2b(&b.auth, nonce, sizeof(nonce));
	wr_u8(&b.auth, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_AUDIT);
	wr_u16(&b.auth, 0);
	b.nauth = 1;
	wr_u16(&b.params, 8);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	return s;
}

/* The command of `which` with the ECDAA inScheme s, signed by k; *param: its inScheme's
 * parameter number. obj is an object to certify, session an audited session. */
static void ecdaa_cmd(struct cmdbuf *b, int which, const struct akey *k, const struct akey *obj,
		      TPM_HANDLE session, const struct tpmt_scheme *s, unsigned *param)
{
	*param = 2;
	switch (which) {
	case 0:
		quote_cmd(b, k->handle, nonce, sizeof(nonce), s);
		break;
	case 1:
		certify_cmd(b, obj->handle, k->handle, s);
		break;
	case 2:
		certify_creation_cmd(b, k->handle, obj, &obj->creation_hash, &obj->creation_ticket,
				     s);
		*param = 3;
		break;
	case 3:
		get_time_cmd(b, TPM_RH_ENDORSEMENT, k->handle, s);
		break;
	case 4:
		nv_certify_cmd(b, k->handle, NV_IDX, "nv", 16, 0, s);
		break;
	case 5:
		cmd_begin(b, TPM_CC_GetSessionAuditDigest);
		cmd_handle(b, TPM_RH_ENDORSEMENT);
		cmd_handle(b, k->handle);
		cmd_handle(b, session);
		cmd_auth_pw(b, "");
		cmd_auth_pw(b, "");
		wr_data(&b->params, nonce, sizeof(nonce));
		wr_scheme(&b->params, s);
		break;
	default:
		cmd_begin(b, TPM_CC_GetCommandAuditDigest);
		cmd_handle(b, TPM_RH_ENDORSEMENT);
		cmd_handle(b, k->handle);
		cmd_auth_pw(b, "");
		cmd_auth_pw(b, "");
		wr_data(&b->params, nonce, sizeof(nonce));
		wr_scheme(&b->params, s);
		break;
	}
}

/* Every attestation command signs with an ECDAA key (P-256 and P-521) through the commit its
 * inScheme's count names: the ECDAA equation holds over the TPMS_ATTEST; the commit is used
 * up, and a count without one is TPM_RC_VALUE on inScheme's parameter. */
static void test_ecdaa(void)
{
	static const uint16_t curves[] = { TPM_ECC_NIST_P256, TPM_ECC_NIST_P521 };
	uint8_t data[16] = { 1, 2, 3 };
	struct akey k, obj;

	CU_ASSERT_EQUAL_FATAL(nv_define(TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(nv_write(data, sizeof(data)), TPM_RC_SUCCESS);
	key_of(TPM_RH_OWNER, TPM_ALG_ECC, 0, SIGN, TPM_ALG_ECDSA, TPM_ALG_SHA256, &obj);
	for (size_t c = 0; c < 2; c++) {
		TPM_HANDLE session = audited_session();

		ecc_key_of(TPM_RH_OWNER, curves[c], AK, TPM_ALG_ECDAA, TPM_ALG_SHA256, &k);
		for (int which = 0; which < 7; which++) {
			uint8_t ex[MAX_ECC_KEY_BYTES], ey[MAX_ECC_KEY_BYTES];
			struct tpmt_scheme s = { .scheme = TPM_ALG_ECDAA,
						 .hash_alg = TPM_ALG_SHA256,
						 .kdf = TPM_ALG_NULL };
			unsigned param;
			struct cmdbuf b;
			struct att a;

			s.count = commit_e(&k, ex, ey);
			ecdaa_cmd(&b, which, &k, &obj, session, &s, &param);
			CU_ASSERT_EQUAL_FATAL(run_attest(&b, &a), TPM_RC_SUCCESS);
			check_ecdaa(&k, &a, ex, ey);
			/* used: the same count again has no commit */
			ecdaa_cmd(&b, which, &k, &obj, session, &s, &param);
			CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, param));
		}
		flush(k.handle);
		CU_ASSERT_EQUAL(sess_flush(&h, session), TPM_RC_SUCCESS);
	}
	flush(obj.handle);
}

/* The client library in process: an ECC AK's quote of PCRs 0-23 (PCR_Read takes several
 * rounds of 8), read back, its pcrDigest recomputed from the library's PCR_Read and its
 * signature verified; GetTime with the NULL signer comes back unsigned; bad arguments stay in
 * the library. */
static void test_client_library(void)
{
	static struct pqtpm_tss_attest q;
	static struct pqtpm_tss_signature sig;
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k;
	const struct pqtpm_tss_template tm = {
		.type = TPM_ALG_ECC,
		.attributes = PQ_KEY_BASE | AK,
		.scheme = TPM_ALG_ECDSA,
		.scheme_hash = TPM_ALG_SHA384,
	};
	const struct pqtpm_tss_pcr_select all = { TPM_ALG_SHA256, 0xFFFFFF };
	struct pqtpm_tss_pcr_select got[2];
	struct pqtpm_tss_attest_info info;
	struct pqtpm_tss_digest digest;
	uint8_t pcrs[24 * 32], want[48], big[67] = { 0 };
	struct akey key = { .hierarchy = TPM_RH_ENDORSEMENT };
	struct pqtpm_tss *t;
	struct att a;
	size_t len, nsel;
	struct rd r;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_engine(&t, h.e), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create_primary(t, TPM_RH_ENDORSEMENT, "", &tmpl, "ak", &k),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_quote(t, k.handle, "ak", nonce, sizeof(nonce), 0, 0, &all, 1, &q,
					&sig),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_attest_parse(&q, &info), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(info.type, TPM_ST_ATTEST_QUOTE);
	CU_ASSERT(info.extra_size == sizeof(nonce) && !memcmp(info.extra, nonce, sizeof(nonce)));
	CU_ASSERT_EQUAL(info.reset_count, h.e->ps.reset_count);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_quote_info(&info, got, 2, &nsel, &digest), TPM_RC_SUCCESS);
	CU_ASSERT(nsel == 1 && got[0].hash == TPM_ALG_SHA256 && got[0].pcrs == 0xFFFFFF);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, all.pcrs, pcrs, sizeof(pcrs),
						 &len),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, sizeof(pcrs));
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA384, pcrs, len, want), 0);
	CU_ASSERT(digest.size == 48 && !memcmp(digest.b, want, 48));
	/* the signature, verified as the unit tests verify */
	memset(&a, 0, sizeof(a));
	memcpy(a.raw, q.b, q.size);
	a.len = q.size;
	rd_init(&r, sig.b, sig.size);
	CU_ASSERT_EQUAL(rd_signature(&r, &a.sig), 0);
	rd_init(&r, k.pub.b, k.pub.size);
	CU_ASSERT_EQUAL_FATAL(rd_public(&r, &key.pub), 0);
	verify(&key, &a);

	CU_ASSERT_EQUAL(pqtpm_tss_get_time(t, "", TPM_RH_NULL, "", NULL, 0, 0, 0, &q, &sig),
			TPM_RC_SUCCESS);
	CU_ASSERT(sig.size == 2 && sig.b[0] == 0 && sig.b[1] == TPM_ALG_NULL);
	CU_ASSERT_EQUAL(pqtpm_tss_attest_parse(&q, &info), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(info.type, TPM_ST_ATTEST_TIME);
	CU_ASSERT_EQUAL(pqtpm_tss_quote_info(&info, got, 2, &nsel, &digest),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_quote(t, k.handle, "ak", big, sizeof(big), 0, 0, &all, 1, &q,
					&sig),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_certify(t, k.handle, "ak", k.handle, "wrong", nonce,
					  sizeof(nonce), 0, 0, &q, &sig),
			RC_S(TPM_RC_AUTH_FAIL, 2));
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), TPM_RC_SUCCESS);
	pqtpm_tss_close(t);
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite_with_setup_and_teardown("attest", NULL, NULL, setup, teardown);
	CU_add_test(s, "Quote: RSA and ECC keys", test_quote_classical);
	CU_add_test(s, "Quote: ML-DSA-44/65/87", test_quote_mldsa);
	CU_add_test(s, "Quote: HashML-DSA", test_quote_hash_mldsa);
	CU_add_test(s, "Certify", test_certify);
	CU_add_test(s, "TPM_RH_NULL signer", test_null_signer);
	CU_add_test(s, "CertifyCreation and its ticket", test_certify_creation);
	CU_add_test(s, "GetTime", test_get_time);
	CU_add_test(s, "NV_Certify", test_nv_certify);
	CU_add_test(s, "ECDAA keys in every attestation command", test_ecdaa);
	CU_add_test(s, "errors", test_errors);
	CU_add_test(s, "GetCapability lists the commands", test_capability);
	CU_add_test(s, "client library in process", test_client_library);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
