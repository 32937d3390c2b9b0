/* Bytes after the last parameter (Part 3 §5.2): for every command a valid instance can be
 * built for here, the command with one byte more is refused with plain TPM_RC_SIZE and leaves
 * everything a client can see as it was (PCRs, the handles of objects and sessions, NV
 * contents, policy digests, properties, what a sequence has absorbed); the same command
 * without the byte then succeeds. Each case runs on a fresh engine (the harness nvh of
 * nv_util.c, so that its NV helpers work). */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "keys.h"
#include "nv/nv.h"
#include "nv_util.h"
#include "pq_util.h"
#include "sessions.h"
#include "unit_main.h"

#define NVI 0x01000010u	/* an ordinary index: owner and index read/write, "pw" */
#define SNAP_MAX 65536
#define HANDLES_MAX 64

static struct harness *const H = &nvh;

struct snap {
	uint8_t b[SNAP_MAX];
	size_t n;
};

/* ---- running commands ---- */

static void ok(struct cmdbuf *b, struct rd *rsp, TPM_HANDLE *rh)
{
	CU_ASSERT_EQUAL_FATAL(harness_run(H, b, rsp, rh), TPM_RC_SUCCESS);
}

/* The rest of a response, as bytes to send back in a later command. */
static void rest(struct rd *r, uint8_t *out, size_t *len)
{
	*len = rd_left(r);
	CU_ASSERT_EQUAL_FATAL(rd_bytes(r, out, *len), TPM_RC_SUCCESS);
}

/* Run b, which must succeed; out: all its response parameters. */
static void ok_rest(struct cmdbuf *b, uint8_t *out, size_t *len)
{
	struct rd rsp;

	ok(b, &rsp, NULL);
	rest(&rsp, out, len);
}

/* A sized field of a response, as sent: its two size bytes, then its contents. */
static void sized(struct rd *r, uint8_t *out, size_t *len)
{
	uint16_t n;

	CU_ASSERT_EQUAL_FATAL(rd_u16(r, &n), 0);
	CU_ASSERT_EQUAL_FATAL(rd_bytes(r, out + 2, n), 0);
	out[0] = (uint8_t)(n >> 8);
	out[1] = (uint8_t)n;
	*len = 2u + n;
}

static void get_cap(struct cmdbuf *b, uint32_t cap, uint32_t property, uint32_t count)
{
	cmd_begin(b, TPM_CC_GetCapability);
	wr_u32(&b->params, cap);
	wr_u32(&b->params, property);
	wr_u32(&b->params, count);
}

static void null_hashcheck(struct wr *w)
{
	wr_u16(w, TPM_ST_HASHCHECK);
	wr_u32(w, TPM_RH_NULL);
	wr_u16(w, 0);
}

static void sel_one(struct wr *w, TPM_ALG_ID alg, unsigned pcr)
{
	uint8_t s[3] = { 0 };

	s[pcr / 8] = (uint8_t)(1u << (pcr % 8));
	wr_u32(w, 1);
	wr_u16(w, alg);
	wr_u8(w, 3);
	wr_bytes(w, s, 3);
}

static void digest32(struct wr *w, uint8_t fill)
{
	uint8_t d[32];

	memset(d, fill, sizeof(d));
	wr_tpm2b(w, d, sizeof(d));
}

/* cc on handle h (cmd2: h1 and h2), with npw empty-password sessions for the first npw handles. */
static void cmd1(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE h, unsigned npw)
{
	cmd_begin(b, cc);
	cmd_handle(b, h);
	while (npw--)
		cmd_auth_pw(b, "");
}

static void cmd2(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE h1, TPM_HANDLE h2, unsigned npw)
{
	cmd1(b, cc, h1, 0);
	cmd_handle(b, h2);
	while (npw--)
		cmd_auth_pw(b, "");
}

/* ---- keys: primaries in the owner hierarchy, empty auth ---- */

enum kind { K_SIGN, K_STORAGE, K_ECDH, K_HMAC, K_SYM, K_RSA };

static const struct {
	TPM_ALG_ID type;
	uint32_t attrs;
	TPM_ALG_ID scheme; /* with SHA-256 */
	bool aes;	   /* AES-128-CFB as the symmetric algorithm */
	const char *data;  /* the key itself (keyedHash, symCipher) */
} kinds[] = {
	[K_SIGN] = { TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT, TPM_ALG_ECDSA, false, NULL },
	[K_STORAGE] = { TPM_ALG_ECC, TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, 0, true, NULL },
	[K_ECDH] = { TPM_ALG_ECC, TPMA_OBJECT_DECRYPT, 0, false, NULL },
	[K_HMAC] = { TPM_ALG_KEYEDHASH, TPMA_OBJECT_SIGN_ENCRYPT, TPM_ALG_HMAC, false, "hmac key" },
	[K_SYM] = { TPM_ALG_SYMCIPHER, TPMA_OBJECT_DECRYPT | TPMA_OBJECT_SIGN_ENCRYPT, 0, true,
		  "0123456789abcdef" },
	[K_RSA] = { TPM_ALG_RSA, TPMA_OBJECT_DECRYPT, 0, false, NULL },
};

static void new_key(enum kind kind, struct key *k)
{
	struct tpmt_public t;
	const char *data = kinds[kind].data;

	key_template(&t, kinds[kind].type, kinds[kind].attrs);
	if (kinds[kind].scheme) {
		t.scheme.scheme = kinds[kind].scheme;
		t.scheme.hash_alg = TPM_ALG_SHA256;
	}
	if (kinds[kind].aes) {
		t.symmetric.alg = TPM_ALG_AES;
		t.symmetric.key_bits = 128;
		t.symmetric.mode = TPM_ALG_CFB;
	}
	key_primary(H, &t, data, data ? (uint16_t)strlen(data) : 0, k);
}

/* Create, CreateLoaded or CreatePrimary of t under parent with sensitive data (dlen bytes),
 * empty userAuth, no outsideInfo and no creation PCRs. */
static void create_cmd(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE parent, const struct tpmt_public *t,
		       const char *data, uint16_t dlen)
{
	cmd1(b, cc, parent, 1);
	cmd_sensitive(b, "", data, dlen);
	wr_tpm2b_public(&b->params, t);
	if (cc != TPM_CC_CreateLoaded) {
		wr_tpm2b(&b->params, "", 0);
		wr_u32(&b->params, 0);
	}
}

/* Create of a sealed data object under parent. */
static void create_sealed_cmd(struct cmdbuf *b, TPM_HANDLE parent)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_KEYEDHASH, 0);
	create_cmd(b, TPM_CC_Create, parent, &t, "sealed", 6);
}

/* Load of a sealed data object just created under parent. */
static void load_cmd(struct cmdbuf *b, TPM_HANDLE parent)
{
	uint8_t priv[1024], pub[1024];
	size_t priv_len, pub_len;
	struct cmdbuf c;
	struct rd rsp;

	create_sealed_cmd(&c, parent);
	ok(&c, &rsp, NULL);
	sized(&rsp, priv, &priv_len); /* outPrivate */
	sized(&rsp, pub, &pub_len);   /* outPublic */
	cmd1(b, TPM_CC_Load, parent, 1);
	wr_bytes(&b->params, priv, priv_len);
	wr_bytes(&b->params, pub, pub_len);
}

static TPM_HANDLE load_sealed(TPM_HANDLE parent)
{
	struct cmdbuf b;
	TPM_HANDLE h;

	load_cmd(&b, parent);
	ok(&b, NULL, &h);
	return h;
}

static void start_cmd(struct cmdbuf *b, uint8_t type)
{
	cmd2(b, TPM_CC_StartAuthSession, TPM_RH_NULL, TPM_RH_NULL, 0);
	digest32(&b->params, 0x11);
	wr_u16(&b->params, 0);
	wr_u8(&b->params, type);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static TPM_HANDLE start_session(uint8_t type)
{
	struct cmdbuf b;
	TPM_HANDLE s;

	start_cmd(&b, type);
	ok(&b, NULL, &s);
	return s;
}

static TPM_HANDLE seq_start(TPM_ALG_ID alg)
{
	struct cmdbuf b;
	TPM_HANDLE s;

	cmd_begin(&b, TPM_CC_HashSequenceStart);
	wr_tpm2b(&b.params, "", 0);
	wr_u16(&b.params, alg);
	ok(&b, NULL, &s);
	return s;
}

/* An unsalted, unbound policy session authorizes with an empty HMAC. */
static void auth_policy(struct cmdbuf *b, TPM_HANDLE session)
{
	wr_u32(&b->auth, session);
	wr_u16(&b->auth, 0);
	wr_u8(&b->auth, TPMA_SESSION_CONTINUESESSION);
	wr_u16(&b->auth, 0);
	b->nauth++;
}

/* A policy session that has asserted PolicyCommandCode(cc). */
static TPM_HANDLE cc_session(TPM_CC cc)
{
	TPM_HANDLE s = start_session(TPM_SE_POLICY);

	CU_ASSERT_EQUAL_FATAL(sess_policy_cc(H, s, cc), TPM_RC_SUCCESS);
	return s;
}

/* ECDSA signature of digest by k (unrestricted: NULL ticket), as sent. */
static void sign(const struct key *k, const uint8_t *digest, uint8_t *sig, size_t *len)
{
	struct cmdbuf b;

	cmd1(&b, TPM_CC_Sign, k->handle, 1);
	wr_tpm2b(&b.params, digest, 32);
	wr_u16(&b.params, TPM_ALG_NULL);
	null_hashcheck(&b.params);
	ok_rest(&b, sig, len);
}

/* VerifySignature of k's signature over digest. */
static void verify_cmd(struct cmdbuf *b, const struct key *k, const uint8_t *digest)
{
	uint8_t sig[512];
	size_t len;

	sign(k, digest, sig, &len);
	cmd1(b, TPM_CC_VerifySignature, k->handle, 0);
	wr_tpm2b(&b->params, digest, 32);
	wr_bytes(&b->params, sig, len);
}

static void define(TPM_HANDLE idx, uint32_t attrs, uint16_t size)
{
	CU_ASSERT_EQUAL_FATAL(nvt_define(idx, attrs, size), TPM_RC_SUCCESS);
}

/* ---- the observable state ---- */

static void snap_add(struct snap *s, struct cmdbuf *b)
{
	uint8_t cmd[PQTPM_MAX_COMMAND_SIZE], out[PQTPM_MAX_RESPONSE_SIZE];
	size_t len = cmd_bytes(b, cmd, sizeof(cmd)), outlen;

	harness_raw(H, cmd, len, out, &outlen);
	CU_ASSERT_FATAL(s->n + outlen <= sizeof(s->b));
	memcpy(s->b + s->n, out, outlen);
	s->n += outlen;
}

/* GetCapability(TPM_CAP_HANDLES) from first, into the snapshot and into list. */
static unsigned snap_handles(struct snap *s, TPM_HANDLE first, TPM_HANDLE *list)
{
	struct cmdbuf b;
	struct rd rsp;
	uint32_t cap, count;
	uint8_t more;
	unsigned n = 0;

	get_cap(&b, TPM_CAP_HANDLES, first, HANDLES_MAX);
	snap_add(s, &b);
	ok(&b, &rsp, NULL);
	CU_ASSERT_FATAL(!rd_u8(&rsp, &more) && !rd_u32(&rsp, &cap) && !rd_u32(&rsp, &count));
	for (uint32_t i = 0; i < count && n < HANDLES_MAX; i++) {
		CU_ASSERT_FATAL(!rd_u32(&rsp, &list[n]));
		if (list[n] >> 24 == first >> 24)
			n++;
	}
	return n;
}

static void snapshot(struct snap *s)
{
	static const TPM_ALG_ID banks[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					    TPM_ALG_SHA512 };
	TPM_HANDLE list[HANDLES_MAX];
	struct cmdbuf b;
	unsigned n;

	s->n = 0;
	for (size_t i = 0; i < sizeof(banks) / sizeof(banks[0]); i++) {
		for (unsigned group = 0; group < 3; group++) {
			uint8_t sel[3] = { 0 };

			sel[group] = 0xFF;
			cmd_begin(&b, TPM_CC_PCR_Read);
			wr_u32(&b.params, 1);
			wr_u16(&b.params, banks[i]);
			wr_u8(&b.params, 3);
			wr_bytes(&b.params, sel, 3);
			snap_add(s, &b);
		}
	}
	snap_handles(s, (TPM_HANDLE)TPM_HT_TRANSIENT << 24, list);
	snap_handles(s, (TPM_HANDLE)TPM_HT_PERSISTENT << 24, list);
	snap_handles(s, (TPM_HANDLE)TPM_HT_SAVED_SESSION << 24, list);
	n = snap_handles(s, (TPM_HANDLE)TPM_HT_LOADED_SESSION << 24, list);
	for (unsigned i = 0; i < n; i++) {
		if (list[i] >> 24 != TPM_HT_POLICY_SESSION)
			continue;
		cmd1(&b, TPM_CC_PolicyGetDigest, list[i], 0);
		snap_add(s, &b);
	}
	n = snap_handles(s, (TPM_HANDLE)TPM_HT_NV_INDEX << 24, list);
	for (unsigned i = 0; i < n; i++) {
		cmd1(&b, TPM_CC_NV_ReadPublic, list[i], 0);
		snap_add(s, &b);
		/* every index the cases define has ownerRead; the rest of a big one is enough */
		cmd2(&b, TPM_CC_NV_Read, TPM_RH_OWNER, list[i], 1);
		wr_u16(&b.params, 8);
		wr_u16(&b.params, 0);
		snap_add(s, &b);
	}
	get_cap(&b, TPM_CAP_TPM_PROPERTIES, TPM_PT_PERMANENT, 127);
	snap_add(s, &b);
	get_cap(&b, TPM_CAP_AUTH_POLICIES, TPM_RH_OWNER, 14);
	snap_add(s, &b);
	get_cap(&b, TPM_CAP_AUDIT_COMMANDS, 0, 254);
	snap_add(s, &b);
	get_cap(&b, TPM_CAP_PP_COMMANDS, 0, 254);
	snap_add(s, &b);
}

/* ---- the cases: each builds one valid command (after what it needs) ---- */

static TPM_HANDLE seq;	/* for the checks after a sequence command */

static void c_get_random(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_GetRandom);
	wr_u16(&b->params, 8);
}

static void c_stir_random(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_StirRandom);
	wr_tpm2b(&b->params, "entropy", 7);
}

static void c_get_capability(struct cmdbuf *b)
{
	get_cap(b, TPM_CAP_TPM_PROPERTIES, TPM_PT_FAMILY_INDICATOR, 1);
}

static void c_test_parms(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_TestParms);
	wr_u16(&b->params, TPM_ALG_ECC);
	wr_u16(&b->params, TPM_ALG_NULL); /* symmetric */
	wr_u16(&b->params, TPM_ALG_NULL); /* scheme */
	wr_u16(&b->params, TPM_ECC_NIST_P256);
	wr_u16(&b->params, TPM_ALG_NULL); /* kdf */
}

static void c_self_test(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_SelfTest);
	wr_u8(&b->params, 1);
}

static void c_incremental_self_test(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_IncrementalSelfTest);
	wr_u32(&b->params, 1);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static void c_shutdown(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_Shutdown);
	wr_u16(&b->params, TPM_SU_STATE);
}

static void c_clock_set(struct cmdbuf *b)
{
	uint64_t clock;
	uint32_t resets, restarts;
	uint8_t safe;

	nvt_read_clock(&clock, &resets, &restarts, &safe);
	cmd1(b, TPM_CC_ClockSet, TPM_RH_OWNER, 1);
	wr_u64(&b->params, clock + 3600000);
}

static void c_clock_rate_adjust(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_ClockRateAdjust, TPM_RH_OWNER, 1);
	wr_u8(&b->params, 1);
}

static void c_pcr_extend(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_PCR_Extend, 16, 1);
	wr_u32(&b->params, 1);
	wr_u16(&b->params, TPM_ALG_SHA256);
	for (int i = 0; i < 32; i++)
		wr_u8(&b->params, 0x5A);
}

static void c_pcr_event(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_PCR_Event, 16, 1);
	wr_tpm2b(&b->params, "event", 5);
}

static void c_pcr_read(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_PCR_Read);
	sel_one(&b->params, TPM_ALG_SHA256, 0);
}

static void c_pcr_reset(struct cmdbuf *b)
{
	struct cmdbuf e;

	c_pcr_extend(&e);
	ok(&e, NULL, NULL);
	cmd1(b, TPM_CC_PCR_Reset, 16, 1);
}

static void c_pcr_allocate(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_PCR_Allocate, TPM_RH_PLATFORM, 1);
	wr_u32(&b->params, 1);
	wr_u16(&b->params, TPM_ALG_SHA1);
	wr_u8(&b->params, 3);
	wr_bytes(&b->params, "\0\0\0", 3);
}

static void c_hash(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_Hash);
	wr_tpm2b(&b->params, "abc", 3);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_u32(&b->params, TPM_RH_OWNER);
}

static void c_hash_sequence_start(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_HashSequenceStart);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static void c_hmac_start(struct cmdbuf *b)
{
	struct key k;

	new_key(K_HMAC, &k);
	cmd1(b, TPM_CC_HMAC_Start, k.handle, 1);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static void c_sequence_update(struct cmdbuf *b)
{
	seq = seq_start(TPM_ALG_SHA256);
	cmd1(b, TPM_CC_SequenceUpdate, seq, 1);
	wr_tpm2b(&b->params, "abc", 3);
}

/* The sequence absorbed "abc" once: the refused update added nothing. */
static void after_sequence_update(void)
{
	static const uint8_t abc[] = { 0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
				       0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
				       0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
				       0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad };
	struct tpm2b_digest d;
	struct cmdbuf b;
	struct rd rsp;

	cmd1(&b, TPM_CC_SequenceComplete, seq, 1);
	wr_tpm2b(&b.params, "", 0);
	wr_u32(&b.params, TPM_RH_NULL);
	ok(&b, &rsp, NULL);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &d), 0);
	CU_ASSERT(d.size == 32 && memcmp(d.b, abc, 32) == 0);
}

static void c_sequence_complete(struct cmdbuf *b)
{
	seq = seq_start(TPM_ALG_SHA256);
	cmd1(b, TPM_CC_SequenceComplete, seq, 1);
	wr_tpm2b(&b->params, "abc", 3);
	wr_u32(&b->params, TPM_RH_OWNER);
}

static void c_event_sequence_complete(struct cmdbuf *b)
{
	seq = seq_start(TPM_ALG_NULL);
	cmd2(b, TPM_CC_EventSequenceComplete, 16, seq, 2);
	wr_tpm2b(&b->params, "abc", 3);
}

static void c_hmac(struct cmdbuf *b)
{
	struct key k;

	new_key(K_HMAC, &k);
	cmd1(b, TPM_CC_HMAC, k.handle, 1);
	wr_tpm2b(&b->params, "abc", 3);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static void c_encrypt_decrypt(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SYM, &k);
	cmd1(b, TPM_CC_EncryptDecrypt, k.handle, 1);
	wr_u8(&b->params, 0);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_tpm2b(&b->params, "0123456789abcdef", 16);
	wr_tpm2b(&b->params, "plain text 16 b.", 16);
}

static void c_encrypt_decrypt2(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SYM, &k);
	cmd1(b, TPM_CC_EncryptDecrypt2, k.handle, 1);
	wr_tpm2b(&b->params, "plain text 16 b.", 16);
	wr_u8(&b->params, 0);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_tpm2b(&b->params, "0123456789abcdef", 16);
}

static void c_create(struct cmdbuf *b)
{
	struct key p;

	new_key(K_STORAGE, &p);
	create_sealed_cmd(b, p.handle);
}

static void c_load(struct cmdbuf *b)
{
	struct key p;

	new_key(K_STORAGE, &p);
	load_cmd(b, p.handle);
}

static void c_create_loaded(struct cmdbuf *b)
{
	struct tpmt_public t;
	struct key p;

	new_key(K_STORAGE, &p);
	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	create_cmd(b, TPM_CC_CreateLoaded, p.handle, &t, "", 0);
}

static void c_load_external(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd_begin(b, TPM_CC_LoadExternal);
	wr_u16(&b->params, 0); /* no sensitive area */
	wr_tpm2b_public(&b->params, &k.pub);
	wr_u32(&b->params, TPM_RH_OWNER);
}

static void c_read_public(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd1(b, TPM_CC_ReadPublic, k.handle, 0);
}

static void c_object_change_auth(struct cmdbuf *b)
{
	struct key p;
	TPM_HANDLE o;

	new_key(K_STORAGE, &p);
	o = load_sealed(p.handle);
	cmd2(b, TPM_CC_ObjectChangeAuth, o, p.handle, 1);
	wr_tpm2b(&b->params, "new", 3);
}

static void c_unseal(struct cmdbuf *b)
{
	struct key p;
	TPM_HANDLE o;

	new_key(K_STORAGE, &p);
	o = load_sealed(p.handle);
	cmd1(b, TPM_CC_Unseal, o, 1);
}

static void c_create_primary(struct cmdbuf *b)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	create_cmd(b, TPM_CC_CreatePrimary, TPM_RH_OWNER, &t, "", 0);
}

static void c_sign(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd1(b, TPM_CC_Sign, k.handle, 1);
	digest32(&b->params, 0x42);
	wr_u16(&b->params, TPM_ALG_NULL);
	null_hashcheck(&b->params);
}

static void c_verify_signature(struct cmdbuf *b)
{
	uint8_t digest[32];
	struct key k;

	new_key(K_SIGN, &k);
	memset(digest, 0x42, sizeof(digest));
	verify_cmd(b, &k, digest);
}

static void rsa_encrypt(struct cmdbuf *b, const struct key *k)
{
	cmd1(b, TPM_CC_RSA_Encrypt, k->handle, 0);
	wr_tpm2b(&b->params, "message", 7);
	wr_u16(&b->params, TPM_ALG_OAEP);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_tpm2b(&b->params, "", 0);
}

static void c_rsa_encrypt(struct cmdbuf *b)
{
	struct key k;

	new_key(K_RSA, &k);
	rsa_encrypt(b, &k);
}

static void c_rsa_decrypt(struct cmdbuf *b)
{
	uint8_t ct[512];
	size_t len;
	struct cmdbuf e;
	struct key k;

	new_key(K_RSA, &k);
	rsa_encrypt(&e, &k);
	ok_rest(&e, ct, &len);
	cmd1(b, TPM_CC_RSA_Decrypt, k.handle, 1);
	wr_bytes(&b->params, ct, len);
	wr_u16(&b->params, TPM_ALG_OAEP);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_tpm2b(&b->params, "", 0);
}

static void c_ecdh_keygen(struct cmdbuf *b)
{
	struct key k;

	new_key(K_ECDH, &k);
	cmd1(b, TPM_CC_ECDH_KeyGen, k.handle, 0);
}

static void c_ecdh_zgen(struct cmdbuf *b)
{
	struct cmdbuf g;
	struct rd rsp, z;
	uint16_t size;
	const uint8_t *point;
	struct key k;

	new_key(K_ECDH, &k);
	cmd1(&g, TPM_CC_ECDH_KeyGen, k.handle, 0);
	ok(&g, &rsp, NULL);
	CU_ASSERT_EQUAL_FATAL(rd_sub(&rsp, &z, &size), 0); /* zPoint */
	CU_ASSERT_EQUAL_FATAL(rd_u16(&rsp, &size), 0);	   /* pubPoint */
	CU_ASSERT_EQUAL_FATAL(rd_view(&rsp, size, &point), 0);
	cmd1(b, TPM_CC_ECDH_ZGen, k.handle, 1);
	wr_tpm2b(&b->params, point, size);
}

static void c_ecc_parameters(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_ECC_Parameters);
	wr_u16(&b->params, TPM_ECC_NIST_P256);
}

static void c_context_save(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd1(b, TPM_CC_ContextSave, k.handle, 0);
}

/* ContextLoad of what ContextSave(h) gave. */
static void context_load(struct cmdbuf *b, TPM_HANDLE h)
{
	uint8_t ctx[4096];
	size_t len;
	struct cmdbuf s;

	cmd1(&s, TPM_CC_ContextSave, h, 0);
	ok_rest(&s, ctx, &len);
	cmd_begin(b, TPM_CC_ContextLoad);
	wr_bytes(&b->params, ctx, len);
}

static void c_context_load(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	context_load(b, k.handle);
}

static void c_context_load_session(struct cmdbuf *b)
{
	context_load(b, start_session(TPM_SE_POLICY));
}

static void c_flush_context(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd_begin(b, TPM_CC_FlushContext);
	wr_u32(&b->params, k.handle);
}

static void c_flush_session(struct cmdbuf *b)
{
	TPM_HANDLE s = start_session(TPM_SE_HMAC);

	cmd_begin(b, TPM_CC_FlushContext);
	wr_u32(&b->params, s);
}

static void c_evict_control(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd2(b, TPM_CC_EvictControl, TPM_RH_OWNER, k.handle, 1);
	wr_u32(&b->params, 0x81000010);
}

static void c_evict_remove(struct cmdbuf *b)
{
	c_evict_control(b);
	ok(b, NULL, NULL);
	cmd2(b, TPM_CC_EvictControl, TPM_RH_OWNER, 0x81000010, 1);
	wr_u32(&b->params, 0x81000010);
}

static void c_hierarchy_control(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k); /* leaves with the owner hierarchy */
	cmd1(b, TPM_CC_HierarchyControl, TPM_RH_OWNER, 1);
	wr_u32(&b->params, TPM_RH_OWNER);
	wr_u8(&b->params, 0);
}

static void c_hierarchy_change_auth(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_HierarchyChangeAuth, TPM_RH_OWNER, 1);
	wr_tpm2b(&b->params, "owner", 5);
}

static void c_clear(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	define(NVI, OWNER_RW | AUTH_RW, 8);
	cmd1(b, TPM_CC_Clear, TPM_RH_LOCKOUT, 1);
}

static void c_clear_control(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_ClearControl, TPM_RH_PLATFORM, 1);
	wr_u8(&b->params, 1);
}

static void c_set_primary_policy(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_SetPrimaryPolicy, TPM_RH_OWNER, 1);
	digest32(&b->params, 0x33);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

/* A primary key in hierarchy, then the command that changes its seed. */
static void change_seed(struct cmdbuf *b, TPM_CC cc, TPM_HANDLE hierarchy)
{
	struct tpmt_public t;
	struct key k;

	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(key_primary_in(H, hierarchy, &t, "", NULL, 0, &k), 0);
	cmd1(b, cc, TPM_RH_PLATFORM, 1);
}

static void c_change_pps(struct cmdbuf *b)
{
	change_seed(b, TPM_CC_ChangePPS, TPM_RH_PLATFORM);
}

static void c_change_eps(struct cmdbuf *b)
{
	change_seed(b, TPM_CC_ChangeEPS, TPM_RH_ENDORSEMENT);
}

static void c_da_lock_reset(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_DictionaryAttackLockReset, TPM_RH_LOCKOUT, 1);
}

static void c_da_parameters(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_DictionaryAttackParameters, TPM_RH_LOCKOUT, 1);
	wr_u32(&b->params, 7);
	wr_u32(&b->params, 60);
	wr_u32(&b->params, 600);
}

static void c_start_auth_session(struct cmdbuf *b)
{
	start_cmd(b, TPM_SE_POLICY);
}

/* ---- policy assertions (on a fresh policy session) ---- */

static void policy_begin(struct cmdbuf *b, TPM_CC cc)
{
	TPM_HANDLE s = start_session(TPM_SE_POLICY);

	cmd1(b, cc, s, 0);
}

static void c_policy_restart(struct cmdbuf *b)
{
	struct cmdbuf a;

	policy_begin(&a, TPM_CC_PolicyAuthValue);
	ok(&a, NULL, NULL);
	a.cc = TPM_CC_PolicyRestart;
	*b = a;
}

static void c_policy_command_code(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyCommandCode);
	wr_u32(&b->params, TPM_CC_Unseal);
}

static void c_policy_locality(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyLocality);
	wr_u8(&b->params, 1);
}

static void c_policy_cp_hash(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyCpHash);
	digest32(&b->params, 0x21);
}

static void c_policy_name_hash(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyNameHash);
	digest32(&b->params, 0x22);
}

static void c_policy_template(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyTemplate);
	digest32(&b->params, 0x23);
}

static void c_policy_pcr(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyPCR);
	wr_tpm2b(&b->params, "", 0);
	sel_one(&b->params, TPM_ALG_SHA256, 0);
}

static void c_policy_or(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyOR);
	wr_u32(&b->params, 2);
	digest32(&b->params, 0x00); /* a fresh session's policyDigest */
	digest32(&b->params, 0x77);
}

static void c_policy_counter_timer(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyCounterTimer);
	wr_tpm2b(&b->params, "\0\0\0\0\0\0\0\0", 8);
	wr_u16(&b->params, 0);		/* time */
	wr_u16(&b->params, 0x0007); /* TPM_EO_UNSIGNED_GE */
}

static void c_policy_nv_written(struct cmdbuf *b)
{
	policy_begin(b, TPM_CC_PolicyNvWritten);
	wr_u8(&b->params, 1);
}

static void c_policy_duplication_select(struct cmdbuf *b)
{
	struct key k, p;

	new_key(K_SIGN, &k);
	new_key(K_STORAGE, &p);
	policy_begin(b, TPM_CC_PolicyDuplicationSelect);
	wr_tpm2b_name(&b->params, &k.name);
	wr_tpm2b_name(&b->params, &p.name);
	wr_u8(&b->params, 1);
}

static void secret_args(struct wr *w, int32_t expiration)
{
	wr_tpm2b(w, "", 0); /* nonceTPM */
	wr_tpm2b(w, "", 0); /* cpHashA */
	wr_tpm2b(w, "", 0); /* policyRef */
	wr_u32(w, (uint32_t)expiration);
}

static void c_policy_secret(struct cmdbuf *b)
{
	TPM_HANDLE s = start_session(TPM_SE_POLICY);

	cmd2(b, TPM_CC_PolicySecret, TPM_RH_OWNER, s, 1);
	secret_args(&b->params, 0);
}

static void c_policy_signed(struct cmdbuf *b)
{
	uint8_t zero[4] = { 0 }, digest[32], sig[512];
	size_t len;
	struct key k;
	TPM_HANDLE s;

	new_key(K_SIGN, &k);
	/* aHash = H(nonceTPM (empty) || expiration 0 || cpHashA || policyRef (both empty)) */
	crypto_hash(TPM_ALG_SHA256, zero, sizeof(zero), digest);
	sign(&k, digest, sig, &len);
	s = start_session(TPM_SE_POLICY);
	cmd2(b, TPM_CC_PolicySigned, k.handle, s, 0);
	secret_args(&b->params, 0);
	wr_bytes(&b->params, sig, len);
}

static void c_policy_ticket(struct cmdbuf *b)
{
	uint8_t ticket[512], name[4];
	size_t len;
	struct cmdbuf a;

	c_policy_secret(&a);
	a.params.off = 0;
	secret_args(&a.params, -3600);
	ok_rest(&a, ticket, &len); /* timeout, then the ticket */
	policy_begin(b, TPM_CC_PolicyTicket);
	wr_bytes(&b->params, ticket, 10);
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b(&b->params, "", 0);
	nvt_be32(name, TPM_RH_OWNER);
	wr_tpm2b(&b->params, name, sizeof(name));
	wr_bytes(&b->params, ticket + 10, len - 10);
}

static void c_policy_authorize(struct cmdbuf *b)
{
	uint8_t zero[32] = { 0 }, digest[32], ticket[512];
	size_t len;
	struct cmdbuf v;
	struct key k;

	new_key(K_SIGN, &k);
	/* approvedPolicy: a fresh session's digest; policyRef empty */
	crypto_hash(TPM_ALG_SHA256, zero, sizeof(zero), digest);
	verify_cmd(&v, &k, digest);
	ok_rest(&v, ticket, &len);
	policy_begin(b, TPM_CC_PolicyAuthorize);
	wr_tpm2b(&b->params, zero, 32);
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b_name(&b->params, &k.name);
	wr_bytes(&b->params, ticket, len);
}

/* An index holding data (len bytes), a fresh policy session, and cc with the index as both
 * authHandle and nvIndex, the session third. */
static void policy_nv_begin(struct cmdbuf *b, TPM_CC cc, const void *data, uint16_t len)
{
	TPM_HANDLE s;

	define(NVI, OWNER_RW | AUTH_RW, len);
	CU_ASSERT_EQUAL_FATAL(nvt_write(NVI, NVI, "pw", data, len, 0), 0);
	s = start_session(TPM_SE_POLICY);
	cmd2(b, cc, NVI, NVI, 0);
	cmd_handle(b, s);
	cmd_auth_pw(b, "pw");
}

static void c_policy_nv(struct cmdbuf *b)
{
	policy_nv_begin(b, TPM_CC_PolicyNV, "abcdefgh", 8);
	wr_tpm2b(&b->params, "abcd", 4);
	wr_u16(&b->params, 0);
	wr_u16(&b->params, 0x0000); /* TPM_EO_EQ */
}

static void c_policy_authorize_nv(struct cmdbuf *b)
{
	static const uint8_t ha[34] = { 0x00, 0x0B }; /* SHA-256 and a fresh session's digest */

	policy_nv_begin(b, TPM_CC_PolicyAuthorizeNV, ha, sizeof(ha));
}

/* ---- NV ---- */

static void c_nv_define_space(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_NV_DefineSpace, TPM_RH_OWNER, 1);
	wr_tpm2b(&b->params, "pw", 2);
	wr_u16(&b->params, 4 + 2 + 4 + 2 + 2);
	wr_u32(&b->params, NVI);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_u32(&b->params, OWNER_RW | AUTH_RW);
	wr_u16(&b->params, 0);
	wr_u16(&b->params, 8);
}

static void c_nv_undefine_space(struct cmdbuf *b)
{
	define(NVI, OWNER_RW | AUTH_RW, 8);
	cmd2(b, TPM_CC_NV_UndefineSpace, TPM_RH_OWNER, NVI, 1);
}

static void c_nv_undefine_space_special(struct cmdbuf *b)
{
	uint8_t policy[DSIZE];
	TPM_HANDLE s;

	nvt_cc_policy(TPM_CC_NV_UndefineSpaceSpecial, policy);
	CU_ASSERT_EQUAL_FATAL(nvt_define_full(TPM_RH_PLATFORM, NVI, TPM_ALG_SHA256,
					      OWNER_RW | AUTH_RW | TPMA_NV_PLATFORMCREATE |
						      TPMA_NV_POLICY_DELETE,
					      8, "pw", policy, DSIZE),
			      0);
	s = cc_session(TPM_CC_NV_UndefineSpaceSpecial);
	cmd2(b, TPM_CC_NV_UndefineSpaceSpecial, NVI, TPM_RH_PLATFORM, 0);
	auth_policy(b, s);
	cmd_auth_pw(b, "");
}

/* NVI with attributes OWNER_RW | AUTH_RW | attrs and size bytes; cc authorized by the index. */
static void nv_cmd(struct cmdbuf *b, TPM_CC cc, uint32_t attrs, uint16_t size)
{
	define(NVI, OWNER_RW | AUTH_RW | attrs, size);
	nvt_begin(b, cc, NVI, NVI, "pw");
}

static void c_nv_write(struct cmdbuf *b)
{
	nv_cmd(b, TPM_CC_NV_Write, 0, 8);
	wr_tpm2b(&b->params, "abcd", 4);
	wr_u16(&b->params, 2);
}

static void c_nv_read(struct cmdbuf *b)
{
	define(NVI, OWNER_RW | AUTH_RW, 8);
	CU_ASSERT_EQUAL_FATAL(nvt_write(NVI, NVI, "pw", "abcdefgh", 8, 0), 0);
	nvt_begin(b, TPM_CC_NV_Read, NVI, NVI, "pw");
	wr_u16(&b->params, 4);
	wr_u16(&b->params, 2);
}

static void c_nv_read_public(struct cmdbuf *b)
{
	define(NVI, OWNER_RW | AUTH_RW, 8);
	cmd1(b, TPM_CC_NV_ReadPublic, NVI, 0);
}

/* A counter that has been incremented once (so it is written). */
static void nv_increment(struct cmdbuf *b, uint32_t attrs)
{
	define(NVI, OWNER_RW | AUTH_RW | NT(TPM_NT_COUNTER) | attrs, 8);
	CU_ASSERT_EQUAL_FATAL(nvt_simple(TPM_CC_NV_Increment, NVI, NVI, "pw"), 0);
	nvt_begin(b, TPM_CC_NV_Increment, NVI, NVI, "pw");
}

static void c_nv_increment(struct cmdbuf *b)
{
	nv_increment(b, 0);
}

static void c_nv_increment_orderly(struct cmdbuf *b)
{
	nv_increment(b, TPMA_NV_ORDERLY);
}

static void c_nv_extend(struct cmdbuf *b)
{
	nv_cmd(b, TPM_CC_NV_Extend, NT(TPM_NT_EXTEND), 32);
	wr_tpm2b(&b->params, "abc", 3);
}

static void c_nv_set_bits(struct cmdbuf *b)
{
	nv_cmd(b, TPM_CC_NV_SetBits, NT(TPM_NT_BITS), 8);
	wr_u64(&b->params, 0x0102);
}

static void c_nv_write_lock(struct cmdbuf *b)
{
	nv_cmd(b, TPM_CC_NV_WriteLock, TPMA_NV_WRITEDEFINE, 8);
}

static void c_nv_read_lock(struct cmdbuf *b)
{
	nv_cmd(b, TPM_CC_NV_ReadLock, TPMA_NV_READ_STCLEAR, 8);
}

static void c_nv_global_write_lock(struct cmdbuf *b)
{
	define(NVI, OWNER_RW | AUTH_RW | TPMA_NV_GLOBALLOCK, 8);
	cmd1(b, TPM_CC_NV_GlobalWriteLock, TPM_RH_OWNER, 1);
}

static void c_nv_change_auth(struct cmdbuf *b)
{
	uint8_t policy[DSIZE];
	TPM_HANDLE s;

	nvt_cc_policy(TPM_CC_NV_ChangeAuth, policy);
	CU_ASSERT_EQUAL_FATAL(nvt_define_full(TPM_RH_OWNER, NVI, TPM_ALG_SHA256,
					      OWNER_RW | AUTH_RW, 8, "pw", policy, DSIZE),
			      0);
	s = cc_session(TPM_CC_NV_ChangeAuth);
	cmd1(b, TPM_CC_NV_ChangeAuth, NVI, 0);
	auth_policy(b, s);
	wr_tpm2b(&b->params, "new", 3);
}

static void c_nv_certify(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	define(NVI, OWNER_RW | AUTH_RW, 8);
	CU_ASSERT_EQUAL_FATAL(nvt_write(NVI, NVI, "pw", "abcdefgh", 8, 0), 0);
	cmd_begin(b, TPM_CC_NV_Certify);
	cmd_handle(b, k.handle);
	cmd_handle(b, NVI);
	cmd_handle(b, NVI);
	cmd_auth_pw(b, "");
	cmd_auth_pw(b, "pw");
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_u16(&b->params, 4);
	wr_u16(&b->params, 0);
}

/* ---- attestation ---- */

static void c_certify(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd2(b, TPM_CC_Certify, k.handle, k.handle, 2);
	wr_tpm2b(&b->params, "q", 1);
	wr_u16(&b->params, TPM_ALG_NULL);
}

static void c_certify_creation(struct cmdbuf *b)
{
	struct tpm2b_digest hash;
	struct tpmt_ticket ticket;
	struct tpmt_public pub;
	struct cmdbuf p;
	struct rd rsp, sub;
	TPM_HANDLE h;
	uint16_t size;
	struct key k;

	new_key(K_SIGN, &k);
	c_create_primary(&p);
	ok(&p, &rsp, &h);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_public(&rsp, &pub), 0);
	CU_ASSERT_EQUAL_FATAL(rd_sub(&rsp, &sub, &size), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_digest(&rsp, &hash), 0);
	CU_ASSERT_EQUAL_FATAL(rd_ticket(&rsp, &ticket), 0);
	cmd2(b, TPM_CC_CertifyCreation, k.handle, h, 1);
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b_digest(&b->params, &hash);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_ticket(&b->params, &ticket);
}

static void c_get_time(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd2(b, TPM_CC_GetTime, TPM_RH_ENDORSEMENT, k.handle, 2);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
}

static void c_quote(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd1(b, TPM_CC_Quote, k.handle, 1);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
	sel_one(&b->params, TPM_ALG_SHA256, 0);
}

/* ---- credentials and duplication ---- */

static void make_credential(struct cmdbuf *b, const struct key *ek, const struct key *obj)
{
	cmd1(b, TPM_CC_MakeCredential, ek->handle, 0);
	wr_tpm2b(&b->params, "credential", 10);
	wr_tpm2b_name(&b->params, &obj->name);
}

static void c_make_credential(struct cmdbuf *b)
{
	struct key ek, k;

	new_key(K_STORAGE, &ek);
	new_key(K_SIGN, &k);
	make_credential(b, &ek, &k);
}

static void c_activate_credential(struct cmdbuf *b)
{
	uint8_t out[2048];
	size_t len;
	struct cmdbuf m;
	struct key ek, k;

	new_key(K_STORAGE, &ek);
	new_key(K_SIGN, &k);
	make_credential(&m, &ek, &k);
	ok_rest(&m, out, &len);
	cmd2(b, TPM_CC_ActivateCredential, k.handle, ek.handle, 2);
	wr_bytes(&b->params, out, len);
}

/* An object that may be duplicated (with PolicyCommandCode(Duplicate)), loaded under p. */
static TPM_HANDLE dup_object(const struct key *p)
{
	uint8_t policy[DSIZE];
	struct tpmt_public t;
	struct cmdbuf b;
	TPM_HANDLE h;

	nvt_cc_policy(TPM_CC_Duplicate, policy);
	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	t.attributes &= ~(uint32_t)(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT);
	t.auth_policy.size = DSIZE;
	memcpy(t.auth_policy.b, policy, DSIZE);
	create_cmd(&b, TPM_CC_CreateLoaded, p->handle, &t, "", 0);
	ok(&b, NULL, &h);
	return h;
}

static void duplicate(struct cmdbuf *b, TPM_HANDLE obj, TPM_HANDLE new_parent)
{
	TPM_HANDLE s = cc_session(TPM_CC_Duplicate);

	cmd2(b, TPM_CC_Duplicate, obj, new_parent, 0);
	auth_policy(b, s);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
}

static void c_duplicate(struct cmdbuf *b)
{
	struct key p;

	new_key(K_STORAGE, &p);
	duplicate(b, dup_object(&p), TPM_RH_NULL);
}

static void c_rewrap(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd2(b, TPM_CC_Rewrap, TPM_RH_NULL, TPM_RH_NULL, 1);
	wr_tpm2b(&b->params, "a duplicate", 11);
	wr_tpm2b_name(&b->params, &k.name);
	wr_tpm2b(&b->params, "", 0);
}

static void c_import(struct cmdbuf *b)
{
	uint8_t out[4096], pub[1024];
	size_t len, pub_len;
	struct cmdbuf d, r;
	struct rd rsp;
	struct key p;
	TPM_HANDLE o;

	new_key(K_STORAGE, &p);
	o = dup_object(&p);
	cmd1(&r, TPM_CC_ReadPublic, o, 0);
	ok(&r, &rsp, NULL);
	sized(&rsp, pub, &pub_len);
	duplicate(&d, o, TPM_RH_NULL);
	ok_rest(&d, out, &len); /* encryptionKeyOut (empty), duplicate, outSymSeed (empty) */
	cmd1(b, TPM_CC_Import, p.handle, 1);
	wr_tpm2b(&b->params, "", 0);
	wr_bytes(&b->params, pub, pub_len);
	wr_bytes(&b->params, out + 2, len - 4);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
}

/* ---- v1.85: KEM, digest signing, signing sequences ---- */

static void mlkem_key(struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLKEM, 2, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(H, TPM_RH_OWNER, &t, "", k), 0);
}

static void c_encapsulate(struct cmdbuf *b)
{
	struct pq_key k;

	mlkem_key(&k);
	cmd1(b, TPM_CC_Encapsulate, k.handle, 0);
}

static void c_decapsulate(struct cmdbuf *b)
{
	uint8_t ss[4096], out[4096];
	size_t len;
	struct cmdbuf e;
	struct rd rsp;
	struct pq_key k;

	mlkem_key(&k);
	cmd1(&e, TPM_CC_Encapsulate, k.handle, 0);
	ok(&e, &rsp, NULL);
	sized(&rsp, ss, &len); /* sharedSecret */
	rest(&rsp, out, &len); /* ciphertext */
	cmd1(b, TPM_CC_Decapsulate, k.handle, 1);
	wr_bytes(&b->params, out, len);
}

static void c_sign_digest(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd1(b, TPM_CC_SignDigest, k.handle, 1);
	wr_tpm2b(&b->params, "", 0);
	digest32(&b->params, 0x42);
	null_hashcheck(&b->params);
}

static void c_verify_digest_signature(struct cmdbuf *b)
{
	uint8_t digest[32], sig[512];
	size_t len;
	struct key k;

	new_key(K_SIGN, &k);
	memset(digest, 0x42, sizeof(digest));
	sign(&k, digest, sig, &len);
	cmd1(b, TPM_CC_VerifyDigestSignature, k.handle, 0);
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b(&b->params, digest, 32);
	wr_bytes(&b->params, sig, len);
}

static struct key seq_key;

/* seq: a signing sequence with seq_key, a new signing key. */
static void sign_seq_start(void)
{
	new_key(K_SIGN, &seq_key);
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(H, seq_key.handle, "", NULL, 0, &seq), 0);
}

static void c_sign_sequence_start(struct cmdbuf *b)
{
	new_key(K_SIGN, &seq_key);
	cmd1(b, TPM_CC_SignSequenceStart, seq_key.handle, 0);
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b(&b->params, "", 0);
}

static void c_verify_sequence_start(struct cmdbuf *b)
{
	new_key(K_SIGN, &seq_key);
	cmd1(b, TPM_CC_VerifySequenceStart, seq_key.handle, 0);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, 0); /* no hint */
	wr_tpm2b(&b->params, "", 0);
}

static void c_sign_sequence_complete(struct cmdbuf *b)
{
	sign_seq_start();
	cmd2(b, TPM_CC_SignSequenceComplete, seq, seq_key.handle, 2);
	wr_tpm2b(&b->params, "message", 7);
}

static void c_verify_sequence_complete(struct cmdbuf *b)
{
	struct tpmt_signature sig;

	sign_seq_start();
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(H, seq, "", seq_key.handle, "", "message", 7, &sig),
			      0);
	CU_ASSERT_EQUAL_FATAL(pq_verify_start(H, seq_key.handle, "", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL_FATAL(pq_update(H, seq, "", "message", 7), 0);
	cmd2(b, TPM_CC_VerifySequenceComplete, seq, seq_key.handle, 1);
	wr_signature(&b->params, &sig);
}

static void c_sequence_update_sign(struct cmdbuf *b)
{
	sign_seq_start();
	cmd1(b, TPM_CC_SequenceUpdate, seq, 1);
	wr_tpm2b(&b->params, "mess", 4);
}

/* The signing sequence absorbed "mess" once: with "age" it signs "message". */
static void after_sequence_update_sign(void)
{
	struct tpmt_signature sig;
	struct tpmt_ticket t;

	CU_ASSERT_EQUAL(pq_sign_complete(H, seq, "", seq_key.handle, "", "age", 3, &sig), 0);
	CU_ASSERT_EQUAL(pq_verify_start(H, seq_key.handle, "", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(H, seq, "", "message", 7), 0);
	CU_ASSERT_EQUAL(pq_verify_complete(H, seq, "", seq_key.handle, &sig, &t), 0);
}

/* An HMAC session that audits a GetRandom: unsalted and unbound, with no authorized handle
 * its HMAC key is empty and so is its HMAC. */
static void c_get_session_audit_digest(struct cmdbuf *b)
{
	TPM_HANDLE s = start_session(TPM_SE_HMAC);
	struct cmdbuf r;
	struct key k;

	new_key(K_SIGN, &k);
	cmd_begin(&r, TPM_CC_GetRandom);
	wr_u32(&r.auth, s);
	digest32(&r.auth, 0x44);
	wr_u8(&r.auth, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_AUDIT);
	wr_u16(&r.auth, 0);
	r.nauth = 1;
	wr_u16(&r.params, 8);
	ok(&r, NULL, NULL);
	cmd_begin(b, TPM_CC_GetSessionAuditDigest);
	cmd_handle(b, TPM_RH_ENDORSEMENT);
	cmd_handle(b, k.handle);
	cmd_handle(b, s);
	cmd_auth_pw(b, "");
	cmd_auth_pw(b, "");
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
}

static void c_set_command_code_audit_status(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_SetCommandCodeAuditStatus, TPM_RH_OWNER, 1);
	wr_u16(&b->params, TPM_ALG_NULL);
	wr_u32(&b->params, 1);
	wr_u32(&b->params, TPM_CC_GetRandom);
	wr_u32(&b->params, 0);
}

static void c_get_command_audit_digest(struct cmdbuf *b)
{
	struct key k;

	new_key(K_SIGN, &k);
	cmd2(b, TPM_CC_GetCommandAuditDigest, TPM_RH_ENDORSEMENT, k.handle, 2);
	wr_tpm2b(&b->params, "", 0);
	wr_u16(&b->params, TPM_ALG_NULL);
}

static void c_pcr_set_auth_value(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_PCR_SetAuthValue, 20, 1);
	wr_tpm2b(&b->params, "pcr", 3);
}

static void c_pcr_set_auth_policy(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_PCR_SetAuthPolicy, TPM_RH_PLATFORM, 1);
	digest32(&b->params, 0x21);
	wr_u16(&b->params, TPM_ALG_SHA256);
	wr_u32(&b->params, 20);
}

static void c_pp_commands(struct cmdbuf *b)
{
	CU_ASSERT_EQUAL_FATAL(pqtpm_engine_signal(H->e, PQTPM_SIGNAL_PHYS_PRES_ON), 0);
	cmd1(b, TPM_CC_PP_Commands, TPM_RH_PLATFORM, 1);
	wr_u32(&b->params, 1);
	wr_u32(&b->params, TPM_CC_Clear);
	wr_u32(&b->params, 0);
}

static void c_set_algorithm_set(struct cmdbuf *b)
{
	cmd1(b, TPM_CC_SetAlgorithmSet, TPM_RH_PLATFORM, 1);
	wr_u32(&b->params, 1);
}

static void c_ec_ephemeral(struct cmdbuf *b)
{
	cmd_begin(b, TPM_CC_EC_Ephemeral);
	wr_u16(&b->params, TPM_ECC_NIST_P256);
}

static void c_commit(struct cmdbuf *b)
{
	struct tpmt_public t;
	struct key k;

	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_ECDAA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(H, &t, NULL, 0, &k);
	cmd1(b, TPM_CC_Commit, k.handle, 1);
	wr_u16(&b->params, 0); /* P1: the Empty Point */
	wr_tpm2b(&b->params, "", 0);
	wr_tpm2b(&b->params, "", 0);
}

/* ZGen_2Phase with an ECDH key: its own public point for both of the other party's points,
 * an ephemeral of EC_Ephemeral (counter 0). */
static void c_zgen_2phase(struct cmdbuf *b)
{
	struct cmdbuf e;
	struct key k;
	size_t mark;

	new_key(K_ECDH, &k);
	c_ec_ephemeral(&e);
	ok(&e, NULL, NULL);
	cmd1(b, TPM_CC_ZGen_2Phase, k.handle, 1);
	for (int i = 0; i < 2; i++) {
		wr_size_begin(&b->params, &mark);
		wr_tpm2b(&b->params, k.pub.x.b, k.pub.x.size);
		wr_tpm2b(&b->params, k.pub.y.b, k.pub.y.size);
		wr_size_end(&b->params, mark);
	}
	wr_u16(&b->params, TPM_ALG_ECDH);
	wr_u16(&b->params, 0);
}

/* ECC_Encrypt of "plain" to an ECDH key with KDF2 / SHA-256 (the key has no kdf) */
static void ecc_encrypt_cmd(struct cmdbuf *b, const struct key *k)
{
	cmd1(b, TPM_CC_ECC_Encrypt, k->handle, 0);
	wr_tpm2b(&b->params, "plain", 5);
	wr_u16(&b->params, TPM_ALG_KDF2);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

static void c_ecc_encrypt(struct cmdbuf *b)
{
	struct key k;

	new_key(K_ECDH, &k);
	ecc_encrypt_cmd(b, &k);
}

/* what ECC_Encrypt gave (C1, C2, C3) back to ECC_Decrypt */
static void c_ecc_decrypt(struct cmdbuf *b)
{
	uint8_t out[1024];
	struct cmdbuf e;
	struct key k;
	size_t len;

	new_key(K_ECDH, &k);
	ecc_encrypt_cmd(&e, &k);
	ok_rest(&e, out, &len);
	cmd1(b, TPM_CC_ECC_Decrypt, k.handle, 1);
	wr_bytes(&b->params, out, len);
	wr_u16(&b->params, TPM_ALG_KDF2);
	wr_u16(&b->params, TPM_ALG_SHA256);
}

/* ---- the table ---- */

struct tcase {
	const char *name;
	TPM_CC cc;
	void (*build)(struct cmdbuf *b);
	/* without build: begins cc, all a command without parameters needs */
	void (*begin)(struct cmdbuf *b, TPM_CC cc);
	void (*after)(void);
};

#define C(cc, fn) { #cc " (" #fn ")", TPM_CC_##cc, fn, NULL, NULL }
#define CA(cc, fn, after) { #cc " (" #fn ")", TPM_CC_##cc, fn, NULL, after }
#define CB(cc, begin) { #cc " (" #begin ")", TPM_CC_##cc, NULL, begin, NULL }

static const struct tcase cases[] = {
	C(GetRandom, c_get_random),
	C(StirRandom, c_stir_random),
	C(GetCapability, c_get_capability),
	C(TestParms, c_test_parms),
	CB(GetTestResult, cmd_begin),
	C(SelfTest, c_self_test),
	C(IncrementalSelfTest, c_incremental_self_test),
	C(Shutdown, c_shutdown),
	CB(ReadClock, cmd_begin),
	C(ClockSet, c_clock_set),
	C(ClockRateAdjust, c_clock_rate_adjust),
	C(PCR_Extend, c_pcr_extend),
	C(PCR_Event, c_pcr_event),
	C(PCR_Read, c_pcr_read),
	C(PCR_Reset, c_pcr_reset),
	C(PCR_Allocate, c_pcr_allocate),
	C(Hash, c_hash),
	C(HashSequenceStart, c_hash_sequence_start),
	C(HMAC_Start, c_hmac_start),
	CA(SequenceUpdate, c_sequence_update, after_sequence_update),
	CA(SequenceUpdate, c_sequence_update_sign, after_sequence_update_sign),
	C(SequenceComplete, c_sequence_complete),
	C(EventSequenceComplete, c_event_sequence_complete),
	C(HMAC, c_hmac),
	C(EncryptDecrypt, c_encrypt_decrypt),
	C(EncryptDecrypt2, c_encrypt_decrypt2),
	C(Create, c_create),
	C(Load, c_load),
	C(CreateLoaded, c_create_loaded),
	C(LoadExternal, c_load_external),
	C(ReadPublic, c_read_public),
	C(ObjectChangeAuth, c_object_change_auth),
	C(Unseal, c_unseal),
	C(CreatePrimary, c_create_primary),
	C(Sign, c_sign),
	C(VerifySignature, c_verify_signature),
	C(RSA_Encrypt, c_rsa_encrypt),
	C(RSA_Decrypt, c_rsa_decrypt),
	C(ECDH_KeyGen, c_ecdh_keygen),
	C(ECDH_ZGen, c_ecdh_zgen),
	C(ECC_Parameters, c_ecc_parameters),
	C(ContextSave, c_context_save),
	C(ContextLoad, c_context_load),
	C(ContextLoad, c_context_load_session),
	C(FlushContext, c_flush_context),
	C(FlushContext, c_flush_session),
	C(EvictControl, c_evict_control),
	C(EvictControl, c_evict_remove),
	C(HierarchyControl, c_hierarchy_control),
	C(HierarchyChangeAuth, c_hierarchy_change_auth),
	C(Clear, c_clear),
	C(ClearControl, c_clear_control),
	C(SetPrimaryPolicy, c_set_primary_policy),
	C(ChangePPS, c_change_pps),
	C(ChangeEPS, c_change_eps),
	C(DictionaryAttackLockReset, c_da_lock_reset),
	C(DictionaryAttackParameters, c_da_parameters),
	C(StartAuthSession, c_start_auth_session),
	C(PolicyRestart, c_policy_restart),
	CB(PolicyGetDigest, policy_begin),
	CB(PolicyAuthValue, policy_begin),
	CB(PolicyPassword, policy_begin),
	CB(PolicyPhysicalPresence, policy_begin),
	C(PolicyCommandCode, c_policy_command_code),
	C(PolicyLocality, c_policy_locality),
	C(PolicyCpHash, c_policy_cp_hash),
	C(PolicyNameHash, c_policy_name_hash),
	C(PolicyTemplate, c_policy_template),
	C(PolicyPCR, c_policy_pcr),
	C(PolicyOR, c_policy_or),
	C(PolicyCounterTimer, c_policy_counter_timer),
	C(PolicyNvWritten, c_policy_nv_written),
	C(PolicyDuplicationSelect, c_policy_duplication_select),
	C(PolicySecret, c_policy_secret),
	C(PolicySigned, c_policy_signed),
	C(PolicyTicket, c_policy_ticket),
	C(PolicyAuthorize, c_policy_authorize),
	C(PolicyNV, c_policy_nv),
	C(PolicyAuthorizeNV, c_policy_authorize_nv),
	C(NV_DefineSpace, c_nv_define_space),
	C(NV_UndefineSpace, c_nv_undefine_space),
	C(NV_UndefineSpaceSpecial, c_nv_undefine_space_special),
	C(NV_Write, c_nv_write),
	C(NV_Read, c_nv_read),
	C(NV_ReadPublic, c_nv_read_public),
	C(NV_Increment, c_nv_increment),
	C(NV_Increment, c_nv_increment_orderly),
	C(NV_Extend, c_nv_extend),
	C(NV_SetBits, c_nv_set_bits),
	C(NV_WriteLock, c_nv_write_lock),
	C(NV_ReadLock, c_nv_read_lock),
	C(NV_GlobalWriteLock, c_nv_global_write_lock),
	C(NV_ChangeAuth, c_nv_change_auth),
	C(NV_Certify, c_nv_certify),
	C(Certify, c_certify),
	C(CertifyCreation, c_certify_creation),
	C(GetTime, c_get_time),
	C(Quote, c_quote),
	C(GetSessionAuditDigest, c_get_session_audit_digest),
	C(SetCommandCodeAuditStatus, c_set_command_code_audit_status),
	C(GetCommandAuditDigest, c_get_command_audit_digest),
	C(PCR_SetAuthValue, c_pcr_set_auth_value),
	C(PCR_SetAuthPolicy, c_pcr_set_auth_policy),
	C(PP_Commands, c_pp_commands),
	C(SetAlgorithmSet, c_set_algorithm_set),
	C(EC_Ephemeral, c_ec_ephemeral),
	C(Commit, c_commit),
	C(ZGen_2Phase, c_zgen_2phase),
	C(ECC_Encrypt, c_ecc_encrypt),
	C(ECC_Decrypt, c_ecc_decrypt),
	C(MakeCredential, c_make_credential),
	C(ActivateCredential, c_activate_credential),
	C(Duplicate, c_duplicate),
	C(Rewrap, c_rewrap),
	C(Import, c_import),
	C(Encapsulate, c_encapsulate),
	C(Decapsulate, c_decapsulate),
	C(SignDigest, c_sign_digest),
	C(VerifyDigestSignature, c_verify_digest_signature),
	C(SignSequenceStart, c_sign_sequence_start),
	C(VerifySequenceStart, c_verify_sequence_start),
	C(SignSequenceComplete, c_sign_sequence_complete),
	C(VerifySequenceComplete, c_verify_sequence_complete),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static bool run_case(const struct tcase *t)
{
	static uint8_t cmd[PQTPM_MAX_COMMAND_SIZE], out[PQTPM_MAX_RESPONSE_SIZE];
	static struct snap before, after;
	static struct cmdbuf b;
	size_t len, outlen;
	TPM_RC rc;
	bool good = true;

	harness_open(H);
	if (t->build)
		t->build(&b);
	else
		t->begin(&b, t->cc);
	CU_ASSERT_EQUAL_FATAL(b.cc, t->cc);
	len = cmd_bytes(&b, cmd, sizeof(cmd) - 1);
	cmd[len] = 0x00;
	cmd[2] = (uint8_t)((len + 1) >> 24);
	cmd[3] = (uint8_t)((len + 1) >> 16);
	cmd[4] = (uint8_t)((len + 1) >> 8);
	cmd[5] = (uint8_t)(len + 1);
	snapshot(&before);
	rc = harness_raw(H, cmd, len + 1, out, &outlen);
	if (rc != TPM_RC_SIZE) {
		fprintf(stderr, "\n  %s with a byte more: 0x%03x, not TPM_RC_SIZE", t->name, rc);
		good = false;
	}
	snapshot(&after);
	if (before.n != after.n || memcmp(before.b, after.b, before.n) != 0) {
		fprintf(stderr, "\n  %s with a byte more changed what a client sees", t->name);
		good = false;
	}
	cmd_bytes(&b, cmd, sizeof(cmd));
	rc = harness_raw(H, cmd, len, out, &outlen);
	if (rc != TPM_RC_SUCCESS) {
		fprintf(stderr, "\n  %s as built: 0x%03x", t->name, rc);
		good = false;
	}
	if (t->after && rc == TPM_RC_SUCCESS)
		t->after();
	harness_close(H);
	return good;
}

static void test_trailing_byte(void)
{
	unsigned failed = 0;

	for (size_t i = 0; i < NCASES; i++)
		failed += !run_case(&cases[i]);
	CU_ASSERT_EQUAL(failed, 0);
}

/* Every command in the table has a case here (Startup needs a TPM not yet started): a new
 * command without one fails this test. */
static void test_every_command_covered(void)
{
	for (size_t i = 0; i < cmd_count(); i++) {
		TPM_CC cc = cmd_at(i)->code;
		bool found = cc == TPM_CC_Startup;

		for (size_t j = 0; j < NCASES && !found; j++)
			found = cases[j].cc == cc;
		if (!found)
			fprintf(stderr, "\n  %s (0x%x) has no case", cmd_at(i)->name, cc);
		CU_ASSERT(found);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "every command: a byte more is TPM_RC_SIZE and changes nothing",
		  test_trailing_byte },
		{ "every command in the table has a case", test_every_command_covered },
	};

	return UNIT_RUN("trailing bytes", tests, NULL, NULL);
}
