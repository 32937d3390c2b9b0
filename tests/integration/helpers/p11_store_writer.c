/* Token objects written and checked, for tests/integration/pkcs11_store_crash.sh:
 *
 *   p11_store_writer MODULE PIN write TAG MAX
 *   p11_store_writer MODULE PIN check < ACKS
 *
 * loads MODULE (dlopen, C_GetFunctionList) and logs in as the user on the first initialized
 * token. `write` makes up to MAX token objects labelled TAG-0, TAG-1 ..., one for each byte it
 * reads from stdin (so that the test paces it and knows when it is creating one): every third
 * a P-256 key pair (C_GenerateKeyPair), the others data objects (C_CreateObject); it prints
 * `data LABEL` or `keys LABEL` (stdout flushed) the moment the call returned CKR_OK, so that
 * what was acknowledged before a kill is known. It ends at MAX or at the end of stdin.
 * `check` reads such lines and finds each object by its label: one data object, or a private
 * and a public key that sign and verify (the TPM's blobs of the key are whole); it prints
 * `missing LABEL` for each one not found whole and `checked N` at the end. Exit status 0 when
 * all are there, 1 otherwise. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pk3.h"

static CK_FUNCTION_LIST *f;
static CK_SESSION_HANDLE s;
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

static int failed(const char *what, CK_RV rv)
{
	fprintf(stderr, "p11_store_writer: %s: rv 0x%lx\n", what, (unsigned long)rv);
	return 1;
}

#define CALL(fn, ...)                                      \
	do {                                               \
		CK_RV rv_ = f->fn(__VA_ARGS__);            \
		if (rv_ != CKR_OK)                         \
			return failed(#fn, rv_);           \
	} while (0)

/* A R/W session of the user on the first initialized token. */
static int open_token(const char *pin)
{
	CK_SLOT_ID slots[64];
	CK_ULONG n = 64, i;
	CK_TOKEN_INFO ti;

	CALL(C_GetSlotList, CK_TRUE, slots, &n);
	for (i = 0; i < n; i++) {
		CALL(C_GetTokenInfo, slots[i], &ti);
		if (ti.flags & CKF_TOKEN_INITIALIZED)
			break;
	}
	if (i == n) {
		fprintf(stderr, "p11_store_writer: no initialized token\n");
		return 1;
	}
	CALL(C_OpenSession, slots[i], CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s);
	CALL(C_Login, s, CKU_USER, (CK_UTF8CHAR *)pin, strlen(pin));
	return 0;
}

static int write_objects(const char *tag, long max)
{
	static const CK_BYTE p256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48,
					0xCE, 0x3D, 0x03, 0x01, 0x07 };
	CK_OBJECT_CLASS data = CKO_DATA;
	CK_MECHANISM gen = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	char label[64], value[128];
	CK_ATTRIBUTE dt[] = {
		{ CKA_CLASS, &data, sizeof(data) }, { CKA_TOKEN, &yes, sizeof(yes) },
		{ CKA_PRIVATE, &no, sizeof(no) },   { CKA_LABEL, label, 0 },
		{ CKA_VALUE, value, 0 },
	};
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)p256, sizeof(p256) },
			      { CKA_TOKEN, &yes, sizeof(yes) },
			      { CKA_LABEL, label, 0 } };
	CK_ATTRIBUTE kt[] = { { CKA_TOKEN, &yes, sizeof(yes) }, { CKA_LABEL, label, 0 } };
	CK_OBJECT_HANDLE h, pub, priv;
	long i;

	for (i = 0; i < max && getchar() != EOF; i++) {
		CK_ULONG n = (CK_ULONG)snprintf(label, sizeof(label), "%s-%ld", tag, i);

		if (i % 3 == 2) {
			pt[2].ulValueLen = kt[1].ulValueLen = n;
			CALL(C_GenerateKeyPair, s, &gen, pt, 3, kt, 2, &pub, &priv);
			printf("keys %s\n", label);
		} else {
			dt[3].ulValueLen = n;
			dt[4].ulValueLen =
				(CK_ULONG)snprintf(value, sizeof(value), "the value of %s", label);
			CALL(C_CreateObject, s, dt, 5, &h);
			printf("data %s\n", label);
		}
		fflush(stdout);
	}
	return 0;
}

/* The objects of class cls labelled label: their number, the first in *h. */
static CK_ULONG find(const char *label, CK_OBJECT_CLASS cls, CK_OBJECT_HANDLE *h)
{
	CK_ATTRIBUTE t[] = { { CKA_LABEL, (void *)label, strlen(label) },
			     { CKA_CLASS, &cls, sizeof(cls) } };
	CK_OBJECT_HANDLE found[4];
	CK_ULONG n = 0;

	if (f->C_FindObjectsInit(s, t, 2) != CKR_OK)
		return 0;
	if (f->C_FindObjects(s, found, 4, &n) != CKR_OK)
		n = 0;
	f->C_FindObjectsFinal(s);
	if (n)
		*h = found[0];
	return n;
}

/* The key pair labelled label signs and verifies. */
static int key_works(const char *label)
{
	CK_MECHANISM m = { CKM_ECDSA_SHA256, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv;
	CK_BYTE sig[128];
	CK_ULONG n = sizeof(sig);

	if (find(label, CKO_PRIVATE_KEY, &priv) != 1 || find(label, CKO_PUBLIC_KEY, &pub) != 1)
		return 0;
	return f->C_SignInit(s, &m, priv) == CKR_OK &&
	       f->C_Sign(s, (CK_BYTE *)label, strlen(label), sig, &n) == CKR_OK &&
	       f->C_VerifyInit(s, &m, pub) == CKR_OK &&
	       f->C_Verify(s, (CK_BYTE *)label, strlen(label), sig, n) == CKR_OK;
}

static int check_objects(void)
{
	char line[256], kind[8], label[200];
	CK_OBJECT_HANDLE h;
	long checked = 0, missing = 0;

	while (fgets(line, sizeof(line), stdin)) {
		int whole;

		if (sscanf(line, "%7s %199s", kind, label) != 2)
			continue;
		checked++;
		if (strcmp(kind, "keys") == 0)
			whole = key_works(label);
		else
			whole = find(label, CKO_DATA, &h) == 1;
		if (!whole) {
			printf("missing %s\n", label);
			missing++;
		}
	}
	printf("checked %ld\n", checked);
	return missing ? 1 : 0;
}

int main(int argc, char **argv)
{
	CK_RV (*get_list)(CK_FUNCTION_LIST **);
	void *lib;
	int rc;

	if (!(argc == 6 && strcmp(argv[3], "write") == 0) &&
	    !(argc == 4 && strcmp(argv[3], "check") == 0)) {
		fprintf(stderr, "usage: p11_store_writer MODULE PIN write TAG MAX\n"
				"       p11_store_writer MODULE PIN check < ACKS\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "p11_store_writer: %s\n", dlerror());
		return 1;
	}
	*(void **)&get_list = dlsym(lib, "C_GetFunctionList");
	if (!get_list || get_list(&f) != CKR_OK) {
		fprintf(stderr, "p11_store_writer: no C_GetFunctionList\n");
		dlclose(lib);
		return 1;
	}
	if (f->C_Initialize(NULL) != CKR_OK) {
		dlclose(lib);
		return 1;
	}
	rc = open_token(argv[2]);
	if (rc == 0)
		rc = argc == 6 ? write_objects(argv[4], strtol(argv[5], NULL, 10))
			       : check_objects();
	f->C_Finalize(NULL);
	dlclose(lib);
	return rc;
}
