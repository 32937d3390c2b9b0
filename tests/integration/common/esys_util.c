/* Checks, connection and ESAPI helpers of the integration programs (see esys_util.h). */
#include "esys_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

static int passed, failed;

int check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
	return ok;
}

int check_rc(TSS2_RC rc, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (rc == TSS2_RC_SUCCESS)
		return check(1, "%s", what);
	return check(0, "%s: rc 0x%x (%s)", what, rc, Tss2_RC_Decode(rc));
}

int check_fails(TSS2_RC rc, TSS2_RC want, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return check(rc == want, "%s: rc 0x%x (want 0x%x) %s", what, rc, want,
		     rc == TSS2_RC_SUCCESS ? "" : Tss2_RC_Decode(rc));
}

int finish(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 && passed > 0 ? 0 : 1;
}

const char *tcti_conf(int argc, char **argv)
{
	const char *conf = argc > 1 ? argv[1] : getenv("PQTPM_TCTI");

	return conf ? conf : "mssim:host=127.0.0.1,port=2321";
}

int esys_connect(const char *conf, const char *what, TSS2_TCTI_CONTEXT **tcti,
		 ESYS_CONTEXT **ctx)
{
	return check_rc(Tss2_TctiLdr_Initialize(conf, tcti), "Tss2_TctiLdr_Initialize%s", what) &&
	       check_rc(Esys_Initialize(ctx, *tcti, NULL), "Esys_Initialize%s", what);
}

void esys_disconnect(TSS2_TCTI_CONTEXT **tcti, ESYS_CONTEXT **ctx)
{
	Esys_Finalize(ctx);
	Tss2_TctiLdr_Finalize(tcti);
}

int esys_main(int argc, char **argv, const char *name, void (*run)(ESYS_CONTEXT *ctx))
{
	const char *conf = tcti_conf(argc, argv);
	TSS2_TCTI_CONTEXT *tcti = NULL;
	ESYS_CONTEXT *ctx = NULL;

	printf("%s: TCTI %s\n", name, conf);
	if (esys_connect(conf, "", &tcti, &ctx))
		run(ctx);
	esys_disconnect(&tcti, &ctx);
	return finish();
}

void flush(ESYS_CONTEXT *ctx, ESYS_TR *h)
{
	if (*h != ESYS_TR_NONE)
		Esys_FlushContext(ctx, *h);
	*h = ESYS_TR_NONE;
}

void set_auth(ESYS_CONTEXT *ctx, ESYS_TR h, const char *auth)
{
	TPM2B_AUTH a = { .size = (UINT16)strlen(auth) };

	memcpy(a.buffer, auth, a.size);
	if (Esys_TR_SetAuth(ctx, h, &a) != TSS2_RC_SUCCESS)
		check(0, "Esys_TR_SetAuth");
}

TSS2_RC create_primary(ESYS_CONTEXT *ctx, ESYS_TR hierarchy, const TPM2B_PUBLIC *tmpl,
		       const char *auth, ESYS_TR *key, TPM2B_PUBLIC **pub)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };
	TSS2_RC rc;

	sens.sensitive.userAuth.size = (UINT16)strlen(auth);
	memcpy(sens.sensitive.userAuth.buffer, auth, strlen(auth));
	rc = Esys_CreatePrimary(ctx, hierarchy, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
				&sens, tmpl, &outside, &pcrs, key, pub, NULL, NULL, NULL);
	if (rc == TSS2_RC_SUCCESS)
		set_auth(ctx, *key, auth);
	return rc;
}

int handle_count(ESYS_CONTEXT *ctx, UINT32 first, UINT32 *count)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMI_YES_NO more;
	TSS2_RC rc;

	rc = Esys_GetCapability(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_HANDLES,
				first, TPM2_MAX_CAP_HANDLES, &more, &cap);
	if (!check_rc(rc, "GetCapability(handles 0x%08x)", first))
		return 0;
	*count = 0;
	for (UINT32 i = 0; i < cap->data.handles.count; i++)
		*count += (cap->data.handles.handle[i] >> 24) == (first >> 24);
	Esys_Free(cap);
	return 1;
}

#define STORAGE_ATTRS                                                                      \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |     \
	 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED |               \
	 TPMA_OBJECT_DECRYPT)

const TPM2B_PUBLIC rsa_storage = {
	.publicArea = {
		.type = TPM2_ALG_RSA,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = STORAGE_ATTRS,
		.parameters.rsaDetail = {
			.symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
				       .mode.aes = TPM2_ALG_CFB },
			.scheme = { .scheme = TPM2_ALG_NULL },
			.keyBits = 2048,
			.exponent = 0,
		},
	},
};

const TPM2B_PUBLIC ecc_storage = {
	.publicArea = {
		.type = TPM2_ALG_ECC,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = STORAGE_ATTRS,
		.parameters.eccDetail = {
			.symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
				       .mode.aes = TPM2_ALG_CFB },
			.scheme = { .scheme = TPM2_ALG_NULL },
			.curveID = TPM2_ECC_NIST_P256,
			.kdf = { .scheme = TPM2_ALG_NULL },
		},
	},
};
