/* Sessions of our client library (include/pqtpm/tss.h) and of the stock tpm2-tss ESAPI on one
 * server, each working on the other's objects.
 *
 *   tss_esys_sessions [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 *
 * ESAPI makes an ECC P-256 storage primary with an authValue and makes it persistent (the two
 * clients are two connections: a transient object of one is not the other's). Each side then
 * starts an HMAC session salted with that key and bound to it, AES-128-CFB both ways:
 *   - our library creates a key with an authValue under it (inSensitive encrypted by us,
 *     outPrivate decrypted by us); ESAPI loads that key and uses its authValue to create a
 *     key under it;
 *   - ESAPI creates a key with an authValue under it; our library loads it and uses its
 *     authValue to create under it; a wrong authValue is refused (TPM_RC_BAD_AUTH, noDA).
 * Every command HMAC, response HMAC and parameter encryption is computed by one client and
 * checked by the TPM, and the other way round. Prints `N passed, M failed`.
 */
#include <stdio.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "common/esys_util.h"
#include "common/tss_peer.h"

#define PERSISTENT 0x81000123u

static const char *conf;

static ESYS_TR start_session(ESYS_CONTEXT *ctx, ESYS_TR key)
{
	const TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
				   .mode.aes = TPM2_ALG_CFB };
	ESYS_TR s = ESYS_TR_NONE;
	TSS2_RC rc = Esys_StartAuthSession(ctx, key, key, ESYS_TR_NONE, ESYS_TR_NONE,
					   ESYS_TR_NONE, NULL, TPM2_SE_HMAC, &sym,
					   TPM2_ALG_SHA256, &s);

	if (!check_rc(rc, "ESAPI: StartAuthSession salted with and bound to the key"))
		return ESYS_TR_NONE;
	rc = Esys_TRSess_SetAttributes(ctx, s,
				       TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT |
					       TPMA_SESSION_ENCRYPT,
				       0xff);
	check_rc(rc, "ESAPI: session attributes");
	return s;
}

static TPM2B_SENSITIVE_CREATE sensitive(const char *auth)
{
	TPM2B_SENSITIVE_CREATE in = { 0 };

	in.sensitive.userAuth.size = (UINT16)strlen(auth);
	memcpy(in.sensitive.userAuth.buffer, auth, strlen(auth));
	return in;
}

/* Our library's key, loaded and used by ESAPI. */
static void ours_to_esys(ESYS_CONTEXT *ctx, ESYS_TR parent, ESYS_TR s)
{
	uint8_t pub[PEER_MAX_PUBLIC];
	TPM2B_PRIVATE priv = { 0 };
	TPM2B_PUBLIC tpub = { 0 };
	size_t priv_len = 0, pub_len = 0, off = 0;
	TPM2B_SENSITIVE_CREATE in = sensitive("");
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };
	TPM2B_PRIVATE *opriv = NULL;
	TPM2B_PUBLIC *opub = NULL;
	ESYS_TR key = ESYS_TR_NONE;
	TSS2_RC rc;

	rc = peer_create(PERSISTENT, "esys-parent", "tss-child", priv.buffer, &priv_len, pub,
			 &pub_len);
	if (!check_rc(rc, "our library: Create under the persistent key (salted, bound, AES)"))
		return;
	priv.size = (UINT16)priv_len;
	rc = Tss2_MU_TPMT_PUBLIC_Unmarshal(pub, pub_len, &off, &tpub.publicArea);
	if (!check(rc == TSS2_RC_SUCCESS && off == pub_len, "ESAPI reads our outPublic"))
		return;
	rc = Esys_Load(ctx, parent, s, ESYS_TR_NONE, ESYS_TR_NONE, &priv, &tpub, &key);
	if (!check_rc(rc, "ESAPI: Load of our key (its outPrivate was decrypted by us)"))
		return;
	set_auth(ctx, key, "tss-child");
	rc = Esys_Create(ctx, key, s, ESYS_TR_NONE, ESYS_TR_NONE, &in, &ecc_storage, &outside,
			 &pcrs, &opriv, &opub, NULL, NULL, NULL);
	check_rc(rc, "ESAPI: Create under our key with the authValue we encrypted");
	Esys_Free(opriv);
	Esys_Free(opub);
	flush(ctx, &key);
}

/* ESAPI's key, loaded and used by our library. */
static void esys_to_ours(ESYS_CONTEXT *ctx, ESYS_TR parent, ESYS_TR s)
{
	TPM2B_SENSITIVE_CREATE in = sensitive("esys-child");
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };
	TPM2B_PRIVATE *priv = NULL;
	TPM2B_PUBLIC *pub = NULL;
	uint8_t pbuf[PEER_MAX_PUBLIC];
	size_t off = 0;
	TSS2_RC rc;

	rc = Esys_Create(ctx, parent, s, ESYS_TR_NONE, ESYS_TR_NONE, &in, &ecc_storage, &outside,
			 &pcrs, &priv, &pub, NULL, NULL, NULL);
	if (!check_rc(rc, "ESAPI: Create under the persistent key (salted, bound, AES)"))
		return;
	rc = Tss2_MU_TPMT_PUBLIC_Marshal(&pub->publicArea, pbuf, sizeof(pbuf), &off);
	if (check_rc(rc, "ESAPI's outPublic as bytes")) {
		rc = peer_load_use(PERSISTENT, "esys-parent", priv->buffer, priv->size, pbuf, off,
				   "esys-child");
		check_rc(rc, "our library: Load of ESAPI's key, Create under it with its "
			     "authValue");
		rc = peer_load_use(PERSISTENT, "esys-parent", priv->buffer, priv->size, pbuf, off,
				   "esys-chilD");
		check_fails(rc, TPM2_RC_BAD_AUTH | TPM2_RC_S | TPM2_RC_1,
			    "our library: a wrong authValue refused (TPM_RC_BAD_AUTH)");
	}
	Esys_Free(priv);
	Esys_Free(pub);
}

static void run(ESYS_CONTEXT *ctx)
{
	ESYS_TR primary = ESYS_TR_NONE, persistent = ESYS_TR_NONE, s;
	TSS2_RC rc;

	rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
	check(rc == TSS2_RC_SUCCESS || rc == TPM2_RC_INITIALIZE, "Startup(CLEAR): rc 0x%x", rc);
	rc = create_primary(ctx, ESYS_TR_RH_OWNER, &ecc_storage, "esys-parent", &primary, NULL);
	if (!check_rc(rc, "ESAPI: CreatePrimary (ECC P-256 storage key, authValue)"))
		return;
	rc = Esys_EvictControl(ctx, ESYS_TR_RH_OWNER, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			       ESYS_TR_NONE, PERSISTENT, &persistent);
	flush(ctx, &primary);
	if (!check_rc(rc, "ESAPI: EvictControl to 0x%08x", PERSISTENT))
		return;
	set_auth(ctx, persistent, "esys-parent");
	if (check(peer_open(conf) == 0, "our library: connected (%s)", conf)) {
		rc = peer_session_start(PERSISTENT, PERSISTENT, "esys-parent");
		if (check_rc(rc, "our library: StartAuthSession salted with, bound to the key")) {
			s = start_session(ctx, persistent);
			if (s != ESYS_TR_NONE) {
				ours_to_esys(ctx, persistent, s);
				esys_to_ours(ctx, persistent, s);
				flush(ctx, &s);
			}
			peer_session_end();
		}
		peer_close();
	}
	rc = Esys_EvictControl(ctx, ESYS_TR_RH_OWNER, persistent, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			       ESYS_TR_NONE, PERSISTENT, &primary);
	check_rc(rc, "ESAPI: EvictControl removes 0x%08x", PERSISTENT);
}

int main(int argc, char **argv)
{
	conf = tcti_conf(argc, argv);
	return esys_main(argc, argv, "tss_esys_sessions", run);
}
