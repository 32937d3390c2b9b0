/* An ML-DSA client of the PKCS#11 module for tests/integration/pkcs11_mldsa_noble.sh:
 *
 *   p11_mldsa_sign MODULE SET PIN MSG CTX [HASH]
 *
 * loads MODULE (dlopen, C_GetFunctionList), logs in as the user on the first initialized token,
 * generates an ML-DSA key pair of parameter set SET (1, 2, 3: ML-DSA-44/65/87) in the TPM, signs
 * MSG with CKM_ML_DSA (or, HASH sha256, sha384 or sha512, HashML-DSA: CKM_HASH_ML_DSA_SHA256 ...)
 * in one part and in two (C_SignUpdate / C_SignFinal), with the context CTX (hex, "-" for none:
 * then the mechanism has no parameter), and prints one line in hex:
 *   PK MSG SIG SIG_MULTIPART
 * Any PKCS#11 error is printed to stderr with the function's name; the exit status is 1. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk3.h"

#define MAX_BYTES 8192

static int failed(const char *what, CK_RV rv)
{
	fprintf(stderr, "p11_mldsa_sign: %s: rv 0x%lx\n", what, (unsigned long)rv);
	return 1;
}

#define CALL(fn, ...)                                      \
	do {                                               \
		CK_RV rv_ = f->fn(__VA_ARGS__);            \
		if (rv_ != CKR_OK)                         \
			return failed(#fn, rv_);           \
	} while (0)

/* Hex (or "-" for empty) into buf; -1 on a bad digit, an odd length or too many bytes. */
static long from_hex(const char *s, unsigned char *buf, size_t cap)
{
	size_t n = strlen(s), i;

	if (strcmp(s, "-") == 0)
		return 0;
	if (n % 2 != 0 || n / 2 > cap || strspn(s, "0123456789abcdefABCDEF") != n)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		buf[i] = (unsigned char)b;
	}
	return (long)(n / 2);
}

static void put_hex(const unsigned char *b, size_t n, const char *end)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", b[i]);
	if (n == 0)
		putchar('-');
	fputs(end, stdout);
}

/* The first slot whose token is initialized. */
static int token_slot(CK_FUNCTION_LIST *f, CK_SLOT_ID *slot)
{
	CK_SLOT_ID slots[64];
	CK_ULONG n = 64, i;

	CALL(C_GetSlotList, CK_TRUE, slots, &n);
	for (i = 0; i < n; i++) {
		CK_TOKEN_INFO ti;

		CALL(C_GetTokenInfo, slots[i], &ti);
		if (ti.flags & CKF_TOKEN_INITIALIZED) {
			*slot = slots[i];
			return 0;
		}
	}
	fprintf(stderr, "p11_mldsa_sign: no initialized token\n");
	return 1;
}

/* The mechanism of HASH (NULL: pure ML-DSA); 0 for a name not known. */
static CK_MECHANISM_TYPE mechanism(const char *hash)
{
	if (!hash)
		return CKM_ML_DSA;
	if (!strcmp(hash, "sha256"))
		return CKM_HASH_ML_DSA_SHA256;
	if (!strcmp(hash, "sha384"))
		return CKM_HASH_ML_DSA_SHA384;
	if (!strcmp(hash, "sha512"))
		return CKM_HASH_ML_DSA_SHA512;
	return 0;
}

static int sign_all(CK_FUNCTION_LIST *f, CK_MECHANISM_TYPE mech, CK_ULONG set, const char *pin,
		    const unsigned char *msg, CK_ULONG mlen, unsigned char *ctx, CK_ULONG clen)
{
	static unsigned char pk[MAX_BYTES], sig[MAX_BYTES], sig2[MAX_BYTES];
	CK_SIGN_ADDITIONAL_CONTEXT param = { CKH_HEDGE_PREFERRED, ctx, clen };
	CK_MECHANISM gen = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM m = { mech, NULL, 0 };
	CK_BBOOL yes = CK_TRUE;
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE value = { CKA_VALUE, pk, sizeof(pk) };
	CK_ULONG n = sizeof(sig), n2 = sizeof(sig2), half = mlen / 2;
	CK_OBJECT_HANDLE pub, priv;
	CK_SESSION_HANDLE s;
	CK_SLOT_ID slot;

	if (clen > 0) {
		m.pParameter = &param;
		m.ulParameterLen = sizeof(param);
	}
	if (token_slot(f, &slot) != 0)
		return 1;
	CALL(C_OpenSession, slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s);
	CALL(C_Login, s, CKU_USER, (CK_UTF8CHAR *)pin, strlen(pin));
	CALL(C_GenerateKeyPair, s, &gen, pt, 1, kt, 1, &pub, &priv);
	CALL(C_GetAttributeValue, s, pub, &value, 1);
	CALL(C_SignInit, s, &m, priv);
	CALL(C_Sign, s, (CK_BYTE *)msg, mlen, sig, &n);
	CALL(C_SignInit, s, &m, priv);
	CALL(C_SignUpdate, s, (CK_BYTE *)msg, half);
	CALL(C_SignUpdate, s, (CK_BYTE *)msg + half, mlen - half);
	CALL(C_SignFinal, s, sig2, &n2);
	CALL(C_CloseSession, s);
	put_hex(pk, value.ulValueLen, " ");
	put_hex(msg, mlen, " ");
	put_hex(sig, n, " ");
	put_hex(sig2, n2, "\n");
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char msg[MAX_BYTES], ctx[255];
	CK_RV (*get_list)(CK_FUNCTION_LIST **);
	CK_FUNCTION_LIST *f;
	long mlen, clen;
	CK_RV rv;
	void *lib;
	int rc;

	if (argc < 6 || argc > 7 || strlen(argv[2]) != 1 || argv[2][0] < '1' ||
	    argv[2][0] > '3' || !mechanism(argc == 7 ? argv[6] : NULL)) {
		fprintf(stderr, "usage: p11_mldsa_sign MODULE SET(1-3) PIN MSG_HEX CTX_HEX|- "
				"[sha256|sha384|sha512]\n");
		return 2;
	}
	mlen = from_hex(argv[4], msg, sizeof(msg));
	clen = from_hex(argv[5], ctx, sizeof(ctx));
	if (mlen < 0 || clen < 0) {
		fprintf(stderr, "p11_mldsa_sign: bad hex (or too long) message or context\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "p11_mldsa_sign: %s\n", dlerror());
		return 1;
	}
	*(void **)&get_list = dlsym(lib, "C_GetFunctionList");
	if (!get_list || get_list(&f) != CKR_OK) {
		fprintf(stderr, "p11_mldsa_sign: no C_GetFunctionList\n");
		dlclose(lib);
		return 1;
	}
	rv = f->C_Initialize(NULL);
	if (rv != CKR_OK) {
		dlclose(lib);
		return failed("C_Initialize", rv);
	}
	rc = sign_all(f, mechanism(argc == 7 ? argv[6] : NULL), (CK_ULONG)(argv[2][0] - '0'),
		      argv[3], msg, (CK_ULONG)mlen, ctx, (CK_ULONG)clen);
	f->C_Finalize(NULL);
	dlclose(lib);
	return rc;
}
