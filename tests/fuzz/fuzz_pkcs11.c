/* libFuzzer target: the PKCS#11 module (pkcs11/) through its function list, as an application
 * drives it, on a token of its own (an embedded engine on a state directory under $TMPDIR).
 *
 * The token is made once (and again every PQTPM_FUZZ_RESET inputs, default 10000): a user
 * PIN and base token objects, an RSA-2048 key pair (sign, decrypt), an EC P-256 key pair
 * (sign, derive), an ML-DSA-44 and an ML-KEM-768 key pair, an AES-256 key, a generic secret
 * (HMAC) and a data object, and a session of the harness that
 * stays open, so that the user stays logged in from one input to the next (closing the last
 * session would log out, and a login costs an unseal in the TPM). Each input opens a R/W
 * session, logs in (if an earlier input logged out), and runs up to 32 operations read from
 * its bytes; a byte picks each one (modulo their
 * number), the following bytes its arguments:
 *   create    C_CreateObject of a template
 *   keygen    C_GenerateKey with a mechanism and a template, or C_GenerateKeyPair with two
 *             (an RSA request that would really generate, 2048 or 3072 bits, is skipped:
 *             seconds under ASan)
 *   find      C_FindObjectsInit with a template, C_FindObjects in chunks, C_FindObjectsFinal
 *             (or not)
 *   attrs     C_GetAttributeValue of an object with attribute types and buffers (NULL or
 *             of a given length)
 *   sign      C_SignInit with a mechanism, its parameter and a key, then C_Sign (the length
 *             query first, or a buffer), C_SignUpdate / C_SignFinal, or nothing
 *   verify    C_VerifyInit, then C_Verify / C_VerifyUpdate / C_VerifyFinal of bytes or of the
 *             last signature (a byte flipped or not)
 *   crypt     C_EncryptInit / C_DecryptInit, then C_Encrypt / C_Decrypt of bytes or of the
 *             last ciphertext, or C_EncryptUpdate / C_DecryptUpdate parts and the final call
 *   kem       C_EncapsulateKey (the ciphertext's two calls) or C_DecapsulateKey of bytes or of
 *             the last ciphertext (a byte flipped or not), with a template, through the 3.2
 *             function list
 *   derive    C_DeriveKey with a mechanism, its parameter, a base key and a template
 *   digest    C_DigestInit, C_Digest or C_DigestUpdate / C_DigestFinal
 *   destroy   C_DestroyObject of an object this input made or found
 *   rows      rows written into the store's database behind the module's back (a new object
 *             with fuzzer-chosen blobs and attributes, or a copy of a base object's row with
 *             attributes replaced or removed and its blobs altered), then C_FindObjectsInit,
 *             which loads them
 *   login     C_Logout, C_Login (the right PIN only: a wrong one would lock the TPM)
 *   misc      C_GetObjectSize, C_GetMechanismInfo, C_GetSessionInfo, C_GenerateRandom,
 *             C_SetAttributeValue, C_CopyObject, C_SeedRandom, C_GetOperationState
 * Mechanisms come from the module's own C_GetMechanismList (so new ones are fuzzed as they
 * appear), a few it does not list, or any number. A mechanism parameter is NULL, NULL with a
 * length, raw bytes whose length is never a multiple of 8 (so never the size of a structure
 * with pointers, which the module would rightly trust), or the structure the mechanism takes
 * (CK_RSA_PKCS_PSS_PARAMS, CK_RSA_PKCS_OAEP_PARAMS, CK_SIGN_ADDITIONAL_CONTEXT,
 * CK_HASH_SIGN_ADDITIONAL_CONTEXT, CK_ECDH1_DERIVE_PARAMS, an AES IV, CK_AES_CTR_PARAMS,
 * CK_MAC_GENERAL_PARAMS) with
 * fuzzer-chosen fields and its pointers to buffers of the lengths it gives. Every buffer is
 * allocated to its exact length, so that an over-read or over-write is ASan's.
 *
 * Oracle, beyond the sanitizers: a length the module gives back never exceeds the buffer
 * (C_GetAttributeValue's ulValueLen, the signature, ciphertext, plaintext, digest), and a
 * length query's answer is enough for the call after it. At the end of an input its sessions
 * are closed, the rows it added to the store are deleted, and the next C_FindObjectsInit must
 * find the token as the setup left it. (run.sh gives this target a $TMPDIR in /dev/shm:
 * every token object is an fsync of the store.)
 *
 * PQTPM_FUZZ_WRITE_SEEDS=DIR: write seed inputs (one per operation, used well) into DIR and
 * exit. PQTPM_FUZZ_DEBUG=1: print every call of an operation with its CK_RV (stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz_util.h"
#include "pk3.h"

#define ME "fuzz_pkcs11"
#define MAX_OPS 32
#define MAX_POOL 64
#define MAX_ATTRS 12
#define PIN "123456"
#define SO_PIN "so-secret"
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* the token, made by token_fresh() */
static CK_FUNCTION_LIST *f;
static char dir[512];
static CK_SLOT_ID slot;
static sqlite3 *db; /* the store's database, for the rows operation and the cleanup */
static sqlite3_int64 base_max_row; /* the base objects' rows are those up to this one */
static sqlite3_int64 base_rows[16];
static size_t nbase_rows;
static unsigned long inputs, reset_every = 10000;
static int debug;
static CK_MECHANISM_TYPE mechs[64];
static size_t nmechs;
static uint8_t ec_point[80]; /* the base EC key's CKA_EC_POINT, a valid peer for ECDH */
static CK_ULONG ec_point_len;

/* the base objects (indexes of a handle choice), then what this input made or found */
enum { RSA_PRIV, RSA_PUB, EC_PRIV, EC_PUB, MLDSA_PRIV, MLDSA_PUB, KEM_PRIV, KEM_PUB, AES_KEY,
       HMAC_KEY, DATA_OBJ, NBASE };
static CK_OBJECT_HANDLE base[NBASE];
static CK_OBJECT_HANDLE pool[MAX_POOL];
static size_t npool;
static CK_SESSION_HANDLE sess, anchor;
/* the last signature and ciphertext the module produced, for verify and decrypt */
static uint8_t last_sig[8192], last_ct[8192], last_kem[2048];
static size_t last_sig_len, last_ct_len, last_kem_len;
static CK_FUNCTION_LIST_3_2 *f3; /* the same module's 3.2 list, for the KEM functions */

/* ---- the input ---- */

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t g8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint16_t g16(struct in *in)
{
	uint16_t hi = g8(in);

	return (uint16_t)(hi << 8 | g8(in));
}

static uint32_t g32(struct in *in)
{
	uint32_t hi = g16(in);

	return hi << 16 | g16(in);
}

/* Allocations of one operation, freed after it. */
static void *arena[512];
static size_t narena;

static void *amalloc(size_t n)
{
	void *p;

	if (narena == N(arena))
		fz_die(ME, "arena full");
	p = calloc(1, n ? n : 1);
	if (!p)
		fz_die(ME, "out of memory");
	arena[narena++] = p;
	return p;
}

static void afree(void)
{
	while (narena)
		free(arena[--narena]);
}

/* n bytes of the input (zeros past its end) in a buffer of exactly n bytes. */
static uint8_t *take(struct in *in, size_t n)
{
	uint8_t *b = amalloc(n);
	size_t k = n < in->n ? n : in->n;

	memcpy(b, in->p, k);
	in->p += k;
	in->n -= k;
	return b;
}

/* A length: small mostly, up to `big` when the first byte's top bit is set. */
static size_t glen(struct in *in, size_t big)
{
	uint8_t b = g8(in);

	return b & 0x80 ? (((size_t)(b & 0x7F) << 8 | g8(in)) % (big + 1)) : b;
}

/* ---- choices ---- */

static const CK_ATTRIBUTE_TYPE types[] = {
	CKA_CLASS, CKA_TOKEN, CKA_PRIVATE, CKA_LABEL, CKA_APPLICATION, CKA_VALUE, CKA_OBJECT_ID,
	CKA_CERTIFICATE_TYPE, CKA_ISSUER, CKA_SERIAL_NUMBER, CKA_TRUSTED,
	CKA_CERTIFICATE_CATEGORY, CKA_CHECK_VALUE, CKA_KEY_TYPE, CKA_SUBJECT, CKA_ID,
	CKA_SENSITIVE, CKA_ENCRYPT, CKA_DECRYPT, CKA_WRAP, CKA_UNWRAP, CKA_SIGN,
	CKA_SIGN_RECOVER, CKA_VERIFY, CKA_VERIFY_RECOVER, CKA_DERIVE, CKA_START_DATE,
	CKA_END_DATE, CKA_MODULUS, CKA_MODULUS_BITS, CKA_PUBLIC_EXPONENT, CKA_PRIVATE_EXPONENT,
	CKA_PRIME_1, CKA_VALUE_LEN, CKA_EXTRACTABLE, CKA_LOCAL, CKA_NEVER_EXTRACTABLE,
	CKA_ALWAYS_SENSITIVE, CKA_KEY_GEN_MECHANISM, CKA_MODIFIABLE, CKA_COPYABLE,
	CKA_DESTROYABLE, CKA_EC_PARAMS, CKA_EC_POINT, CKA_ALWAYS_AUTHENTICATE,
	CKA_WRAP_WITH_TRUSTED, CKA_UNIQUE_ID, CKA_PARAMETER_SET, CKA_SEED,
	0x633 /* CKA_ENCAPSULATE */, 0x634 /* CKA_DECAPSULATE */, CKA_VALUE_BITS,
};

static CK_ATTRIBUTE_TYPE pick_type(struct in *in)
{
	uint8_t b = g8(in);

	return b == 0xFF ? g32(in) : types[b % N(types)];
}

/* Values a ulong attribute is likely to be compared with. */
static const CK_ULONG ulongs[] = {
	CKO_DATA,     CKO_CERTIFICATE, CKO_PUBLIC_KEY, CKO_PRIVATE_KEY, CKO_SECRET_KEY,
	CKK_RSA,      CKK_EC,	       CKK_GENERIC_SECRET, CKK_AES,     CKK_ML_DSA,
	CKK_ML_KEM,   CKC_X_509,       2048,	       3072,	       1024,
	CKP_ML_DSA_65, CKP_ML_DSA_87,  16,	       32,	       48,
	64,	      (CK_ULONG)-1,
};

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };

/* One attribute's value: NULL (with a length or not), a CK_ULONG, a CK_BBOOL, a curve's OID,
 * bytes of the input. */
static void value(struct in *in, CK_ATTRIBUTE *a)
{
	uint8_t kind = g8(in);
	CK_ULONG u;
	size_t n;

	switch (kind % 7) {
	case 0:
		a->pValue = NULL;
		a->ulValueLen = 0;
		break;
	case 1: /* a caller's mistake the module must survive */
		a->pValue = NULL;
		a->ulValueLen = g8(in);
		break;
	case 2:
		n = g8(in);
		u = n < N(ulongs) ? ulongs[n] : n == 0xFF ? g32(in) : n;
		a->pValue = amalloc(sizeof(u));
		memcpy(a->pValue, &u, sizeof(u));
		a->ulValueLen = sizeof(u);
		break;
	case 3:
		a->pValue = take(in, 1);
		a->ulValueLen = 1;
		break;
	case 4: {
		bool p384 = g8(in) & 1;

		n = p384 ? sizeof(OID_P384) : sizeof(OID_P256);
		a->pValue = amalloc(n);
		memcpy(a->pValue, p384 ? OID_P384 : OID_P256, n);
		a->ulValueLen = n;
		break;
	}
	default:
		n = glen(in, 3000);
		a->pValue = take(in, n);
		a->ulValueLen = n;
		break;
	}
}

/* A count (0xF0 and above: a NULL template with a count, a caller's mistake), then the
 * attributes. */
static CK_ATTRIBUTE *template(struct in *in, CK_ULONG *count)
{
	uint8_t b = g8(in);
	CK_ULONG n = b % (MAX_ATTRS + 1), i;
	CK_ATTRIBUTE *t = amalloc(n * sizeof(*t));

	if (b >= 0xF0) {
		*count = b & 0x0F;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		t[i].type = pick_type(in);
		value(in, &t[i]);
	}
	*count = n;
	return t;
}

static const CK_MECHANISM_TYPE unlisted[] = {
	CKM_AES_GCM, CKM_AES_CBC, CKM_DSA, CKM_SHA224, CKM_SHA224_RSA_PKCS, CKM_RSA_X_509,
	CKM_HASH_ML_DSA, CKM_ML_KEM, CKM_GENERIC_SECRET_KEY_GEN, CKM_ECDH1_COFACTOR_DERIVE,
};

static CK_MECHANISM_TYPE pick_mech(struct in *in)
{
	uint8_t b = g8(in);

	if (b == 0xFF)
		return g32(in);
	if (b >= 0xF0)
		return unlisted[b % N(unlisted)];
	return mechs[b % nmechs];
}

static CK_MECHANISM_TYPE pick_hash(struct in *in)
{
	static const CK_MECHANISM_TYPE h[] = { CKM_SHA_1, CKM_SHA256, CKM_SHA384, CKM_SHA512,
					       CKM_SHA224 };
	uint8_t b = g8(in);

	return b == 0xFF ? g32(in) : h[b % N(h)];
}

static CK_RSA_PKCS_MGF_TYPE pick_mgf(struct in *in)
{
	static const CK_RSA_PKCS_MGF_TYPE m[] = { CKG_MGF1_SHA1, CKG_MGF1_SHA256, CKG_MGF1_SHA384,
						  CKG_MGF1_SHA512, CKG_MGF1_SHA224 };
	uint8_t b = g8(in);

	return b == 0xFF ? g32(in) : m[b % N(m)];
}

/* A pointer and a length: a buffer of the input, or NULL (with a length or not). */
static void *ptr_len(struct in *in, CK_ULONG *len, size_t big)
{
	uint8_t b = g8(in);

	if (b < 0x10) {
		*len = b & 1 ? g8(in) : 0;
		return NULL;
	}
	*len = glen(in, big);
	return take(in, *len);
}

static bool is_pss(CK_MECHANISM_TYPE m)
{
	return m == CKM_RSA_PKCS_PSS || m == CKM_SHA1_RSA_PKCS_PSS ||
	       m == CKM_SHA256_RSA_PKCS_PSS || m == CKM_SHA384_RSA_PKCS_PSS ||
	       m == CKM_SHA512_RSA_PKCS_PSS || m == CKM_SHA224_RSA_PKCS_PSS;
}

/* The parameter the mechanism takes, with fuzzer-chosen fields. */
static void structured(struct in *in, CK_MECHANISM *m)
{
	if (is_pss(m->mechanism)) {
		CK_RSA_PKCS_PSS_PARAMS *p = amalloc(sizeof(*p));

		p->hashAlg = pick_hash(in);
		p->mgf = pick_mgf(in);
		p->sLen = g8(in) == 0xFF ? g32(in) : g8(in);
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_RSA_PKCS_OAEP) {
		CK_RSA_PKCS_OAEP_PARAMS *p = amalloc(sizeof(*p));

		p->hashAlg = pick_hash(in);
		p->mgf = pick_mgf(in);
		p->source = g8(in) % 3;
		p->pSourceData = ptr_len(in, &p->ulSourceDataLen, 300);
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_ML_DSA || m->mechanism == CKM_HASH_ML_DSA_SHA256 ||
		   m->mechanism == CKM_HASH_ML_DSA_SHA384 ||
		   m->mechanism == CKM_HASH_ML_DSA_SHA512) {
		CK_SIGN_ADDITIONAL_CONTEXT *p = amalloc(sizeof(*p));

		p->hedgeVariant = g8(in) % 4;
		p->pContext = ptr_len(in, &p->ulContextLen, 300);
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_HASH_ML_DSA) {
		CK_HASH_SIGN_ADDITIONAL_CONTEXT *p = amalloc(sizeof(*p));

		p->hedgeVariant = g8(in) % 4;
		p->pContext = ptr_len(in, &p->ulContextLen, 300);
		p->hash = pick_hash(in);
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_ECDH1_DERIVE) {
		CK_ECDH1_DERIVE_PARAMS *p = amalloc(sizeof(*p));
		uint8_t b;

		p->kdf = g8(in) % 10; /* CKD_NULL 1 ... CKD_SHA512_KDF 8, and others */
		p->pSharedData = ptr_len(in, &p->ulSharedDataLen, 100);
		b = g8(in);
		if (b & 1) { /* the base key's point, bare or as its OCTET STRING, maybe bent */
			size_t skip = b & 2 ? 2 : 0, n = ec_point_len - skip;

			p->pPublicData = amalloc(n);
			memcpy(p->pPublicData, ec_point + skip, n);
			if (b & 4)
				p->pPublicData[g8(in) % n] ^= g8(in);
			p->ulPublicDataLen = n;
		} else {
			p->pPublicData = ptr_len(in, &p->ulPublicDataLen, 200);
		}
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_AES_CBC || m->mechanism == CKM_AES_CBC_PAD) {
		m->pParameter = take(in, 16); /* the IV */
		m->ulParameterLen = 16;
	} else if (m->mechanism == CKM_AES_CTR) {
		CK_AES_CTR_PARAMS *p = amalloc(sizeof(*p));

		p->ulCounterBits = g8(in);
		memcpy(p->cb, take(in, sizeof(p->cb)), sizeof(p->cb));
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else if (m->mechanism == CKM_SHA_1_HMAC_GENERAL ||
		   m->mechanism == CKM_SHA256_HMAC_GENERAL ||
		   m->mechanism == CKM_SHA384_HMAC_GENERAL ||
		   m->mechanism == CKM_SHA512_HMAC_GENERAL) {
		CK_ULONG *p = amalloc(sizeof(*p)); /* CK_MAC_GENERAL_PARAMS */

		*p = g8(in) == 0xFF ? g32(in) : g8(in);
		m->pParameter = p;
		m->ulParameterLen = sizeof(*p);
	} else {
		m->pParameter = NULL;
		m->ulParameterLen = 0;
	}
}

static CK_MECHANISM *mechanism(struct in *in)
{
	CK_MECHANISM *m = amalloc(sizeof(*m));
	uint8_t shape = g8(in);
	size_t n;

	m->mechanism = pick_mech(in);
	switch (shape % 4) {
	case 0:
		break;
	case 1: /* NULL with a length: a caller's mistake */
		m->ulParameterLen = g8(in);
		break;
	case 2: /* bytes, of a length no pointer-holding structure has */
		n = glen(in, 400);
		if (n % 8 == 0)
			n++;
		m->pParameter = take(in, n);
		m->ulParameterLen = n;
		break;
	default:
		structured(in, m);
		break;
	}
	return m;
}

static CK_OBJECT_HANDLE pick_handle(struct in *in)
{
	uint8_t b = g8(in);

	if (b < NBASE)
		return base[b];
	if (b == 0xFF)
		return g32(in);
	if (npool && b < 0xF0)
		return pool[(b - NBASE) % npool];
	return base[b % NBASE];
}

static void keep(CK_OBJECT_HANDLE h)
{
	if (npool < MAX_POOL)
		pool[npool++] = h;
	else
		pool[h % MAX_POOL] = h;
}

/* A call of an operation, printed with its CK_RV under PQTPM_FUZZ_DEBUG. */
static CK_RV tr(const char *what, CK_RV rv)
{
	if (debug)
		fprintf(stderr, "%s: 0x%lx\n", what, (unsigned long)rv);
	return rv;
}

#define P(fn, ...) tr(#fn, f->fn(__VA_ARGS__))

/* ---- the oracle ---- */

/* A length the module gave back for a buffer of cap bytes. */
static void fits(CK_RV rv, CK_ULONG len, size_t cap, const char *what)
{
	if (rv == CKR_OK && len > cap) {
		fprintf(stderr, "%s: %lu bytes in a buffer of %zu\n", what, (unsigned long)len,
			cap);
		fz_die(ME, "a length beyond the buffer");
	}
}

/* out, out_len for a two-call function: NULL (the length query) or a buffer. */
struct outbuf {
	uint8_t *b;
	CK_ULONG len;
	size_t cap;
};

static void outbuf(struct in *in, struct outbuf *o)
{
	uint8_t b = g8(in);

	if (b < 0x40) {
		o->b = NULL;
		o->len = b & 1 ? g32(in) : 0;
		o->cap = 0;
		return;
	}
	o->cap = glen(in, 6000);
	o->b = amalloc(o->cap);
	o->len = o->cap;
}

/* fn(out) as an application calls it: the length first (then a buffer of that length, which
 * must be enough), or a buffer at once. The fn must keep the operation going after a length
 * query or CKR_BUFFER_TOO_SMALL (PKCS#11 5.2). */
#define TWO_CALL(in, o, what, call)                                                           \
	do {                                                                                  \
		CK_RV rv_;                                                                    \
		outbuf(in, &(o));                                                             \
		rv_ = (call);                                                                 \
		if ((o).b) {                                                                  \
			fits(rv_, (o).len, (o).cap, what);                                    \
		} else if (rv_ == CKR_OK && (o).len <= 65536) {                               \
			(o).cap = (o).len;                                                    \
			(o).b = amalloc((o).cap);                                             \
			rv_ = (call);                                                         \
			if (rv_ == CKR_BUFFER_TOO_SMALL)                                      \
				fz_die(ME, what ": the length query's answer is too small");  \
			fits(rv_, (o).len, (o).cap, what);                                    \
		}                                                                             \
		(o).len = rv_ == CKR_OK && (o).b ? (o).len : 0;                               \
	} while (0)

/* ---- the operations ---- */

static void op_create(struct in *in)
{
	CK_OBJECT_HANDLE h;
	CK_ULONG n;
	CK_ATTRIBUTE *t = template(in, &n);

	if (P(C_CreateObject, sess, t, n, &h) == CKR_OK)
		keep(h);
}

/* Whether a template asks for an RSA key of a size the TPM would really generate. */
static bool real_rsa(const CK_ATTRIBUTE *t, CK_ULONG n)
{
	CK_ULONG i, bits;

	for (i = 0; t && i < n; i++)
		if (t[i].type == CKA_MODULUS_BITS && t[i].pValue &&
		    t[i].ulValueLen == sizeof(bits)) {
			memcpy(&bits, t[i].pValue, sizeof(bits));
			if (bits == 2048 || bits == 3072)
				return true;
		}
	return false;
}

static void op_keygen(struct in *in)
{
	bool pair = !(g8(in) & 1);
	CK_MECHANISM *m = mechanism(in);
	CK_ULONG npub, npriv;
	CK_ATTRIBUTE *pub = template(in, &npub), *priv;
	CK_OBJECT_HANDLE hpub, hpriv;

	if (!pair) {
		if (P(C_GenerateKey, sess, m, pub, npub, &hpub) == CKR_OK)
			keep(hpub);
		return;
	}
	priv = template(in, &npriv);
	if (m->mechanism == CKM_RSA_PKCS_KEY_PAIR_GEN && real_rsa(pub, npub))
		return;
	if (P(C_GenerateKeyPair, sess, m, pub, npub, priv, npriv, &hpub, &hpriv) == CKR_OK) {
		keep(hpub);
		keep(hpriv);
	}
}

static void op_find(struct in *in)
{
	CK_OBJECT_HANDLE found[16];
	CK_ULONG count, n, i;
	CK_ATTRIBUTE *t = template(in, &count);
	int rounds = g8(in) % 4;

	if (P(C_FindObjectsInit, sess, t, count) != CKR_OK)
		return;
	while (rounds-- >= 0) {
		CK_ULONG max = g8(in) % 17;

		if (P(C_FindObjects, sess, found, max, &n) != CKR_OK)
			break;
		if (n > max)
			fz_die(ME, "C_FindObjects: more handles than asked for");
		for (i = 0; i < n; i++)
			keep(found[i]);
	}
	if (g8(in) != 0xAA)
		P(C_FindObjectsFinal, sess);
}

static void op_attrs(struct in *in)
{
	CK_OBJECT_HANDLE h = pick_handle(in);
	CK_ULONG n = g8(in) % (MAX_ATTRS + 1), i;
	CK_ATTRIBUTE *t = amalloc(n * sizeof(*t));
	size_t *cap = amalloc(n * sizeof(*cap));
	CK_RV rv;

	for (i = 0; i < n; i++) {
		t[i].type = pick_type(in);
		if (g8(in) & 1) {
			cap[i] = glen(in, 5000);
			t[i].pValue = amalloc(cap[i]);
			t[i].ulValueLen = cap[i];
		} else {
			t[i].ulValueLen = g8(in);
		}
	}
	rv = P(C_GetAttributeValue, sess, h, t, n);
	if (rv != CKR_OK && rv != CKR_ATTRIBUTE_SENSITIVE && rv != CKR_ATTRIBUTE_TYPE_INVALID &&
	    rv != CKR_BUFFER_TOO_SMALL)
		return;
	for (i = 0; i < n; i++)
		if (t[i].pValue && t[i].ulValueLen != CK_UNAVAILABLE_INFORMATION)
			fits(CKR_OK, t[i].ulValueLen, cap[i], "C_GetAttributeValue");
}

static void op_sign(struct in *in)
{
	CK_MECHANISM *m = mechanism(in);
	CK_OBJECT_HANDLE k = pick_handle(in);
	struct outbuf o;
	uint8_t how;
	size_t n;

	if (P(C_SignInit, sess, m, k) != CKR_OK)
		return;
	how = g8(in) % 3;
	if (how == 0) {
		n = glen(in, 4000);
		uint8_t *data = take(in, n);

		TWO_CALL(in, o, "C_Sign", P(C_Sign, sess, data, n, o.b, &o.len));
	} else if (how == 1) {
		int parts = g8(in) % 4;

		while (parts--) {
			n = glen(in, 4000);
			if (P(C_SignUpdate, sess, take(in, n), n) != CKR_OK)
				return;
		}
		TWO_CALL(in, o, "C_SignFinal", P(C_SignFinal, sess, o.b, &o.len));
	} else {
		return; /* left active: the next C_SignInit must say so */
	}
	if (o.len && o.len <= sizeof(last_sig)) {
		memcpy(last_sig, o.b, o.len);
		last_sig_len = o.len;
	}
}

/* A signature to verify: the last one (a byte flipped, maybe) or bytes of the input. */
static uint8_t *signature(struct in *in, CK_ULONG *len)
{
	uint8_t b = g8(in), *s;

	if (b & 1 && last_sig_len) {
		s = amalloc(last_sig_len);
		memcpy(s, last_sig, last_sig_len);
		if (b & 2)
			s[g16(in) % last_sig_len] ^= 1 + (b >> 2);
		*len = last_sig_len;
		return s;
	}
	*len = glen(in, 5000);
	return take(in, *len);
}

static void op_verify(struct in *in)
{
	CK_MECHANISM *m = mechanism(in);
	CK_OBJECT_HANDLE k = pick_handle(in);
	CK_ULONG slen;
	uint8_t *sig;
	size_t n;

	if (P(C_VerifyInit, sess, m, k) != CKR_OK)
		return;
	if (g8(in) & 1) {
		n = glen(in, 4000);
		uint8_t *data = take(in, n);

		sig = signature(in, &slen);
		P(C_Verify, sess, data, n, sig, slen);
	} else {
		int parts = g8(in) % 4;

		while (parts--) {
			n = glen(in, 4000);
			if (P(C_VerifyUpdate, sess, take(in, n), n) != CKR_OK)
				return;
		}
		sig = signature(in, &slen);
		P(C_VerifyFinal, sess, sig, slen);
	}
}

static void op_crypt(struct in *in)
{
	bool enc = g8(in) & 1;
	CK_MECHANISM *m = mechanism(in);
	CK_OBJECT_HANDLE k = pick_handle(in);
	struct outbuf o;
	uint8_t *data;
	size_t n;

	if ((enc ? P(C_EncryptInit, sess, m, k) : P(C_DecryptInit, sess, m, k)) != CKR_OK)
		return;
	if (!enc && g8(in) & 1 && last_ct_len) {
		n = last_ct_len;
		data = amalloc(n);
		memcpy(data, last_ct, n);
	} else {
		n = glen(in, 600);
		data = take(in, n);
	}
	if (g8(in) & 1) { /* parts: this one, then others of the input, then the final call */
		int parts = g8(in) % 4;

		for (;;) {
			if (enc)
				TWO_CALL(in, o, "C_EncryptUpdate",
					 P(C_EncryptUpdate, sess, data, n, o.b, &o.len));
			else
				TWO_CALL(in, o, "C_DecryptUpdate",
					 P(C_DecryptUpdate, sess, data, n, o.b, &o.len));
			if (!parts--)
				break;
			n = glen(in, 600);
			data = take(in, n);
		}
		if (enc)
			TWO_CALL(in, o, "C_EncryptFinal", P(C_EncryptFinal, sess, o.b, &o.len));
		else
			TWO_CALL(in, o, "C_DecryptFinal", P(C_DecryptFinal, sess, o.b, &o.len));
	} else if (enc) {
		TWO_CALL(in, o, "C_Encrypt", P(C_Encrypt, sess, data, n, o.b, &o.len));
		if (o.len && o.len <= sizeof(last_ct)) {
			memcpy(last_ct, o.b, o.len);
			last_ct_len = o.len;
		}
	} else {
		TWO_CALL(in, o, "C_Decrypt", P(C_Decrypt, sess, data, n, o.b, &o.len));
	}
}

static void op_kem(struct in *in)
{
	bool enc = g8(in) & 1;
	CK_MECHANISM *m = mechanism(in);
	CK_OBJECT_HANDLE k = pick_handle(in), key = CK_INVALID_HANDLE;
	CK_ULONG n, len;
	CK_ATTRIBUTE *t = template(in, &n);
	struct outbuf o;
	uint8_t *ct, b;

	if (enc) {
		TWO_CALL(in, o, "C_EncapsulateKey",
			 tr("C_EncapsulateKey",
			    f3->C_EncapsulateKey(sess, m, k, t, n, o.b, &o.len, &key)));
		if (o.len && o.len <= sizeof(last_kem)) {
			memcpy(last_kem, o.b, o.len);
			last_kem_len = o.len;
		}
	} else {
		b = g8(in);
		if (b & 1 && last_kem_len) {
			len = last_kem_len;
			ct = amalloc(len);
			memcpy(ct, last_kem, len);
			if (b & 2)
				ct[g16(in) % len] ^= 1 + (b >> 2);
		} else {
			len = glen(in, 2000);
			ct = take(in, len);
		}
		tr("C_DecapsulateKey", f3->C_DecapsulateKey(sess, m, k, t, n, ct, len, &key));
	}
	if (key != CK_INVALID_HANDLE)
		keep(key);
}

static void op_derive(struct in *in)
{
	CK_MECHANISM *m = mechanism(in);
	CK_OBJECT_HANDLE k = pick_handle(in), h;
	CK_ULONG n;
	CK_ATTRIBUTE *t = template(in, &n);

	if (P(C_DeriveKey, sess, m, k, t, n, &h) == CKR_OK)
		keep(h);
}

static void op_digest(struct in *in)
{
	CK_MECHANISM *m = mechanism(in);
	struct outbuf o;
	size_t n;

	if (P(C_DigestInit, sess, m) != CKR_OK)
		return;
	if (g8(in) & 1) {
		n = glen(in, 5000);
		uint8_t *data = take(in, n);

		TWO_CALL(in, o, "C_Digest", P(C_Digest, sess, data, n, o.b, &o.len));
	} else {
		int parts = g8(in) % 4;

		while (parts--) {
			n = glen(in, 5000);
			if (P(C_DigestUpdate, sess, take(in, n), n) != CKR_OK)
				return;
		}
		TWO_CALL(in, o, "C_DigestFinal", P(C_DigestFinal, sess, o.b, &o.len));
	}
}

static void op_destroy(struct in *in)
{
	CK_OBJECT_HANDLE h;
	size_t i;

	if (!npool)
		return;
	h = pool[g8(in) % npool];
	for (i = 0; i < NBASE; i++)
		if (h == base[i])
			return; /* the base objects stay for the inputs after this one */
	P(C_DestroyObject, sess, h);
}

static void sql_step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW && rc != SQLITE_CONSTRAINT)
		fz_die(ME, sqlite3_errmsg(db));
	sqlite3_finalize(st);
}

static sqlite3_stmt *sql_prepare(const char *q)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		fz_die(ME, sqlite3_errmsg(db));
	return st;
}

static void sql_exec(const char *q)
{
	if (sqlite3_exec(db, q, NULL, NULL, NULL) != SQLITE_OK)
		fz_die(ME, sqlite3_errmsg(db));
}

/* A blob of the input, or NULL. */
static void bind_input_blob(sqlite3_stmt *st, int col, struct in *in)
{
	size_t n;

	if (g8(in) < 0x20) {
		sqlite3_bind_null(st, col);
		return;
	}
	n = glen(in, 3000);
	sqlite3_bind_blob(st, col, take(in, n), (int)n, SQLITE_TRANSIENT);
}

/* The attribute of type t of row: replaced by a value of the input, or removed. */
static void edit_attribute(struct in *in, sqlite3_int64 row)
{
	CK_ATTRIBUTE a = { pick_type(in), NULL, 0 };
	sqlite3_stmt *st;

	if (g8(in) % 3 == 0) {
		st = sql_prepare("DELETE FROM attributes WHERE object = ? AND type = ?");
	} else {
		st = sql_prepare("INSERT OR REPLACE INTO attributes VALUES (?, ?, ?)");
		value(in, &a);
		if (a.pValue)
			sqlite3_bind_blob(st, 3, a.pValue, (int)a.ulValueLen, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 3);
	}
	sqlite3_bind_int64(st, 1, row);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)a.type);
	sql_step(st);
}

/* One of the row's TPM blobs with a byte changed. */
static void bend_blob(struct in *in, sqlite3_int64 row)
{
	const char *col = g8(in) & 1 ? "tpm_priv" : "tpm_pub";
	char q[96];
	sqlite3_stmt *st;
	uint8_t *b = NULL;
	int n = 0;

	snprintf(q, sizeof(q), "SELECT %s FROM objects WHERE id = ?", col);
	st = sql_prepare(q);
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_step(st) == SQLITE_ROW && (n = sqlite3_column_bytes(st, 0)) > 0) {
		b = amalloc((size_t)n);
		memcpy(b, sqlite3_column_blob(st, 0), (size_t)n);
	}
	sqlite3_finalize(st);
	if (!b)
		return;
	b[g16(in) % n] ^= g8(in) | 1;
	if (g8(in) & 1)
		n = g16(in) % n; /* cut short */
	snprintf(q, sizeof(q), "UPDATE objects SET %s = ? WHERE id = ?", col);
	st = sql_prepare(q);
	sqlite3_bind_blob(st, 1, b, n, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, row);
	sql_step(st);
}

static void op_rows(struct in *in)
{
	CK_OBJECT_HANDLE found[16];
	CK_ULONG n, i;
	sqlite3_int64 row;
	sqlite3_stmt *st;
	int edits;

	if (g8(in) & 1) { /* a copy of a base object's row */
		sqlite3_int64 from = base_rows[g8(in) % nbase_rows];

		st = sql_prepare("INSERT INTO objects (token, tpm_pub, tpm_priv) "
				 "SELECT token, tpm_pub, tpm_priv FROM objects WHERE id = ?");
		sqlite3_bind_int64(st, 1, from);
		sql_step(st);
		row = sqlite3_last_insert_rowid(db);
		st = sql_prepare("INSERT INTO attributes SELECT ?, type, value FROM attributes "
				 "WHERE object = ?");
		sqlite3_bind_int64(st, 1, row);
		sqlite3_bind_int64(st, 2, from);
		sql_step(st);
		if (g8(in) & 1)
			bend_blob(in, row);
	} else {
		st = sql_prepare("INSERT INTO objects (token, tpm_pub, tpm_priv) VALUES (?, ?, ?)");
		/* this token's, or any */
		sqlite3_bind_int64(st, 1, g8(in) == 0xFF ? (sqlite3_int64)g32(in)
						       : (sqlite3_int64)slot);
		bind_input_blob(st, 2, in);
		bind_input_blob(st, 3, in);
		sql_step(st);
		row = sqlite3_last_insert_rowid(db);
	}
	edits = g8(in) % 8;
	while (edits--)
		edit_attribute(in, row);
	/* the module reads the token's rows again */
	if (P(C_FindObjectsInit, sess, NULL, 0) != CKR_OK)
		return;
	if (P(C_FindObjects, sess, found, N(found), &n) == CKR_OK)
		for (i = 0; i < n && i < N(found); i++)
			keep(found[i]);
	P(C_FindObjectsFinal, sess);
}

static void op_login(struct in *in)
{
	if (g8(in) & 1)
		P(C_Logout, sess);
	else
		P(C_Login, sess, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN));
}

static void op_misc(struct in *in)
{
	CK_MECHANISM_INFO mi;
	CK_SESSION_INFO si;
	CK_OBJECT_HANDLE h;
	struct outbuf o;
	CK_ULONG n, size;
	CK_ATTRIBUTE *t;
	size_t len;

	switch (g8(in) % 8) {
	case 0:
		P(C_GetObjectSize, sess, pick_handle(in), &size);
		break;
	case 1:
		P(C_GetMechanismInfo, g8(in) & 1 ? slot : g32(in), pick_mech(in), &mi);
		break;
	case 2:
		P(C_GetSessionInfo, g8(in) & 1 ? sess : g32(in), &si);
		break;
	case 3:
		len = glen(in, 2000);
		P(C_GenerateRandom, sess, amalloc(len), len);
		break;
	case 4:
		h = pick_handle(in);
		t = template(in, &n);
		P(C_SetAttributeValue, sess, h, t, n);
		break;
	case 5:
		h = pick_handle(in);
		t = template(in, &n);
		if (P(C_CopyObject, sess, h, t, n, &h) == CKR_OK)
			keep(h);
		break;
	case 6:
		len = glen(in, 300);
		P(C_SeedRandom, sess, take(in, len), len);
		break;
	default:
		TWO_CALL(in, o, "C_GetOperationState", P(C_GetOperationState, sess, o.b, &o.len));
		break;
	}
}

static void (*const ops[])(struct in *) = {
	op_create, op_keygen,  op_find, op_attrs, op_sign,  op_verify, op_crypt,
	op_derive, op_digest, op_destroy, op_rows, op_login, op_misc,	op_kem,
};

/* ---- the token ---- */

#define MUST(call)                                                    \
	do {                                                          \
		CK_RV rv_ = (call);                                   \
		if (rv_ != CKR_OK) {                                  \
			fprintf(stderr, "%s: rv 0x%lx\n", #call, rv_); \
			fz_die(ME, "setup failed");                   \
		}                                                     \
	} while (0)

static void base_keys(void)
{
	static CK_BBOOL yes = CK_TRUE;
	CK_ULONG bits = 2048, set = CKP_ML_DSA_44, kem_set = CKP_ML_KEM_768, len = 32;
	CK_OBJECT_CLASS data = CKO_DATA, secret = CKO_SECRET_KEY;
	CK_KEY_TYPE aes = CKK_AES, generic = CKK_GENERIC_SECRET;
	CK_MECHANISM rsa = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM ec = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM mldsa = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM mlkem = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM aes_gen = { CKM_AES_KEY_GEN, NULL, 0 };
	CK_MECHANISM secret_gen = { CKM_GENERIC_SECRET_KEY_GEN, NULL, 0 };
	CK_ATTRIBUTE rsa_pub[] = { { CKA_TOKEN, &yes, 1 },
				   { CKA_MODULUS_BITS, &bits, sizeof(bits) },
				   { CKA_ENCRYPT, &yes, 1 } };
	CK_ATTRIBUTE rsa_priv[] = { { CKA_TOKEN, &yes, 1 }, { CKA_DECRYPT, &yes, 1 } };
	CK_ATTRIBUTE ec_pub[] = { { CKA_TOKEN, &yes, 1 },
				  { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) } };
	CK_ATTRIBUTE ec_priv[] = { { CKA_TOKEN, &yes, 1 }, { CKA_DERIVE, &yes, 1 } };
	CK_ATTRIBUTE ml_pub[] = { { CKA_TOKEN, &yes, 1 },
				  { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE ml_priv[] = { { CKA_TOKEN, &yes, 1 } };
	CK_ATTRIBUTE kem_pub[] = { { CKA_TOKEN, &yes, 1 },
				   { CKA_PARAMETER_SET, &kem_set, sizeof(kem_set) } };
	CK_ATTRIBUTE aes_t[] = { { CKA_CLASS, &secret, sizeof(secret) },
				 { CKA_KEY_TYPE, &aes, sizeof(aes) },
				 { CKA_VALUE_LEN, &len, sizeof(len) },
				 { CKA_TOKEN, &yes, 1 } };
	CK_ATTRIBUTE hmac_t[] = { { CKA_CLASS, &secret, sizeof(secret) },
				  { CKA_KEY_TYPE, &generic, sizeof(generic) },
				  { CKA_VALUE_LEN, &len, sizeof(len) },
				  { CKA_TOKEN, &yes, 1 } };
	CK_ATTRIBUTE dt[] = { { CKA_CLASS, &data, sizeof(data) },
			      { CKA_TOKEN, &yes, 1 },
			      { CKA_LABEL, "base", 4 },
			      { CKA_VALUE, "base data", 9 } };
	CK_ATTRIBUTE point = { CKA_EC_POINT, ec_point, sizeof(ec_point) };

	MUST(f->C_GenerateKeyPair(sess, &rsa, rsa_pub, 3, rsa_priv, 2, &base[RSA_PUB],
				  &base[RSA_PRIV]));
	MUST(f->C_GenerateKeyPair(sess, &ec, ec_pub, 2, ec_priv, 2, &base[EC_PUB],
				  &base[EC_PRIV]));
	MUST(f->C_GenerateKeyPair(sess, &mldsa, ml_pub, 2, ml_priv, 1, &base[MLDSA_PUB],
				  &base[MLDSA_PRIV]));
	MUST(f->C_GenerateKeyPair(sess, &mlkem, kem_pub, 2, ml_priv, 1, &base[KEM_PUB],
				  &base[KEM_PRIV]));
	MUST(f->C_GenerateKey(sess, &aes_gen, aes_t, 4, &base[AES_KEY]));
	MUST(f->C_GenerateKey(sess, &secret_gen, hmac_t, 4, &base[HMAC_KEY]));
	MUST(f->C_CreateObject(sess, dt, 4, &base[DATA_OBJ]));
	MUST(f->C_GetAttributeValue(sess, base[EC_PUB], &point, 1));
	ec_point_len = point.ulValueLen;
}

/* The module finalized, the token's directory removed. */
static void token_gone(void)
{
	char cmd[600];

	if (!f)
		return;
	f->C_Finalize(NULL);
	sqlite3_close(db);
	db = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fz_die(ME, "cannot remove the old state directory");
}

static void token_fresh(void)
{
	CK_VERSION v32 = { 3, 2 };
	CK_INTERFACE *iface;
	CK_SLOT_ID slots[8];
	CK_ULONG n = 8;
	CK_UTF8CHAR label[32];
	sqlite3_stmt *st;
	char path[600];
	const char *tmp = getenv("TMPDIR");

	token_gone();
	snprintf(dir, sizeof(dir), "%s/fuzz-pkcs11-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		fz_die(ME, "mkdtemp");
	setenv("PQTPM_STATE_DIR", dir, 1);
	unsetenv("PQTPM_PKCS11_CONF");
	MUST(C_GetFunctionList(&f));
	MUST(C_GetInterface((CK_UTF8CHAR *)"PKCS 11", &v32, &iface, 0));
	f3 = iface->pFunctionList;
	MUST(f->C_Initialize(NULL));
	MUST(f->C_GetSlotList(CK_FALSE, slots, &n));
	slot = slots[0];
	memset(label, ' ', sizeof(label));
	memcpy(label, "fuzz", 4);
	MUST(f->C_InitToken(slot, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN), label));
	MUST(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &sess));
	MUST(f->C_Login(sess, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)));
	MUST(f->C_InitPIN(sess, (CK_UTF8CHAR *)PIN, strlen(PIN)));
	MUST(f->C_Logout(sess));
	MUST(f->C_Login(sess, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)));
	base_keys();
	n = 64;
	MUST(f->C_GetMechanismList(slot, mechs, &n));
	nmechs = n;
	anchor = sess;
	snprintf(path, sizeof(path), "%s/pkcs11.db", dir);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		fz_die(ME, "cannot open the store");
	sqlite3_busy_timeout(db, 10000);
	st = sql_prepare("SELECT id FROM objects ORDER BY id");
	nbase_rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW && nbase_rows < N(base_rows))
		base_rows[nbase_rows++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (nbase_rows != NBASE)
		fz_die(ME, "the base objects are not in the store");
	base_max_row = base_rows[nbase_rows - 1];
}

/* The user logged in (an input may have logged out). */
static void login(CK_SESSION_HANDLE s)
{
	CK_RV rv = f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN));

	if (rv != CKR_OK && rv != CKR_USER_ALREADY_LOGGED_IN)
		MUST(rv);
}

/* The input's session closed (its session objects go), its rows gone: the module finds the
 * token as it was. */
static void cleanup(void)
{
	CK_OBJECT_HANDLE found[NBASE + 1];
	CK_ULONG n = 0;
	char q[160];

	MUST(f->C_CloseSession(sess));
	snprintf(q, sizeof(q),
		 "DELETE FROM attributes WHERE object > %lld; DELETE FROM objects WHERE id > %lld;",
		 (long long)base_max_row, (long long)base_max_row);
	sql_exec(q);
	login(anchor);
	MUST(f->C_FindObjectsInit(anchor, NULL, 0));
	MUST(f->C_FindObjects(anchor, found, N(found), &n));
	MUST(f->C_FindObjectsFinal(anchor));
	if (n != NBASE)
		fz_die(ME, "after the cleanup the token does not have its base objects alone");
}

/* ---- seeds ---- */

static uint8_t seed[4096];
static size_t seed_n;

static void put(const void *p, size_t n)
{
	if (seed_n + n > sizeof(seed))
		fz_die(ME, "seed too long");
	memcpy(seed + seed_n, p, n);
	seed_n += n;
}

static void put8(uint8_t b)
{
	put(&b, 1);
}

static void put_bytes(const char *s)
{
	put8((uint8_t)strlen(s));
	put(s, strlen(s));
}

/* Index of a mechanism in the module's list, as pick_mech reads it. */
static uint8_t mech_index(CK_MECHANISM_TYPE m)
{
	size_t i;

	for (i = 0; i < nmechs; i++)
		if (mechs[i] == m)
			return (uint8_t)i;
	fz_die(ME, "seed: a mechanism the module does not list");
}

/* attribute helpers: type index, then a value kind */
static uint8_t type_index(CK_ATTRIBUTE_TYPE t)
{
	size_t i;

	for (i = 0; i < N(types); i++)
		if (types[i] == t)
			return (uint8_t)i;
	fz_die(ME, "seed: an attribute type not in the table");
}

static uint8_t ulong_index(CK_ULONG v)
{
	size_t i;

	for (i = 0; i < N(ulongs); i++)
		if (ulongs[i] == v)
			return (uint8_t)i;
	fz_die(ME, "seed: a value not in the table");
}

static void a_ulong(CK_ATTRIBUTE_TYPE t, CK_ULONG v)
{
	put8(type_index(t));
	put8(2);
	put8(ulong_index(v));
}

static void a_bool(CK_ATTRIBUTE_TYPE t, uint8_t v)
{
	put8(type_index(t));
	put8(3);
	put8(v);
}

static void a_bytes(CK_ATTRIBUTE_TYPE t, const char *s)
{
	put8(type_index(t));
	put8(5);
	put_bytes(s);
}

static void a_curve(bool p384)
{
	put8(type_index(CKA_EC_PARAMS));
	put8(4);
	put8(p384);
}

/* a mechanism without a parameter (shape 0), or with its structure (shape 3) */
static void mech(CK_MECHANISM_TYPE m, bool with_param)
{
	put8(with_param ? 3 : 0);
	put8(mech_index(m));
}

static void seed_write(const char *d, const char *name)
{
	char path[1024];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(seed, 1, seed_n, fp) != seed_n)
		fz_die(ME, "cannot write a seed");
	fclose(fp);
	seed_n = 0;
}

enum { OP_CREATE, OP_KEYGEN, OP_FIND, OP_ATTRS, OP_SIGN, OP_VERIFY, OP_CRYPT, OP_DERIVE,
       OP_DIGEST, OP_DESTROY, OP_ROWS, OP_LOGIN, OP_MISC, OP_KEM };

/* sign with mech and key (its message), then verify the signature with pub */
static void sign_verify(CK_MECHANISM_TYPE m, bool param, uint8_t key, uint8_t pub,
			const char *msg)
{
	put8(OP_SIGN);
	mech(m, param);
	put8(key);
	put8(0);		  /* C_Sign */
	put_bytes(msg);
	put8(0);		  /* the length query first */
	put8(OP_VERIFY);
	mech(m, param);
	put8(pub);
	put8(1);		  /* C_Verify */
	put_bytes(msg);
	put8(1);		  /* the last signature */
}

static void write_seeds(const char *d)
{
	static const uint8_t digest32[32] = { 1, 2, 3 };

	token_fresh();
	mkdir(d, 0755);

	put8(OP_CREATE);
	put8(4);
	a_ulong(CKA_CLASS, CKO_DATA);
	a_bool(CKA_TOKEN, 1);
	a_bytes(CKA_LABEL, "seed data");
	a_bytes(CKA_VALUE, "some value");
	put8(OP_FIND);
	put8(1);
	a_bytes(CKA_LABEL, "seed data");
	put8(0);
	put8(4);
	put8(0);
	put8(OP_ATTRS);
	put8(NBASE); /* the first object found */
	put8(2);
	put8(type_index(CKA_VALUE));
	put8(1);
	put8(100);
	put8(type_index(CKA_LABEL));
	put8(0);
	put8(0);
	seed_write(d, "data-object");

	put8(OP_CREATE);
	put8(5);
	a_ulong(CKA_CLASS, CKO_CERTIFICATE);
	a_ulong(CKA_CERTIFICATE_TYPE, CKC_X_509);
	a_bytes(CKA_SUBJECT, "0\x0e" "1\x0c" "0\x0a" "\x06\x03U\x04\x03\x0c\x03" "abc");
	a_bytes(CKA_VALUE, "0\x03\x02\x01\x01");
	a_bool(CKA_TOKEN, 1);
	seed_write(d, "certificate");

	put8(OP_KEYGEN);
	put8(0);	/* a pair */
	mech(CKM_EC_KEY_PAIR_GEN, false);
	put8(2);
	a_curve(true);
	a_bool(CKA_TOKEN, 0);
	put8(1);
	a_bool(CKA_SIGN, 1);
	sign_verify(CKM_ECDSA_SHA384, false, NBASE + 1, NBASE, "a message");
	seed_write(d, "keygen-ec-sign");

	put8(OP_KEYGEN);
	put8(0);
	mech(CKM_ML_DSA_KEY_PAIR_GEN, false);
	put8(1);
	a_ulong(CKA_PARAMETER_SET, CKP_ML_DSA_65);
	put8(0);
	put8(OP_SIGN);
	mech(CKM_ML_DSA, true);
	put8(0);	/* CKH_HEDGE_PREFERRED */
	put8(0x20);	/* a context */
	put_bytes("context");
	put8(NBASE + 1);
	put8(1);	/* C_SignUpdate, C_SignFinal */
	put8(2);
	put_bytes("part one");
	put_bytes("part two");
	put8(0x40);
	put8(0x8F);	/* a buffer of 4000 */
	put8(0xA0);
	seed_write(d, "keygen-mldsa-sign");

	sign_verify(CKM_SHA256_RSA_PKCS, false, RSA_PRIV, RSA_PUB, "an RSA message");
	put8(OP_SIGN);
	mech(CKM_SHA256_RSA_PKCS_PSS, true);
	put8(1);	/* SHA-256 */
	put8(1);	/* MGF1-SHA256 */
	put8(0);
	put8(32);
	put8(RSA_PRIV);
	put8(0);
	put_bytes("PSS");
	put8(0);
	seed_write(d, "rsa-sign");

	put8(OP_SIGN);	/* ECDSA of a digest, verified */
	mech(CKM_ECDSA, false);
	put8(EC_PRIV);
	put8(0);
	put8(32);
	put(digest32, 32);
	put8(0);
	put8(OP_VERIFY);
	mech(CKM_ECDSA, false);
	put8(EC_PUB);
	put8(1);
	put8(32);
	put(digest32, 32);
	put8(1);
	sign_verify(CKM_ML_DSA, false, MLDSA_PRIV, MLDSA_PUB, "pure ML-DSA");
	seed_write(d, "ecdsa-mldsa-sign");

	/* HashML-DSA: of a message the TPM hashes, and of a SHA-256 digest its parameter names */
	sign_verify(CKM_HASH_ML_DSA_SHA384, false, MLDSA_PRIV, MLDSA_PUB, "HashML-DSA");
	put8(OP_SIGN);
	mech(CKM_HASH_ML_DSA, true);
	put8(0);	/* CKH_HEDGE_PREFERRED */
	put8(0);	/* no context */
	put8(1);	/* CKM_SHA256 */
	put8(MLDSA_PRIV);
	put8(0);	/* C_Sign */
	put8(32);
	put(digest32, 32);
	put8(0);	/* the length query first */
	put8(OP_VERIFY);
	mech(CKM_HASH_ML_DSA, true);
	put8(0);
	put8(0);
	put8(1);
	put8(MLDSA_PUB);
	put8(1);	/* C_Verify */
	put8(32);
	put(digest32, 32);
	put8(1);	/* the last signature */
	seed_write(d, "hash-mldsa-sign");

	put8(OP_CRYPT);
	put8(1);	/* encrypt */
	mech(CKM_RSA_PKCS_OAEP, true);
	put8(1);
	put8(1);
	put8(1);	/* CKZ_DATA_SPECIFIED */
	put8(0x10);
	put(((const uint8_t[]){ 6, 'l', 'a', 'b', 'e', 'l', 0 }), 7);
	put8(RSA_PUB);
	put_bytes("a secret");
	put8(0);	/* one part */
	put8(0);	/* the length query first */
	put8(OP_CRYPT);
	put8(0);	/* decrypt */
	mech(CKM_RSA_PKCS_OAEP, true);
	put8(1);
	put8(1);
	put8(1);
	put8(0x10);
	put(((const uint8_t[]){ 6, 'l', 'a', 'b', 'e', 'l', 0 }), 7);
	put8(RSA_PRIV);
	put8(1);	/* the last ciphertext */
	put8(0);
	put8(0);
	seed_write(d, "rsa-oaep");

	put8(OP_CRYPT);	/* AES-CBC in one part, then decrypted in two */
	put8(1);
	mech(CKM_AES_CBC, true);
	put(digest32, 16);	/* the IV */
	put8(AES_KEY);
	put8(32);
	put(digest32, 32);
	put8(0);
	put8(0);
	put8(OP_CRYPT);
	put8(0);
	mech(CKM_AES_CBC, true);
	put(digest32, 16);
	put8(AES_KEY);
	put8(1);	/* the last ciphertext */
	put8(1);	/* in parts: it, then one of 0 bytes */
	put8(1);
	put8(0);
	put8(0);
	put8(0);
	put8(0);	/* the final call */
	seed_write(d, "aes-cbc");

	put8(OP_CRYPT);	/* AES-CTR of 20 bytes, AES-CBC-PAD of 17 and back */
	put8(1);
	mech(CKM_AES_CTR, true);
	put8(128);	/* counter bits */
	put(digest32, 16);
	put8(AES_KEY);
	put8(20);
	put(digest32, 20);
	put8(0);
	put8(0);
	put8(OP_CRYPT);
	put8(1);
	mech(CKM_AES_CBC_PAD, true);
	put(digest32, 16);
	put8(AES_KEY);
	put8(17);
	put(digest32, 17);
	put8(0);
	put8(0);
	put8(OP_CRYPT);
	put8(0);
	mech(CKM_AES_CBC_PAD, true);
	put(digest32, 16);
	put8(AES_KEY);
	put8(1);
	put8(0);
	put8(0);
	seed_write(d, "aes-ctr-pad");

	put8(OP_KEYGEN);	/* C_GenerateKey of AES-128, then ECB with it */
	put8(1);
	mech(CKM_AES_KEY_GEN, false);
	put8(3);
	a_ulong(CKA_CLASS, CKO_SECRET_KEY);
	a_ulong(CKA_KEY_TYPE, CKK_AES);
	a_ulong(CKA_VALUE_LEN, 16);
	put8(OP_CRYPT);
	put8(1);
	mech(CKM_AES_ECB, false);
	put8(NBASE);
	put8(16);
	put(digest32, 16);
	put8(0);
	put8(0);
	seed_write(d, "generate-key");

	sign_verify(CKM_SHA256_HMAC, false, HMAC_KEY, HMAC_KEY, "mac me");
	put8(OP_SIGN);
	mech(CKM_SHA512_HMAC_GENERAL, true);
	put8(0);
	put8(20);	/* a MAC of 20 bytes */
	put8(HMAC_KEY);
	put8(0);
	put_bytes("mac me too");
	put8(0);
	seed_write(d, "hmac");

	put8(OP_KEM);	/* ML-KEM-768: encapsulate to the base key, decapsulate */
	put8(1);
	mech(CKM_ML_KEM, false);
	put8(KEM_PUB);
	put8(2);
	a_ulong(CKA_CLASS, CKO_SECRET_KEY);
	a_ulong(CKA_KEY_TYPE, CKK_GENERIC_SECRET);
	put8(0);
	put8(OP_KEM);
	put8(0);
	mech(CKM_ML_KEM, false);
	put8(KEM_PRIV);
	put8(2);
	a_ulong(CKA_CLASS, CKO_SECRET_KEY);
	a_ulong(CKA_KEY_TYPE, CKK_GENERIC_SECRET);
	put8(1);	/* the last ciphertext */
	seed_write(d, "ml-kem");

	put8(OP_DERIVE);	/* ECDH with the SHA-256 KDF and shared data */
	mech(CKM_ECDH1_DERIVE, true);
	put8(6);	/* CKD_SHA256_KDF */
	put8(0x10);
	put_bytes("shared");
	put8(1);
	put8(EC_PRIV);
	put8(4);
	a_ulong(CKA_CLASS, CKO_SECRET_KEY);
	a_ulong(CKA_VALUE_LEN, 32);
	a_bool(CKA_SENSITIVE, 0);
	a_bool(CKA_EXTRACTABLE, 1);
	seed_write(d, "ecdh-kdf");

	put8(OP_DERIVE);
	mech(CKM_ECDH1_DERIVE, true);
	put8(1);	/* CKD_NULL */
	put8(0);	/* no shared data */
	put8(1);	/* the base key's point */
	put8(EC_PRIV);
	put8(3);
	a_ulong(CKA_CLASS, CKO_SECRET_KEY);
	a_bool(CKA_SENSITIVE, 0);
	a_bool(CKA_EXTRACTABLE, 1);
	put8(OP_ATTRS);
	put8(NBASE);
	put8(1);
	put8(type_index(CKA_VALUE));
	put8(1);
	put8(32);
	seed_write(d, "ecdh-derive");

	put8(OP_DIGEST);
	mech(CKM_SHA256, false);
	put8(1);
	put_bytes("abc");
	put8(0);
	put8(OP_DIGEST);
	mech(CKM_SHA512, false);
	put8(0);
	put8(2);
	put_bytes("a");
	put_bytes("bc");
	put8(0x40);
	put8(64);
	seed_write(d, "digest");

	put8(OP_ROWS);
	put8(1);	/* a copy of a base row: the EC private key's (the fourth row made) */
	put8(3);
	put8(0);
	put8(1);	/* one edit */
	put8(type_index(CKA_LABEL));
	put8(1);
	put8(5);
	put_bytes("copy");
	put8(OP_FIND);	/* the copy, after the token's objects op_rows found */
	put8(1);
	a_bytes(CKA_LABEL, "copy");
	put8(0);
	put8(4);
	put8(0);
	put8(OP_SIGN);
	mech(CKM_ECDSA_SHA256, false);
	put8(NBASE + NBASE + 1);
	put8(0);
	put_bytes("signed by a copied row");
	put8(0);
	seed_write(d, "rows-copy");

	put8(OP_ROWS);
	put8(0);	/* a new row */
	put8(0);	/* this token */
	put8(0);	/* no TPM blobs */
	put8(0);
	put8(3);
	put8(type_index(CKA_CLASS));
	put8(1);
	put8(2);
	put8(ulong_index(CKO_DATA));
	put8(type_index(CKA_LABEL));
	put8(1);
	put8(5);
	put_bytes("row");
	put8(type_index(CKA_TOKEN));
	put8(1);
	put8(3);
	put8(1);
	seed_write(d, "rows-new");

	put8(OP_LOGIN);
	put8(1);
	put8(OP_FIND);
	put8(0);
	put8(0);
	put8(8);
	put8(0);
	put8(OP_LOGIN);
	put8(0);
	put8(OP_DESTROY);
	put8(0);
	put8(OP_MISC);
	put8(3);
	put8(64);
	put8(OP_MISC);
	put8(0);
	put8(RSA_PRIV);
	seed_write(d, "login-misc");
	token_gone();
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *r = getenv("PQTPM_FUZZ_RESET"), *seeds = getenv("PQTPM_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	if (r && atol(r) > 0)
		reset_every = (unsigned long)atol(r);
	debug = getenv("PQTPM_FUZZ_DEBUG") != NULL;
	/* libFuzzer's exit leaves no token directory behind */
	atexit(token_gone);
	if (seeds) {
		fz_input_start();
		write_seeds(seeds);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	int n = 0;

	fz_input_start();
	if (!f || inputs++ % reset_every == 0)
		token_fresh();
	npool = 0;
	last_sig_len = last_ct_len = last_kem_len = 0;
	MUST(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &sess));
	login(sess);
	while (in.n && n++ < MAX_OPS) {
		ops[g8(&in) % N(ops)](&in);
		afree();
	}
	cleanup();
	return 0;
}
