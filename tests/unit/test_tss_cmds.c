/* The client library's PCR, NV, asymmetric and symmetric commands (tss/cmd_pcr.c, cmd_nv.c,
 * cmd_asym.c, cmd_sym.c) against the engine in process, each result checked: PCR values
 * against the hash chain computed here, NV data across several NV_BUFFER_MAX pieces, RSA and
 * ECDH round trips, signatures the TPM verifies (and refuses once the digest changes), AES,
 * HMAC and hashes against the crypto layer on keys of known value. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "marshal.h"
#include "tss_util.h"
#include "unit_main.h"

#define PCR16 16
#define NV_INDEX 0x01500010
#define NV_COUNTER 0x01500011
#define TPM_NT_COUNTER 1

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

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* PCR n of bank hash, one digest */
static void pcr(TPM_ALG_ID hash, unsigned n, uint8_t *out)
{
	size_t len;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_pcr_read(t, hash, 1u << n, out, 64, &len), 0);
	CU_ASSERT_EQUAL(len, crypto_hash_size(hash));
}

/* new = H(old || digest) */
static void chain(TPM_ALG_ID hash, uint8_t *value, const uint8_t *digest)
{
	uint8_t both[128];
	size_t n = crypto_hash_size(hash);

	memcpy(both, value, n);
	memcpy(both + n, digest, n);
	crypto_hash(hash, both, 2 * n, value);
}

static void test_pcr_extend(void)
{
	uint8_t want[32], got[32], d[32], want1[20], got1[20];
	struct pqtpm_tss_ha two[2] = { { TPM_ALG_SHA1, 20, { 0 } }, { TPM_ALG_SHA256, 32, { 0 } } };

	pcr(TPM_ALG_SHA256, PCR16, want);
	pattern(d, sizeof(d), 1);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_extend(t, PCR16, TPM_ALG_SHA256, d, sizeof(d)), 0);
	chain(TPM_ALG_SHA256, want, d);
	pcr(TPM_ALG_SHA256, PCR16, got);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);

	pcr(TPM_ALG_SHA1, PCR16, want1);
	pattern(two[0].b, 20, 2);
	pattern(two[1].b, 32, 3);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_extend_banks(t, PCR16, "", two, 2), 0);
	chain(TPM_ALG_SHA1, want1, two[0].b);
	chain(TPM_ALG_SHA256, want, two[1].b);
	pcr(TPM_ALG_SHA1, PCR16, got1);
	pcr(TPM_ALG_SHA256, PCR16, got);
	CU_ASSERT_EQUAL(memcmp(got1, want1, 20), 0);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);

	/* a digest of the wrong size for its bank never leaves the library */
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_extend(t, PCR16, TPM_ALG_SHA256, d, 20),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_extend(t, PCR16, 0x7777, d, 32), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_extend_banks(t, PCR16, "", two, 0), PQTPM_TSS_RC_BAD_VALUE);
}

static void test_pcr_event_reset(void)
{
	static const uint8_t data[] = "boot event";
	uint8_t want[32], got[32], h[64], zero[32] = { 0 };
	struct pqtpm_tss_ha out[PQTPM_TSS_MAX_BANKS];
	size_t n = 0;
	int seen = 0;

	pcr(TPM_ALG_SHA256, PCR16, want);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_pcr_event(t, PCR16, "", data, sizeof(data), out,
						  PQTPM_TSS_MAX_BANKS, &n),
			      0);
	CU_ASSERT(n >= 2);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(out[i].size, crypto_hash_size(out[i].hash));
		CU_ASSERT_EQUAL(crypto_hash(out[i].hash, data, sizeof(data), h), 0);
		CU_ASSERT_EQUAL(memcmp(out[i].b, h, out[i].size), 0);
		if (out[i].hash == TPM_ALG_SHA256) {
			chain(TPM_ALG_SHA256, want, h);
			seen = 1;
		}
	}
	CU_ASSERT(seen);
	pcr(TPM_ALG_SHA256, PCR16, got);
	CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
	/* room for fewer digests than the TPM has banks: refused, nothing written past cap */
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_event(t, PCR16, "", data, 1, out, 1, &n),
			PQTPM_TSS_RC_MALFORMED);

	CU_ASSERT_EQUAL(pqtpm_tss_pcr_reset(t, PCR16, ""), 0);
	pcr(TPM_ALG_SHA256, PCR16, got);
	CU_ASSERT_EQUAL(memcmp(got, zero, 32), 0);
	/* PCR 0 is not resettable at locality 0 */
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_reset(t, 0, "") & 0xFF, TPM_RC_LOCALITY & 0xFF);
}

static void nv_define(TPM_HANDLE index, uint32_t attrs, uint16_t size)
{
	struct pqtpm_tss_nv_public p = {
		.index = index,
		.attributes = attrs | TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE,
		.data_size = size,
	};

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_nv_define_space(t, TPM_RH_OWNER, "", "nvpw", &p), 0);
}

static void test_nv_data(void)
{
	static uint8_t data[2048], back[2048];
	uint8_t marshalled[64], h[32];
	struct pqtpm_tss_nv_public p;
	struct pqtpm_tss_name name;
	struct wr w;

	pattern(data, sizeof(data), 9);
	nv_define(NV_INDEX, 0, sizeof(data));
	/* 2048 bytes (the largest index of the default capabilities): two NV_Write and two
	 * NV_Read commands of 1024 */
	CU_ASSERT_EQUAL(pqtpm_tss_nv_write(t, NV_INDEX, "nvpw", NV_INDEX, 0, data, sizeof(data)),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read(t, NV_INDEX, "nvpw", NV_INDEX, 0, back, sizeof(back)),
			0);
	CU_ASSERT_EQUAL(memcmp(back, data, sizeof(data)), 0);
	memset(back, 0, sizeof(back));
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read(t, NV_INDEX, "nvpw", NV_INDEX, 900, back, 1100), 0);
	CU_ASSERT_EQUAL(memcmp(back, data + 900, 1100), 0);
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_nv_read(t, NV_INDEX, "wrong", NV_INDEX, 0, back, 4), 0);

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_nv_read_public(t, NV_INDEX, &p, &name), 0);
	CU_ASSERT_EQUAL(p.index, NV_INDEX);
	CU_ASSERT_EQUAL(p.name_alg, TPM_ALG_SHA256);
	CU_ASSERT(p.attributes & TPMA_NV_WRITTEN);
	CU_ASSERT_EQUAL(p.data_size, sizeof(data));
	CU_ASSERT_EQUAL(p.policy_size, 0);
	/* Name = nameAlg || H(TPMS_NV_PUBLIC) */
	wr_init(&w, marshalled, sizeof(marshalled));
	wr_u32(&w, p.index);
	wr_u16(&w, p.name_alg);
	wr_u32(&w, p.attributes);
	wr_u16(&w, 0);
	wr_u16(&w, p.data_size);
	crypto_hash(TPM_ALG_SHA256, marshalled, w.off, h);
	CU_ASSERT_EQUAL_FATAL(name.size, 34);
	CU_ASSERT_EQUAL(name.b[0] << 8 | name.b[1], TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(memcmp(name.b + 2, h, 32), 0);

	CU_ASSERT_EQUAL(pqtpm_tss_nv_write(t, NV_INDEX, "nvpw", NV_INDEX, 65535, data, 2),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_undefine_space(t, TPM_RH_OWNER, "", NV_INDEX), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read_public(t, NV_INDEX, &p, &name),
			TPM_RC_HANDLE | TPM_RC_H | TPM_RC_1);
}

static uint64_t counter(void)
{
	uint8_t b[8];
	uint64_t v = 0;
	struct rd r;

	CU_ASSERT_EQUAL(pqtpm_tss_nv_read(t, NV_COUNTER, "nvpw", NV_COUNTER, 0, b, 8), 0);
	rd_init(&r, b, 8);
	rd_u64(&r, &v);
	return v;
}

static void test_nv_counter(void)
{
	struct pqtpm_tss_nv_public p;
	struct pqtpm_tss_name name;
	uint64_t v;

	nv_define(NV_COUNTER, TPM_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT, 8);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_increment(t, NV_COUNTER, "nvpw", NV_COUNTER), 0);
	v = counter();
	CU_ASSERT_EQUAL(pqtpm_tss_nv_increment(t, NV_COUNTER, "nvpw", NV_COUNTER), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_increment(t, NV_COUNTER, "nvpw", NV_COUNTER), 0);
	CU_ASSERT_EQUAL(counter(), v + 2);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_nv_read_public(t, NV_COUNTER, &p, &name), 0);
	CU_ASSERT_EQUAL((p.attributes & TPMA_NV_TPM2_NT_MASK) >> TPMA_NV_TPM2_NT_SHIFT,
			TPM_NT_COUNTER);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_undefine_space(t, TPM_RH_OWNER, "", NV_COUNTER), 0);
}

static void test_rsa_encrypt_decrypt(void)
{
	static const uint8_t label[] = "label";
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_RSA,
		.attributes = TSS_UTIL_KEY | TPMA_OBJECT_DECRYPT,
	};
	static struct pqtpm_tss_key k;
	uint8_t msg[40], ct[512], back[512];
	size_t clen, blen;

	pattern(msg, sizeof(msg), 4);
	CU_ASSERT_EQUAL_FATAL(tss_util_primary(t, &tm, "rsa", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_rsa_encrypt(t, k.handle, msg, sizeof(msg), TPM_ALG_OAEP,
						    TPM_ALG_SHA256, label, sizeof(label), ct,
						    sizeof(ct), &clen),
			      0);
	CU_ASSERT_EQUAL(clen, 256);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_rsa_decrypt(t, k.handle, "rsa", ct, clen, TPM_ALG_OAEP,
						    TPM_ALG_SHA256, label, sizeof(label), back,
						    sizeof(back), &blen),
			      0);
	CU_ASSERT_EQUAL(blen, sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(back, msg, sizeof(msg)), 0);
	/* another label: OAEP's check fails */
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_rsa_decrypt(t, k.handle, "rsa", ct, clen, TPM_ALG_OAEP,
						  TPM_ALG_SHA256, NULL, 0, back, sizeof(back),
						  &blen),
			    0);

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_rsa_encrypt(t, k.handle, msg, sizeof(msg), TPM_ALG_RSAES,
						    0, NULL, 0, ct, sizeof(ct), &clen),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_rsa_decrypt(t, k.handle, "rsa", ct, clen, TPM_ALG_RSAES,
						    0, NULL, 0, back, sizeof(back), &blen),
			      0);
	CU_ASSERT_EQUAL(blen, sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(back, msg, sizeof(msg)), 0);
	/* a result larger than the caller's buffer is a malformed answer, not an overflow */
	CU_ASSERT_EQUAL(pqtpm_tss_rsa_decrypt(t, k.handle, "rsa", ct, clen, TPM_ALG_RSAES, 0,
					      NULL, 0, back, 8, &blen),
			PQTPM_TSS_RC_MALFORMED);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_ecdh(void)
{
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_ECC,
		.attributes = TSS_UTIL_KEY | TPMA_OBJECT_DECRYPT,
	};
	static struct pqtpm_tss_key k;
	struct pqtpm_tss_ecc_point z, pub, z2;

	CU_ASSERT_EQUAL_FATAL(tss_util_primary(t, &tm, "ec", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_ecdh_keygen(t, k.handle, &z, &pub), 0);
	CU_ASSERT_EQUAL(z.x_size, 32);
	CU_ASSERT_EQUAL(pub.x_size, 32);
	CU_ASSERT_EQUAL(pub.y_size, 32);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_ecdh_zgen(t, k.handle, "ec", &pub, &z2), 0);
	CU_ASSERT_EQUAL(z2.x_size, z.x_size);
	CU_ASSERT_EQUAL(memcmp(z2.x, z.x, z.x_size), 0);
	CU_ASSERT_EQUAL(z2.y_size, z.y_size);
	CU_ASSERT_EQUAL(memcmp(z2.y, z.y, z.y_size), 0);
	pub.y[5] ^= 1; /* off the curve */
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_ecdh_zgen(t, k.handle, "ec", &pub, &z2), 0);
	pub.x_size = 200;
	CU_ASSERT_EQUAL(pqtpm_tss_ecdh_zgen(t, k.handle, "ec", &pub, &z2),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void sign_verify(TPM_ALG_ID type, TPM_ALG_ID scheme)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TSS_UTIL_KEY | TPMA_OBJECT_SIGN_ENCRYPT,
		.scheme = scheme,
		.scheme_hash = TPM_ALG_SHA256,
	};
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_signature sig;
	struct pqtpm_tss_ticket tk;
	uint8_t digest[32];
	uint16_t tag;

	pattern(digest, sizeof(digest), 5);
	CU_ASSERT_EQUAL_FATAL(tss_util_primary(t, &tm, "sig", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign(t, k.handle, "sig", digest, sizeof(digest), 0, 0,
					     NULL, &sig),
			      0);
	CU_ASSERT(sig.size > 2 && (sig.b[0] << 8 | sig.b[1]) == scheme);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, digest, sizeof(digest), &sig,
						   &tk),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tag, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tag, TPM_ST_VERIFIED);
	digest[0] ^= 1;
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, digest, sizeof(digest), &sig,
						   &tk),
			TPM_RC_SIGNATURE | TPM_RC_P | TPM_RC_2);
	/* the scheme named in the command instead of the key's */
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "sig", digest, sizeof(digest), scheme,
				       TPM_ALG_SHA256, NULL, &sig),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, digest, sizeof(digest), &sig,
						   &tk),
			0);
	/* a caller that does not want the ticket */
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, digest, sizeof(digest), &sig,
						   NULL),
			0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_sign_rsa(void)
{
	sign_verify(TPM_ALG_RSA, TPM_ALG_RSASSA);
}

static void test_sign_ecdsa(void)
{
	sign_verify(TPM_ALG_ECC, TPM_ALG_ECDSA);
}

/* A restricted key signs only what the TPM hashed: with Hash's ticket, not with the NULL one. */
static void test_sign_ticket(void)
{
	static const uint8_t msg[] = "hashed by the TPM";
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_ECC,
		.attributes = TSS_UTIL_KEY | TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_RESTRICTED,
		.scheme = TPM_ALG_ECDSA,
		.scheme_hash = TPM_ALG_SHA256,
	};
	static struct pqtpm_tss_key k;
	static struct pqtpm_tss_signature sig;
	struct pqtpm_tss_digest d;
	struct pqtpm_tss_ticket tk, vt;
	uint16_t tag;

	CU_ASSERT_EQUAL_FATAL(tss_util_primary(t, &tm, "", &k), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hash(t, TPM_ALG_SHA256, msg, sizeof(msg), TPM_RH_OWNER,
					     &d, &tk),
			      0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tag, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tag, TPM_ST_HASHCHECK);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "", d.b, d.size, 0, 0, &tk, &sig), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_signature(t, k.handle, d.b, d.size, &sig, &vt), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sign(t, k.handle, "", d.b, d.size, 0, 0, NULL, &sig),
			TPM_RC_TICKET | TPM_RC_P | (3 << 8));
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, k.handle), 0);
}

static void test_encrypt_decrypt(void)
{
	static uint8_t in[3000], out[3000], back[3000], want[3000];
	uint8_t key[16], iv[16], iv2[16], ivw[16];
	TPM_HANDLE h;

	pattern(key, sizeof(key), 6);
	pattern(iv, sizeof(iv), 7);
	pattern(in, sizeof(in), 8);
	memcpy(iv2, iv, 16);
	memcpy(ivw, iv, 16);
	CU_ASSERT_EQUAL_FATAL(tss_util_load_known(t, TPM_ALG_SYMCIPHER, key, sizeof(key), &h), 0);
	/* three pieces, the IV carried from one to the next: the same as one pass */
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_encrypt_decrypt(t, h, "", 0, TPM_ALG_CFB, iv, 16, in,
							sizeof(in), out),
			      0);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, key, sizeof(key), ivw, in, want, sizeof(in)),
			0);
	CU_ASSERT_EQUAL(memcmp(out, want, sizeof(out)), 0);
	CU_ASSERT_EQUAL(memcmp(iv, ivw, 16), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_encrypt_decrypt(t, h, "", 1, TPM_ALG_CFB, iv2, 16, out,
							sizeof(out), back),
			      0);
	CU_ASSERT_EQUAL(memcmp(back, in, sizeof(in)), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, h, "", 0, TPM_ALG_CFB, iv, 17, in, 16, out),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0);
}

static void test_hmac(void)
{
	static uint8_t data[3000];
	uint8_t key[32], want[32];
	struct pqtpm_tss_digest mac;
	TPM_HANDLE h, seq;

	pattern(key, sizeof(key), 10);
	pattern(data, sizeof(data), 11);
	CU_ASSERT_EQUAL_FATAL(tss_util_load_known(t, TPM_ALG_KEYEDHASH, key, sizeof(key), &h), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hmac(t, h, "", TPM_ALG_SHA256, data, 1000, &mac), 0);
	crypto_hmac(TPM_ALG_SHA256, key, sizeof(key), data, 1000, want);
	CU_ASSERT_EQUAL(mac.size, 32);
	CU_ASSERT_EQUAL(memcmp(mac.b, want, 32), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_hmac(t, h, "", TPM_ALG_SHA256, data, 2000, &mac),
			PQTPM_TSS_RC_BAD_VALUE);

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hmac_start(t, h, "", "seq", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, seq, "seq", data, 1024), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, seq, "seq", data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sequence_complete(t, seq, "seq", data + 2048, 952,
							  TPM_RH_NULL, &mac, NULL),
			      0);
	crypto_hmac(TPM_ALG_SHA256, key, sizeof(key), data, sizeof(data), want);
	CU_ASSERT_EQUAL(memcmp(mac.b, want, 32), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0);
}

/* A key of a known value made by Create with the caller's data under a storage key, loaded. */
static void create_known(const struct pqtpm_tss_key *parent, const struct pqtpm_tss_template *tm,
			 const uint8_t *value, size_t len, TPM_HANDLE *h)
{
	struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(tm, &tmpl), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_create_data(t, parent->handle, "", &tmpl, "key", value, len,
						    &k),
			      0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load(t, parent->handle, "", &k), 0);
	*h = k.handle;
}

/* FIPS-197 C.1 (AES-128) through a symCipher key of mode NULL, which takes ECB and CBC at each
 * command, and one of the default mode (CFB), which refuses ECB; RFC 4231 case 2 through a
 * keyedHash key of the NULL scheme, which takes the HMAC's hash at each command. */
static void test_create_data(void)
{
	static const uint8_t aes_key[16] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
					     0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
	static const uint8_t plain[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
					   0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	static const uint8_t cipher[16] = { 0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
					    0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a };
	static const uint8_t mac[32] = { 0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e,
					 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
					 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
					 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43 };
	static const char msg[] = "what do ya want for nothing?";
	uint32_t use = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH |
		       TPMA_OBJECT_SIGN_ENCRYPT;
	struct pqtpm_tss_template aes = { .type = TPM_ALG_SYMCIPHER,
					  .attributes = use | TPMA_OBJECT_DECRYPT,
					  .sym_bits = 128,
					  .sym_mode = TPM_ALG_NULL };
	struct pqtpm_tss_template hmac = { .type = TPM_ALG_KEYEDHASH, .attributes = use };
	static struct pqtpm_tss_key parent;
	struct pqtpm_tss_digest d;
	uint8_t out[32], iv[16] = { 0 }, cbc[32];
	TPM_HANDLE h;

	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &parent), 0);
	create_known(&parent, &aes, aes_key, sizeof(aes_key), &h);
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, h, "key", 0, TPM_ALG_ECB, NULL, 0, plain,
						  sizeof(plain), out),
			0);
	CU_ASSERT_EQUAL(memcmp(out, cipher, sizeof(cipher)), 0);
	/* CBC from a zero IV: the first block is ECB's, the second chains on it */
	memcpy(cbc, plain, 16);
	memcpy(cbc + 16, plain, 16);
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, h, "key", 0, TPM_ALG_CBC, iv, 16, cbc, 32, out),
			0);
	CU_ASSERT_EQUAL(memcmp(out, cipher, 16), 0);
	CU_ASSERT_EQUAL(memcmp(iv, out + 16, 16), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out + 16, cipher, 16), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0);

	aes.sym_mode = 0;
	create_known(&parent, &aes, aes_key, sizeof(aes_key), &h);
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, h, "key", 0, TPM_ALG_ECB, NULL, 0, plain,
						  sizeof(plain), out),
			TPM_RC_MODE | TPM_RC_P | TPM_RC_3);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0);

	create_known(&parent, &hmac, (const uint8_t *)"Jefe", 4, &h);
	CU_ASSERT_EQUAL(pqtpm_tss_hmac(t, h, "key", TPM_ALG_SHA256, (const uint8_t *)msg,
				       strlen(msg), &d),
			0);
	CU_ASSERT_EQUAL(d.size, 32);
	CU_ASSERT_EQUAL(memcmp(d.b, mac, 32), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, h), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, parent.handle), 0);
}

static void test_hash(void)
{
	static uint8_t data[3000];
	uint8_t want[64];
	struct pqtpm_tss_digest d;
	struct pqtpm_tss_ticket tk;
	TPM_HANDLE seq;
	TPM_HANDLE hier;
	uint16_t tag;

	pattern(data, sizeof(data), 12);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hash(t, TPM_ALG_SHA384, data, 1024, TPM_RH_OWNER, &d,
					     &tk),
			      0);
	crypto_hash(TPM_ALG_SHA384, data, 1024, want);
	CU_ASSERT_EQUAL(d.size, 48);
	CU_ASSERT_EQUAL(memcmp(d.b, want, 48), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tag, &hier, NULL), 0);
	CU_ASSERT_EQUAL(tag, TPM_ST_HASHCHECK);
	CU_ASSERT_EQUAL(hier, TPM_RH_OWNER);

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hash_sequence_start(t, "", TPM_ALG_SHA256, &seq), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, seq, "", data, 1024), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_sequence_update(t, seq, "", data + 1024, 1024), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sequence_complete(t, seq, "", data + 2048, 952,
							  TPM_RH_OWNER, &d, &tk),
			      0);
	crypto_hash(TPM_ALG_SHA256, data, sizeof(data), want);
	CU_ASSERT_EQUAL(d.size, 32);
	CU_ASSERT_EQUAL(memcmp(d.b, want, 32), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_ticket_parse(&tk, &tag, NULL, NULL), 0);
	CU_ASSERT_EQUAL(tag, TPM_ST_HASHCHECK);
	/* the sequence is gone once completed */
	CU_ASSERT_EQUAL(pqtpm_tss_flush(t, seq), TPM_RC_HANDLE | TPM_RC_P | TPM_RC_1);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "PCR_Extend of one bank and of two", test_pcr_extend },
		{ "PCR_Event and PCR_Reset", test_pcr_event_reset },
		{ "NV data in several pieces, NV_ReadPublic and its Name", test_nv_data },
		{ "NV counter", test_nv_counter },
		{ "RSA_Encrypt and RSA_Decrypt (OAEP with label, RSAES)", test_rsa_encrypt_decrypt },
		{ "ECDH_KeyGen and ECDH_ZGen", test_ecdh },
		{ "Sign and VerifySignature (RSASSA)", test_sign_rsa },
		{ "Sign and VerifySignature (ECDSA)", test_sign_ecdsa },
		{ "Sign with a hashcheck ticket", test_sign_ticket },
		{ "EncryptDecrypt2 against AES-CFB", test_encrypt_decrypt },
		{ "HMAC and HMAC_Start against HMAC-SHA-256", test_hmac },
		{ "Create with the caller's data: AES (FIPS-197), HMAC (RFC 4231)",
		  test_create_data },
		{ "Hash and HashSequenceStart against SHA-2", test_hash },
	};

	return UNIT_RUN("tss_cmds", tests, setup, teardown);
}
