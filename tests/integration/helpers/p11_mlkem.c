/* An ML-KEM client of the PKCS#11 module for tests/integration/pkcs11_mlkem_noble.sh, through
 * its "PKCS 11" 3.2 interface (dlopen, C_GetInterface), logged in as the user on the first
 * initialized token:
 *
 *   p11_mlkem MODULE PIN gen SET LABEL   an ML-KEM key pair of parameter set SET (1, 2, 3:
 *                                        ML-KEM-512/768/1024) in the TPM, token objects labelled
 *                                        LABEL; prints the public key's CKA_VALUE (ek)
 *   p11_mlkem MODULE PIN decaps LABEL CT C_DecapsulateKey of CT with that private key; prints
 *                                        the shared secret (a readable generic secret key's
 *                                        CKA_VALUE)
 *   p11_mlkem MODULE PIN encaps EK       EK as an ML-KEM public key object (C_CreateObject),
 *                                        C_EncapsulateKey to it; prints CT and the shared secret
 *
 * in hex, one line. Any PKCS#11 error is printed to stderr with the function's name; the exit
 * status is 1. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk3.h"

#define MAX_BYTES 2048

static CK_FUNCTION_LIST_3_2 *f;
static CK_SESSION_HANDLE s;
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

static int failed(const char *what, CK_RV rv)
{
	fprintf(stderr, "p11_mlkem: %s: rv 0x%lx\n", what, (unsigned long)rv);
	return 1;
}

#define CALL(fn, ...)                                      \
	do {                                               \
		CK_RV rv_ = f->fn(__VA_ARGS__);            \
		if (rv_ != CKR_OK)                         \
			return failed(#fn, rv_);           \
	} while (0)

/* Hex into buf; -1 on a bad digit, an odd length or too many bytes. */
static long from_hex(const char *h, unsigned char *buf, size_t cap)
{
	size_t n = strlen(h), i;

	if (n % 2 != 0 || n / 2 > cap || strspn(h, "0123456789abcdefABCDEF") != n)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(h + 2 * i, "%2x", &b) != 1)
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
	fputs(end, stdout);
}

/* A user session on the first initialized token. */
static int open_session(const char *pin)
{
	CK_SLOT_ID slots[64];
	CK_ULONG n = 64, i;

	CALL(C_GetSlotList, CK_TRUE, slots, &n);
	for (i = 0; i < n; i++) {
		CK_TOKEN_INFO ti;

		CALL(C_GetTokenInfo, slots[i], &ti);
		if (ti.flags & CKF_TOKEN_INITIALIZED) {
			CALL(C_OpenSession, slots[i], CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
			     NULL, &s);
			CALL(C_Login, s, CKU_USER, (CK_UTF8CHAR *)pin, strlen(pin));
			return 0;
		}
	}
	fprintf(stderr, "p11_mlkem: no initialized token\n");
	return 1;
}

/* The shared secret's key made readable, so that its value can be printed. */
#define READABLE_SECRET                                                                        \
	{ { CKA_SENSITIVE, &no, sizeof(no) }, { CKA_EXTRACTABLE, &yes, sizeof(yes) } }

static int print_value(CK_OBJECT_HANDLE k, const char *end)
{
	unsigned char v[64];
	CK_ATTRIBUTE a = { CKA_VALUE, v, sizeof(v) };

	CALL(C_GetAttributeValue, s, k, &a, 1);
	put_hex(v, a.ulValueLen, end);
	return 0;
}

static int gen(CK_ULONG set, const char *label)
{
	static unsigned char ek[MAX_BYTES];
	CK_MECHANISM m = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) },
			      { CKA_TOKEN, &yes, sizeof(yes) },
			      { CKA_LABEL, (void *)label, strlen(label) } };
	CK_ATTRIBUTE kt[] = { { CKA_TOKEN, &yes, sizeof(yes) },
			      { CKA_LABEL, (void *)label, strlen(label) } };
	CK_ATTRIBUTE value = { CKA_VALUE, ek, sizeof(ek) };
	CK_OBJECT_HANDLE pub, priv;

	CALL(C_GenerateKeyPair, s, &m, pt, 3, kt, 2, &pub, &priv);
	CALL(C_GetAttributeValue, s, pub, &value, 1);
	put_hex(ek, value.ulValueLen, "\n");
	return 0;
}

static int decaps(const char *label, const unsigned char *ct, CK_ULONG len)
{
	CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
	CK_ATTRIBUTE find[] = { { CKA_CLASS, &cls, sizeof(cls) },
				{ CKA_LABEL, (void *)label, strlen(label) } };
	CK_ATTRIBUTE t[] = READABLE_SECRET;
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 };
	CK_OBJECT_HANDLE priv, k;
	CK_ULONG n = 0;

	CALL(C_FindObjectsInit, s, find, 2);
	CALL(C_FindObjects, s, &priv, 1, &n);
	CALL(C_FindObjectsFinal, s);
	if (n != 1) {
		fprintf(stderr, "p11_mlkem: no private key labelled %s\n", label);
		return 1;
	}
	CALL(C_DecapsulateKey, s, &m, priv, t, 2, (CK_BYTE *)ct, len, &k);
	return print_value(k, "\n");
}

static int encaps(const unsigned char *ek, CK_ULONG len)
{
	static unsigned char ct[MAX_BYTES];
	CK_OBJECT_CLASS cls = CKO_PUBLIC_KEY;
	CK_KEY_TYPE type = CKK_ML_KEM;
	CK_ATTRIBUTE pt[] = { { CKA_CLASS, &cls, sizeof(cls) },
			      { CKA_KEY_TYPE, &type, sizeof(type) },
			      { CKA_VALUE, (void *)ek, len } };
	CK_ATTRIBUTE t[] = READABLE_SECRET;
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 };
	CK_OBJECT_HANDLE pub, k;
	CK_ULONG n = sizeof(ct);

	CALL(C_CreateObject, s, pt, 3, &pub);
	CALL(C_EncapsulateKey, s, &m, pub, t, 2, ct, &n, &k);
	put_hex(ct, n, " ");
	return print_value(k, "\n");
}

static int run(int argc, char **argv)
{
	static unsigned char buf[MAX_BYTES];
	long len = 0;

	if (open_session(argv[2]) != 0)
		return 1;
	if (!strcmp(argv[3], "gen") && argc == 6 && strlen(argv[4]) == 1 && argv[4][0] >= '1' &&
	    argv[4][0] <= '3')
		return gen((CK_ULONG)(argv[4][0] - '0'), argv[5]);
	if (!strcmp(argv[3], "decaps") && argc == 6 &&
	    (len = from_hex(argv[5], buf, sizeof(buf))) >= 0)
		return decaps(argv[4], buf, (CK_ULONG)len);
	if (!strcmp(argv[3], "encaps") && argc == 5 &&
	    (len = from_hex(argv[4], buf, sizeof(buf))) >= 0)
		return encaps(buf, (CK_ULONG)len);
	fprintf(stderr, "usage: p11_mlkem MODULE PIN gen SET LABEL | decaps LABEL CT_HEX | "
			"encaps EK_HEX\n");
	return 2;
}

int main(int argc, char **argv)
{
	CK_RV (*get_iface)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS);
	CK_VERSION v32 = { 3, 2 };
	CK_INTERFACE *iface;
	CK_RV rv;
	void *lib;
	int rc;

	if (argc < 5) {
		fprintf(stderr, "usage: p11_mlkem MODULE PIN gen SET LABEL | decaps LABEL CT_HEX | "
				"encaps EK_HEX\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "p11_mlkem: %s\n", dlerror());
		return 1;
	}
	*(void **)&get_iface = dlsym(lib, "C_GetInterface");
	if (!get_iface || get_iface((CK_UTF8CHAR *)"PKCS 11", &v32, &iface, 0) != CKR_OK) {
		fprintf(stderr, "p11_mlkem: no \"PKCS 11\" 3.2 interface\n");
		dlclose(lib);
		return 1;
	}
	f = iface->pFunctionList;
	rv = f->C_Initialize(NULL);
	if (rv != CKR_OK) {
		dlclose(lib);
		return failed("C_Initialize", rv);
	}
	rc = run(argc, argv);
	f->C_Finalize(NULL);
	dlclose(lib);
	return rc;
}
