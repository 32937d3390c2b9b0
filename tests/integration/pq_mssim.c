/*
 * Post-quantum TPM over MSSIM with the client library (include/pqtpm/tss.h), checked against
 * an independent implementation, @noble/post-quantum (tests/crosscheck/pq.mjs):
 *   - GetCapability lists ML-KEM, ML-DSA, HashML-DSA, the v1.85 commands and parameter sets
 *   - an ML-DSA-65 key signs a 5 KB message through a sign sequence; the TPM verifies it with a
 *     verify sequence (MESSAGE_VERIFIED ticket) and noble verifies it; a changed message fails
 *   - noble signs, the TPM verifies with the public key loaded alone
 *   - SignDigest with an external mu computed here; noble verifies the message
 *   - noble encapsulates to the TPM's ML-KEM-768 key, the TPM decapsulates the same secret;
 *     and the reverse: the TPM encapsulates to noble's key, noble decapsulates
 *   - MakeCredential / ActivateCredential with an ML-KEM EK
 *   - Quote (ML-DSA-44/65/87), Certify and GetTime: the TPMS_ATTEST and its pure ML-DSA
 *     signature checked here and by noble, pcrDigest recomputed from PCR_Read
 *   - ContextSave / ContextLoad of ML-DSA-87 and ML-KEM-1024 keys; an ML-KEM salted session
 *
 *   pq_mssim [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 * Prints one line per check and `N passed, M failed`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#include "crypto/crypto.h"
#include "crypto/mldsa.h"

static unsigned pass, fail;
static struct pqtpm_tss *t;
static char xdir[4096];

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	ok ? pass++ : fail++;
}

static char *hex(const uint8_t *b, size_t n)
{
	char *s = malloc(2 * n + 2);

	if (!s)
		exit(2);
	if (n == 0)
		strcpy(s, "-");
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", b[i]);
	return s;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	while (s[0] && s[1] && s[0] != ' ' && s[0] != '\n' && n < cap) {
		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/* Run `node pq.mjs ARGS` in tests/crosscheck; its one line of output into out. */
static int noble(char *out, size_t cap, const char *fmt, ...)
{
	static char cmd[65536];
	va_list ap;
	FILE *p;
	int n;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && node pq.mjs ", xdir);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	out[0] = '\0';
	if (!fgets(out, (int)cap, p))
		out[0] = '\0';
	return pclose(p) == 0 && out[0] ? 0 : -1;
}

/* tests/crosscheck from the working directory (the repository root under make) or from the
 * program's own place (BUILD/tests/pq_mssim with BUILD inside the repository). */
static int find_crosscheck(const char *argv0)
{
	char path[4096];
	const char *slash = strrchr(argv0, '/');

	if (access("tests/crosscheck/pq.mjs", R_OK) == 0 && realpath("tests/crosscheck", xdir))
		return 0;
	snprintf(path, sizeof(path), "%.*s/../../tests/crosscheck",
		 slash ? (int)(slash - argv0) : 1, slash ? argv0 : ".");
	return realpath(path, xdir) ? 0 : -1;
}

static int noble_ready(void)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && { [ -d node_modules/@noble/post-quantum ] || npm ci --no-audit "
		 "--no-fund >/dev/null 2>&1; } && node -e 'import(\"@noble/post-quantum/ml-kem.js\")'",
		 xdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct pqtpm_tss_key *key_of(TPM_ALG_ID type, uint16_t set, uint32_t attrs,
				    uint8_t ext_mu, TPM_HANDLE hierarchy)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | attrs,
		.parameter_set = set,
		.allow_external_mu = ext_mu,
	};
	struct pqtpm_tss_key *k = calloc(1, sizeof(*k));
	struct pqtpm_tss_public *pub = calloc(1, sizeof(*pub));
	TPM_RC rc;

	if (!k || !pub)
		exit(2);
	rc = pqtpm_tss_template_public(&tm, pub);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create_primary(t, hierarchy, "", pub, "pw", k);
	check(rc == TPM_RC_SUCCESS, "CreatePrimary type 0x%x set %u: rc 0x%x", type, set, rc);
	free(pub);
	if (rc != TPM_RC_SUCCESS) {
		free(k);
		return NULL;
	}
	return k;
}

static void capabilities(void)
{
	static const TPM_CC ccs[] = { TPM_CC_VerifySequenceComplete, TPM_CC_SignSequenceComplete,
				      TPM_CC_VerifyDigestSignature, TPM_CC_SignDigest,
				      TPM_CC_Encapsulate,	    TPM_CC_Decapsulate,
				      TPM_CC_VerifySequenceStart,   TPM_CC_SignSequenceStart };
	uint8_t data[2048], more;
	size_t len;
	uint32_t v = 0;
	TPM_RC rc;

	rc = pqtpm_tss_get_capability(t, TPM_CAP_ALGS, TPM_ALG_MLKEM, 3, &more, data, sizeof(data),
				      &len);
	/* cap u32, count u32, then (alg u16, attributes u32) x 3 */
	check(rc == 0 && len == 8 + 18 && data[7] == 3 && data[8] == 0 && data[9] == 0xA0 &&
		      data[15] == 0xA1 && data[21] == 0xA2,
	      "GetCapability(ALGS) lists ML-KEM, ML-DSA, HashML-DSA");
	for (size_t i = 0; i < sizeof(ccs) / sizeof(ccs[0]); i++) {
		rc = pqtpm_tss_get_capability(t, TPM_CAP_COMMANDS, ccs[i], 1, &more, data,
					      sizeof(data), &len);
		check(rc == 0 && len == 12 && data[7] == 1 &&
			      (uint32_t)(data[10] << 8 | data[11]) == (ccs[i] & 0xFFFF),
		      "GetCapability(COMMANDS) lists 0x%x", ccs[i]);
	}
	rc = pqtpm_tss_get_property(t, TPM_PT_ML_PARAMETER_SETS, &v);
	check(rc == 0 && v == 0x7F, "TPM_PT_ML_PARAMETER_SETS = 0x%x", v);
}

static void mldsa_sequence(void)
{
	static uint8_t msg[5000], out[16384];
	static struct pqtpm_tss_signature sig;
	static const uint8_t ctx[] = "pq_mssim";
	struct pqtpm_tss_ticket tk;
	struct pqtpm_tss_key *k = key_of(TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT, 0,
					 TPM_RH_OWNER);
	const uint8_t *pk, *s;
	size_t pklen, slen;
	TPM_ALG_ID alg, hash;
	uint16_t tag = 0;
	char *hpk, *hmsg, *hctx, *hsig;
	TPM_RC rc;

	if (!k)
		return;
	crypto_random(msg, sizeof(msg));
	rc = pqtpm_tss_sign_message(t, k->handle, "pw", ctx, sizeof(ctx) - 1, msg, sizeof(msg),
				    &sig);
	check(rc == 0, "ML-DSA-65 sign sequence over 5000 bytes: rc 0x%x", rc);
	if (rc)
		return;
	rc = pqtpm_tss_verify_message(t, k->handle, ctx, sizeof(ctx) - 1, msg, sizeof(msg), &sig,
				      &tk);
	if (rc == 0)
		pqtpm_tss_ticket_parse(&tk, &tag, NULL, NULL);
	check(rc == 0 && tag == TPM_ST_MESSAGE_VERIFIED,
	      "verify sequence in the TPM: rc 0x%x, ticket tag 0x%x", rc, tag);
	pqtpm_tss_public_key(&k->pub, &pk, &pklen);
	pqtpm_tss_signature_parse(&sig, &alg, &hash, &s, &slen);
	hpk = hex(pk, pklen), hmsg = hex(msg, sizeof(msg)), hctx = hex(ctx, sizeof(ctx) - 1);
	hsig = hex(s, slen);
	check(noble((char *)out, sizeof(out), "verify 2 %s %s %s %s", hpk, hmsg, hctx, hsig) == 0 &&
		      strncmp((char *)out, "ok", 2) == 0,
	      "noble verifies the TPM's ML-DSA-65 signature");
	hmsg[0] = hmsg[0] == '0' ? '1' : '0';
	check(noble((char *)out, sizeof(out), "verify 2 %s %s %s %s", hpk, hmsg, hctx, hsig) == 0 &&
		      strncmp((char *)out, "FAIL", 4) == 0,
	      "noble refuses it for a changed message");
	free(hpk), free(hmsg), free(hctx), free(hsig);
	pqtpm_tss_flush(t, k->handle);
	free(k);
}

static void noble_signs(void)
{
	static uint8_t line[65536], pkb[4000], sigb[5000];
	static struct pqtpm_tss_signature sig;
	static struct pqtpm_tss_key pub;
	static const uint8_t msg[] = "signed by noble";
	uint8_t xi[32];
	struct pqtpm_tss_ticket tk;
	char *hxi, *hmsg, *sp;
	size_t pklen, slen;
	TPM_RC rc;

	crypto_random(xi, sizeof(xi));
	hxi = hex(xi, 32), hmsg = hex(msg, sizeof(msg) - 1);
	if (noble((char *)line, sizeof(line), "sign 3 %s %s -", hxi, hmsg) != 0 ||
	    !(sp = strchr((char *)line, ' '))) {
		check(0, "noble signs with ML-DSA-87");
		return;
	}
	pklen = unhex((char *)line, pkb, sizeof(pkb));
	slen = unhex(sp + 1, sigb, sizeof(sigb));
	{
		struct pqtpm_tss_template tm = { .type = TPM_ALG_MLDSA,
						 .attributes = TPMA_OBJECT_SIGN_ENCRYPT |
							       TPMA_OBJECT_USERWITHAUTH,
						 .parameter_set = TPM_MLDSA_87 };
		struct pqtpm_tss_public *p = &pub.pub;

		pqtpm_tss_template_public(&tm, p);
		/* the template's unique is empty (its last two bytes): put noble's key there */
		p->size -= 2;
		p->b[p->size++] = (uint8_t)(pklen >> 8);
		p->b[p->size++] = (uint8_t)pklen;
		memcpy(p->b + p->size, pkb, pklen);
		p->size += (uint16_t)pklen;
		rc = pqtpm_tss_load_public(t, TPM_RH_OWNER, p, &pub);
	}
	check(rc == 0, "LoadExternal of noble's ML-DSA-87 public key: rc 0x%x", rc);
	pqtpm_tss_signature_make(TPM_ALG_MLDSA, TPM_ALG_NULL, sigb, slen, &sig);
	rc = pqtpm_tss_verify_message(t, pub.handle, NULL, 0, msg, sizeof(msg) - 1, &sig, &tk);
	check(rc == 0, "the TPM verifies noble's signature: rc 0x%x", rc);
	rc = pqtpm_tss_verify_message(t, pub.handle, NULL, 0, msg, sizeof(msg) - 2, &sig, &tk);
	check(rc == (TPM_RC_SIGNATURE | TPM_RC_P | TPM_RC_1), "and refuses it for another message");
	pqtpm_tss_flush(t, pub.handle);
	free(hxi), free(hmsg);
}

static void external_mu(void)
{
	static char out[1024];
	static struct pqtpm_tss_signature sig;
	uint8_t mp[2 + 3 + 11] = { 0, 3, 'c', 't', 'x', 'e', 'x', 't', 'e', 'r', 'n', 'a', 'l', ' ',
				   'm', 'u' }, mu[64];
	struct pqtpm_tss_key *k = key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT, 1,
					 TPM_RH_OWNER);
	const uint8_t *pk, *s;
	size_t pklen, slen;
	TPM_ALG_ID alg, hash;
	char *a, *b, *c;
	TPM_RC rc;

	if (!k)
		return;
	pqtpm_tss_public_key(&k->pub, &pk, &pklen);
	mldsa_compute_mu(TPM_MLDSA_44, pk, mp, sizeof(mp), mu);
	rc = pqtpm_tss_sign_digest(t, k->handle, "pw", NULL, 0, mu, sizeof(mu), &sig);
	check(rc == 0, "SignDigest with an external mu: rc 0x%x", rc);
	pqtpm_tss_signature_parse(&sig, &alg, &hash, &s, &slen);
	a = hex(pk, pklen), b = hex(mp + 5, sizeof(mp) - 5), c = hex(s, slen);
	check(noble(out, sizeof(out), "verify 1 %s %s 637478 %s", a, b, c) == 0 &&
		      strncmp(out, "ok", 2) == 0,
	      "noble verifies it as a signature of the message with context \"ctx\"");
	free(a), free(b), free(c);
	pqtpm_tss_flush(t, k->handle);
	free(k);
}

static void kem_both_ways(void)
{
	static char line[16384];
	static struct pqtpm_tss_ciphertext ct;
	static struct pqtpm_tss_key pub;
	struct pqtpm_tss_digest ss;
	struct pqtpm_tss_key *k = key_of(TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT, 0,
					 TPM_RH_OWNER);
	uint8_t want[32], seed[64];
	const uint8_t *ek;
	size_t eklen;
	char *h, *sp;
	TPM_RC rc;

	if (!k)
		return;
	/* noble encapsulates to the TPM's key */
	pqtpm_tss_public_key(&k->pub, &ek, &eklen);
	h = hex(ek, eklen);
	if (noble(line, sizeof(line), "encaps 2 %s", h) != 0 || !(sp = strchr(line, ' '))) {
		check(0, "noble encapsulates to the TPM's ML-KEM-768 key");
	} else {
		ct.size = (uint16_t)unhex(line, ct.b, sizeof(ct.b));
		unhex(sp + 1, want, sizeof(want));
		rc = pqtpm_tss_decapsulate(t, k->handle, "pw", &ct, &ss);
		check(rc == 0 && ss.size == 32 && memcmp(ss.b, want, 32) == 0,
		      "the TPM decapsulates noble's ciphertext to the same secret: rc 0x%x", rc);
	}
	free(h);
	/* and the reverse: the TPM encapsulates to noble's key */
	crypto_random(seed, sizeof(seed));
	h = hex(seed, sizeof(seed));
	if (noble(line, sizeof(line), "kem-keygen 2 %s", h) != 0) {
		check(0, "noble makes an ML-KEM-768 key");
	} else {
		struct pqtpm_tss_template tm = { .type = TPM_ALG_MLKEM,
						 .attributes = TPMA_OBJECT_DECRYPT |
							       TPMA_OBJECT_USERWITHAUTH,
						 .parameter_set = TPM_MLKEM_768 };
		struct pqtpm_tss_public *p = &pub.pub;
		uint8_t ekb[1184];
		size_t n = unhex(line, ekb, sizeof(ekb));
		char *hct;

		pqtpm_tss_template_public(&tm, p);
		p->size -= 2;
		p->b[p->size++] = (uint8_t)(n >> 8);
		p->b[p->size++] = (uint8_t)n;
		memcpy(p->b + p->size, ekb, n);
		p->size += (uint16_t)n;
		rc = pqtpm_tss_load_public(t, TPM_RH_OWNER, p, &pub);
		if (rc == 0)
			rc = pqtpm_tss_encapsulate(t, pub.handle, &ss, &ct);
		check(rc == 0, "the TPM encapsulates to noble's ML-KEM-768 key: rc 0x%x", rc);
		hct = hex(ct.b, ct.size);
		check(rc == 0 && noble(line, sizeof(line), "decaps 2 %s %s", h, hct) == 0 &&
			      unhex(line, want, 32) == 32 && memcmp(want, ss.b, 32) == 0,
		      "noble decapsulates the TPM's ciphertext to the same secret");
		free(hct);
		pqtpm_tss_flush(t, pub.handle);
	}
	free(h);
	pqtpm_tss_flush(t, k->handle);
	free(k);
}

static void credential(void)
{
	struct pqtpm_tss_key *ek = key_of(TPM_ALG_MLKEM, TPM_MLKEM_1024,
					  TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, 0,
					  TPM_RH_ENDORSEMENT);
	struct pqtpm_tss_key *ak = key_of(TPM_ALG_MLDSA, TPM_MLDSA_65,
					  TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT, 0,
					  TPM_RH_OWNER);
	struct pqtpm_tss_digest cred = { .size = 32 }, out;
	static struct pqtpm_tss_ciphertext secret;
	struct pqtpm_tss_id_object blob;
	TPM_RC rc;

	if (!ek || !ak)
		return;
	crypto_random(cred.b, 32);
	rc = pqtpm_tss_make_credential(t, ek->handle, &cred, &ak->name, &blob, &secret);
	if (rc == 0)
		rc = pqtpm_tss_activate_credential(t, ak->handle, "pw", ek->handle, "pw", &blob,
						   &secret, &out);
	check(rc == 0 && out.size == 32 && memcmp(out.b, cred.b, 32) == 0,
	      "MakeCredential / ActivateCredential with an ML-KEM-1024 EK: rc 0x%x", rc);
	pqtpm_tss_flush(t, ek->handle);
	pqtpm_tss_flush(t, ak->handle);
	free(ek);
	free(ak);
}

/* The largest contexts over MSSIM: an ML-DSA-87 key and an ML-KEM-1024 key saved, flushed and
 * loaded again still sign and decapsulate. */
static void contexts(void)
{
	static struct pqtpm_tss_saved saved;
	static struct pqtpm_tss_signature sig;
	static struct pqtpm_tss_ciphertext ct;
	static const uint8_t msg[] = "signed after ContextLoad";
	struct pqtpm_tss_key *k = key_of(TPM_ALG_MLDSA, TPM_MLDSA_87, TPMA_OBJECT_SIGN_ENCRYPT, 0,
					 TPM_RH_OWNER);
	struct pqtpm_tss_key *kem = key_of(TPM_ALG_MLKEM, TPM_MLKEM_1024, TPMA_OBJECT_DECRYPT, 0,
					   TPM_RH_OWNER);
	struct pqtpm_tss_digest ss, ss2;
	struct pqtpm_tss_ticket tk;
	TPM_RC rc;

	if (!k || !kem)
		exit(2);
	rc = pqtpm_tss_context_save(t, k->handle, &saved);
	if (rc == 0)
		rc = pqtpm_tss_flush(t, k->handle);
	if (rc == 0)
		rc = pqtpm_tss_context_load(t, &saved, &k->handle);
	check(rc == 0 && saved.size > 2592, "ML-DSA-87 key: ContextSave (%u bytes), ContextLoad: 0x%x",
	      saved.size, rc);
	if (rc == 0)
		rc = pqtpm_tss_sign_message(t, k->handle, "pw", NULL, 0, msg, sizeof(msg), &sig);
	if (rc == 0)
		rc = pqtpm_tss_verify_message(t, k->handle, NULL, 0, msg, sizeof(msg), &sig, &tk);
	check(rc == 0, "the loaded ML-DSA-87 key signs and verifies: rc 0x%x", rc);
	rc = pqtpm_tss_encapsulate(t, kem->handle, &ss, &ct);
	if (rc == 0)
		rc = pqtpm_tss_context_save(t, kem->handle, &saved);
	if (rc == 0)
		rc = pqtpm_tss_flush(t, kem->handle);
	if (rc == 0)
		rc = pqtpm_tss_context_load(t, &saved, &kem->handle);
	if (rc == 0)
		rc = pqtpm_tss_decapsulate(t, kem->handle, "pw", &ct, &ss2);
	check(rc == 0 && ss.size == 32 && ss2.size == 32 && memcmp(ss.b, ss2.b, 32) == 0,
	      "ML-KEM-1024 key: encapsulated before ContextSave, decapsulated after ContextLoad: "
	      "rc 0x%x", rc);
	pqtpm_tss_flush(t, k->handle);
	pqtpm_tss_flush(t, kem->handle);
	free(k);
	free(kem);
}

/* StartAuthSession salted by encapsulation to an ML-KEM-768 key, over MSSIM (the session's use
 * for HMAC authorizations is tests/unit/test_pq_tss.c's). */
static void kem_session(void)
{
	struct pqtpm_tss_key *kem = key_of(TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT, 0,
					   TPM_RH_OWNER);
	struct pqtpm_tss_digest nonce, skey;
	TPM_HANDLE session = 0;
	TPM_RC rc;

	if (!kem)
		exit(2);
	rc = pqtpm_tss_start_kem_session(t, kem->handle, &kem->pub, TPM_SE_HMAC, TPM_ALG_SHA256,
					 &session, &nonce, &skey);
	check(rc == 0 && session >> 24 == TPM_HT_HMAC_SESSION && skey.size == 32,
	      "StartAuthSession salted with ML-KEM-768: rc 0x%x", rc);
	if (rc == 0)
		pqtpm_tss_flush(t, session);
	pqtpm_tss_flush(t, kem->handle);
	free(kem);
}

/* A TPMS_ATTEST from an ML-DSA key of set: the header read back with the client library
 * (magic, type, the nonce as extraData), the signature (pure ML-DSA, empty context, over the
 * structure as marshalled) checked with the engine's ML-DSA and by noble, which also reads the
 * structure on its own; one changed byte, or another nonce, fails both. */
static void attest_checks(const struct pqtpm_tss_key *k, uint16_t set,
			  const struct pqtpm_tss_attest *a, const struct pqtpm_tss_signature *sig,
			  const uint8_t *nonce, size_t nlen, uint16_t type, const char *what)
{
	static struct pqtpm_tss_attest bad;
	struct pqtpm_tss_attest_info info;
	const uint8_t *pk, *s;
	size_t pklen, slen;
	TPM_ALG_ID alg, hash;
	char out[64], *hpk, *hatt, *hbad, *hsig, *hnonce;
	int good, noble_good, noble_bad, noble_nonce;
	TPM_RC rc;

	rc = pqtpm_tss_attest_parse(a, &info);
	check(rc == 0 && info.type == type && info.extra_size == nlen &&
		      memcmp(info.extra, nonce, nlen) == 0,
	      "%s: TPMS_ATTEST of type 0x%x with the nonce: rc 0x%x", what, info.type, rc);
	if (pqtpm_tss_public_key(&k->pub, &pk, &pklen) ||
	    pqtpm_tss_signature_parse(sig, &alg, &hash, &s, &slen)) {
		check(0, "%s: public key and signature parse", what);
		return;
	}
	bad = *a;
	bad.b[bad.size - 1] ^= 1;
	good = mldsa_verify(set, pk, a->b, a->size, NULL, 0, s, slen) == 0 &&
	       mldsa_verify(set, pk, bad.b, bad.size, NULL, 0, s, slen) != 0;
	check(alg == TPM_ALG_MLDSA && good,
	      "%s: ML-DSA signature (%zu bytes) verifies here, not over a changed byte", what,
	      slen);
	hpk = hex(pk, pklen);
	hatt = hex(a->b, a->size);
	hbad = hex(bad.b, bad.size);
	hsig = hex(s, slen);
	hnonce = hex(nonce, nlen);
	noble_good = noble(out, sizeof(out), "attest %u %s %s %s %s %04x", set, hpk, hatt, hsig,
			   hnonce, type) == 0 && strncmp(out, "ok", 2) == 0;
	noble_bad = noble(out, sizeof(out), "attest %u %s %s %s %s %04x", set, hpk, hbad, hsig,
			  hnonce, type) == 0 && strncmp(out, "FAIL", 4) == 0;
	hnonce[0] = hnonce[0] == '0' ? '1' : '0';
	noble_nonce = noble(out, sizeof(out), "attest %u %s %s %s %s %04x", set, hpk, hatt, hsig,
			    hnonce, type) == 0 && strncmp(out, "FAIL", 4) == 0;
	check(noble_good && noble_bad && noble_nonce,
	      "%s: noble verifies it, refuses a changed byte and another nonce", what);
	free(hpk);
	free(hatt);
	free(hbad);
	free(hsig);
	free(hnonce);
}

/* Quote with ML-DSA-44/65/87 AKs of the endorsement hierarchy: pcrDigest is SHA-256 (the
 * keys' nameAlg) over the PCR_Read values; the ML-DSA-87 quote fits the 8 KB response. Then
 * Certify (the key itself) and GetTime with the ML-DSA-65 key. */
static void quotes(void)
{
	static const uint16_t sets[] = { TPM_MLDSA_44, TPM_MLDSA_65, TPM_MLDSA_87 };
	static struct pqtpm_tss_attest q;
	static struct pqtpm_tss_signature sig;
	const struct pqtpm_tss_pcr_select sel = { TPM_ALG_SHA256, 0x0100FF }; /* 0-7, 16 */
	struct pqtpm_tss_pcr_select got[4];
	struct pqtpm_tss_attest_info info;
	struct pqtpm_tss_digest digest;
	uint8_t nonce[32], pcrs[9 * 32], want[32];
	size_t len = 0, nsel = 0;
	TPM_RC rc;

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct pqtpm_tss_key *k = key_of(TPM_ALG_MLDSA, sets[i],
						 TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_RESTRICTED,
						 0, TPM_RH_ENDORSEMENT);
		char what[32];

		if (!k)
			continue;
		snprintf(what, sizeof(what), "ML-DSA set %u quote", sets[i]);
		crypto_random(nonce, sizeof(nonce));
		rc = pqtpm_tss_quote(t, k->handle, "pw", nonce, sizeof(nonce), 0, 0, &sel, 1, &q,
				     &sig);
		check(rc == 0, "%s over MSSIM: rc 0x%x (TPMS_ATTEST %u bytes, signature %u)", what,
		      rc, q.size, sig.size);
		if (rc == 0) {
			attest_checks(k, sets[i], &q, &sig, nonce, sizeof(nonce),
				      TPM_ST_ATTEST_QUOTE, what);
			rc = pqtpm_tss_attest_parse(&q, &info);
			if (rc == 0)
				rc = pqtpm_tss_quote_info(&info, got, 4, &nsel, &digest);
			if (rc == 0)
				rc = pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, sel.pcrs, pcrs,
							sizeof(pcrs), &len);
			if (rc == 0)
				rc = crypto_hash(TPM_ALG_SHA256, pcrs, len, want);
			check(rc == 0 && nsel == 1 && got[0].hash == TPM_ALG_SHA256 &&
				      got[0].pcrs == sel.pcrs && len == sizeof(pcrs) &&
				      digest.size == 32 && memcmp(digest.b, want, 32) == 0,
			      "%s: pcrDigest = SHA-256 of the PCR_Read values: rc 0x%x", what, rc);
		}
		if (sets[i] == TPM_MLDSA_65) {
			rc = pqtpm_tss_certify(t, k->handle, "pw", k->handle, "pw", nonce,
					       sizeof(nonce), TPM_ALG_MLDSA, 0, &q, &sig);
			check(rc == 0, "ML-DSA-65 Certify over MSSIM: rc 0x%x", rc);
			if (rc == 0)
				attest_checks(k, sets[i], &q, &sig, nonce, sizeof(nonce),
					      TPM_ST_ATTEST_CERTIFY, "ML-DSA-65 certify");
			rc = pqtpm_tss_get_time(t, "", k->handle, "pw", nonce, sizeof(nonce), 0, 0,
						&q, &sig);
			check(rc == 0, "ML-DSA-65 GetTime over MSSIM: rc 0x%x", rc);
			if (rc == 0)
				attest_checks(k, sets[i], &q, &sig, nonce, sizeof(nonce),
					      TPM_ST_ATTEST_TIME, "ML-DSA-65 gettime");
		}
		pqtpm_tss_flush(t, k->handle);
		free(k);
	}
}

int main(int argc, char **argv)
{
	const char *conf = argc > 1 ? argv[1] : getenv("PQTPM_TCTI");
	int rc;

	if (!conf)
		conf = "mssim:host=127.0.0.1,port=2321";
	rc = pqtpm_tss_open_tcti(&t, conf);
	check(rc == 0, "connect to %s: %d", conf, rc);
	if (rc)
		goto out;
	check(pqtpm_tss_power_on(t) == 0, "power on");
	check(pqtpm_tss_startup(t, TPM_SU_CLEAR) == 0, "Startup(CLEAR)");
	check(find_crosscheck(argv[0]) == 0 && noble_ready() == 0,
	      "@noble/post-quantum ready in %s", xdir);
	capabilities();
	mldsa_sequence();
	noble_signs();
	external_mu();
	kem_both_ways();
	credential();
	contexts();
	kem_session();
	quotes();
	pqtpm_tss_close(t);
out:
	crypto_cleanup();
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}
