/* Evidence: PCRs read and quoted so that they agree, as the JSON document of
 * docs/attestation.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attest_int.h"
#include "crypto/crypto.h"

#define QUOTE_TRIES 5 /* a PCR that moved between read and quote: read and quote again */

static TPM_RC read_pcrs(struct pqtpm_tss *t, const struct pqtpm_tss_pcr_select *sel,
			size_t nsel, struct pcr_values *pv)
{
	for (size_t i = 0; i < nsel; i++)
		TRY(pqtpm_tss_pcr_read(t, sel[i].hash, sel[i].pcrs, pv->v[i], sizeof(pv->v[i]),
				       &pv->len[i]));
	return TPM_RC_SUCCESS;
}

/* H(the values of the quoted selection, in its order) equals the quote's pcrDigest? The
 * quoted selection must be the one asked for (bank by bank). */
static bool agrees(const struct pqtpm_tss_attest *q, TPM_ALG_ID hash,
		   const struct pqtpm_tss_pcr_select *sel, size_t nsel,
		   const struct pcr_values *pv)
{
	struct pqtpm_tss_attest_info info;
	struct pqtpm_tss_pcr_select qsel[PQTPM_TSS_MAX_BANKS];
	struct pqtpm_tss_digest digest;
	struct crypto_hash_ctx ctx;
	uint8_t mine[64];
	size_t qn;

	if (pqtpm_tss_attest_parse(q, &info) ||
	    pqtpm_tss_quote_info(&info, qsel, PQTPM_TSS_MAX_BANKS, &qn, &digest) || qn != nsel)
		return false;
	if (crypto_hash_start(&ctx, hash))
		return false;
	for (size_t i = 0; i < nsel; i++) {
		if (qsel[i].hash != sel[i].hash || qsel[i].pcrs != sel[i].pcrs)
			return false;
		crypto_hash_update(&ctx, pv->v[i], pv->len[i]);
	}
	crypto_hash_finish(&ctx, mine);
	return digest.size == crypto_hash_size(hash) && memcmp(mine, digest.b, digest.size) == 0;
}

static int set_b64(json_t *o, const char *key, const uint8_t *b, size_t len)
{
	char *s = pqtpm_attest_b64url(b, len);
	int rc = s ? json_object_set_new(o, key, json_string(s)) : -1;

	free(s);
	return rc;
}

static int set_hex(json_t *o, const char *key, const uint8_t *b, size_t len)
{
	char *s = pqtpm_attest_hex(b, len);
	int rc = s ? json_object_set_new(o, key, json_string(s)) : -1;

	free(s);
	return rc;
}

json_t *pcrs_json(const struct pqtpm_tss_pcr_select *sel, size_t nsel,
		  const struct pcr_values *pv)
{
	json_t *all = json_object();

	for (size_t i = 0; all && i < nsel; i++) {
		json_t *bank = json_object();
		size_t dl = crypto_hash_size(sel[i].hash), k = 0;

		if (!bank || json_object_set_new(all, hash_name(sel[i].hash), bank))
			goto fail;
		for (unsigned pcr = 0; pcr < 24; pcr++) {
			char num[4];

			if (!(sel[i].pcrs & (1u << pcr)))
				continue;
			snprintf(num, sizeof(num), "%u", pcr);
			if ((k + 1) * dl > pv->len[i] || set_hex(bank, num, pv->v[i] + k * dl, dl))
				goto fail;
			k++;
		}
	}
	return all;
fail:
	json_decref(all);
	return NULL;
}

/* informative only: the verifier never reads it */
static json_t *decoded_json(const struct pqtpm_tss_attest *q)
{
	struct pqtpm_tss_attest_info info;
	json_t *d;

	if (pqtpm_tss_attest_parse(q, &info))
		return NULL;
	d = json_pack("{s:I, s:I, s:I, s:I, s:I, s:b, s:I}", "magic", (json_int_t)info.magic,
		      "type", (json_int_t)info.type, "clock", (json_int_t)info.clock,
		      "reset_count", (json_int_t)info.reset_count, "restart_count",
		      (json_int_t)info.restart_count, "safe", info.safe != 0, "firmware_version",
		      (json_int_t)info.firmware_version);
	if (d && (set_hex(d, "qualified_signer", info.signer.b, info.signer.size) ||
		  set_hex(d, "extra_data", info.extra, info.extra_size))) {
		json_decref(d);
		return NULL;
	}
	return d;
}

static int rfc3339_now(char *out, size_t cap)
{
	time_t now = time(NULL);
	struct tm tm;

	return gmtime_r(&now, &tm) && strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) ? 0 : -1;
}

json_t *evidence_json(const struct pqtpm_attest_ak *ak, const uint8_t *nonce,
			     size_t nonce_len, const struct pqtpm_tss_attest *q,
			     const struct pqtpm_tss_signature *sig, json_t *pcrs,
			     const struct pqtpm_tss_public *ek_pub, const uint8_t *ek_cert,
			     size_t ek_cert_len)
{
	json_t *doc = json_object(), *akj = json_object(), *quotes = json_array(),
	       *qj = json_object(), *ek = NULL;
	char issued[32];
	bool ok = doc && akj && quotes && qj && rfc3339_now(issued, sizeof(issued)) == 0;

	ok = ok && !json_object_set_new(doc, "profile", json_string(PQTPM_ATTEST_PROFILE)) &&
	     !set_hex(doc, "nonce", nonce, nonce_len) &&
	     !json_object_set_new(doc, "issued_at", json_string(issued)) &&
	     !set_b64(akj, "public", ak->pub.b, ak->pub.size) &&
	     !set_hex(akj, "name", ak->name.b, ak->name.size) &&
	     !json_object_set_new(akj, "alg", json_string(ak->alg)) &&
	     !set_b64(qj, "attest", q->b, q->size) && !set_b64(qj, "signature", sig->b, sig->size) &&
	     !json_object_set_new(qj, "decoded", decoded_json(q)) &&
	     !json_array_append(quotes, qj) && !json_object_set(doc, "ak", akj) &&
	     !json_object_set(doc, "quotes", quotes) && !json_object_set(doc, "pcrs", pcrs);
	if (ok && ek_pub) {
		ek = json_object();
		ok = ek && !set_b64(ek, "public", ek_pub->b, ek_pub->size) &&
		     (!ek_cert || !set_b64(ek, "certificate", ek_cert, ek_cert_len)) &&
		     !json_object_set(doc, "ek", ek);
	}
	json_decref(akj);
	json_decref(quotes);
	json_decref(qj);
	json_decref(ek);
	if (!ok) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int pqtpm_attest_evidence_add_log(json_t *ev, const uint8_t *log, size_t len)
{
	return set_b64(ev, "event_log", log, len) ? -ENOMEM : 0;
}

TPM_RC pqtpm_attest_quote(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
			  TPM_HANDLE ak_handle, const uint8_t *nonce, size_t nonce_len,
			  const struct pqtpm_tss_pcr_select *sel, size_t nsel,
			  const struct pqtpm_tss_public *ek_pub, const uint8_t *ek_cert,
			  size_t ek_cert_len, json_t **evidence)
{
	struct work {
		struct pcr_values pv;
		struct pqtpm_tss_signature sig;
		struct pqtpm_tss_attest q;
	} *wk;
	struct ak_public p;
	json_t *pcrs;
	TPM_RC rc = PQTPM_ATTEST_RC_PCRS_MOVED;
	int tries;

	if (nonce_len > PQTPM_ATTEST_MAX_NONCE || nsel == 0 || nsel > PQTPM_TSS_MAX_BANKS)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(ak_public_parse(ak->pub.b, ak->pub.size, &p));
	wk = malloc(sizeof(*wk)); /* an ML-DSA-87 signature and 8 banks of PCRs */
	if (!wk)
		return PQTPM_TSS_RC_IO;
	for (tries = 0; tries < QUOTE_TRIES; tries++) {
		rc = read_pcrs(t, sel, nsel, &wk->pv);
		if (rc == TPM_RC_SUCCESS)
			rc = pqtpm_tss_quote(t, ak_handle, "", nonce, nonce_len, 0, 0, sel, nsel,
					     &wk->q, &wk->sig);
		if (rc != TPM_RC_SUCCESS)
			break;
		if (agrees(&wk->q, ak_quote_hash(&p), sel, nsel, &wk->pv))
			break;
		rc = PQTPM_ATTEST_RC_PCRS_MOVED;
	}
	if (rc == TPM_RC_SUCCESS) {
		pcrs = pcrs_json(sel, nsel, &wk->pv);
		*evidence = pcrs ? evidence_json(ak, nonce, nonce_len, &wk->q, &wk->sig, pcrs,
						 ek_pub, ek_cert, ek_cert_len)
				 : NULL;
		json_decref(pcrs);
		if (!*evidence)
			rc = PQTPM_TSS_RC_IO;
	}
	free(wk);
	return rc;
}
