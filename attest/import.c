/* Evidence from what tpm2_quote -m -s -o writes: the TPMS_ATTEST, the TPMT_SIGNATURE, and the
 * PCR values as tpm2-tools dumps its structures (host order, C layout, x86-64 and the other
 * little-endian ABIs): TPML_PCR_SELECTION (u32 count, 16 x {u16 hash, u8 sizeofSelect,
 * u8 pcrSelect[4], 1 byte of padding}), u32 n, then n TPML_DIGEST (u32 count, 8 x {u16 size,
 * u8 buffer[64]}), the values in the selection's order. Parsed strictly: exact length,
 * unused entries zero, as many values as PCRs selected, each of its bank's size. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"

#define SEL_ENTRY 8u
#define SEL_LIST (4u + 16u * SEL_ENTRY)
#define DIGEST_ENTRY 66u
#define DIGEST_LIST (4u + 8u * DIGEST_ENTRY)

static bool zeros(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static const char *parse_pcrs(const uint8_t *b, size_t len, struct pqtpm_tss_pcr_select *sel,
			      size_t *nsel, struct pcr_values *pv)
{
	uint32_t count, lists;
	struct rd r;
	size_t bank = 0, pcr = 0;

	if (len < SEL_LIST + 4) /* then every read of the selection below is in bounds */
		return "the PCR file is shorter than a selection";
	rd_init(&r, b, len);
	if (rd_u32le(&r, &count) || count == 0 || count > PQTPM_TSS_MAX_BANKS)
		return "the PCR file's selection has no bank or more than 8";
	for (uint32_t i = 0; i < 16; i++) {
		const uint8_t *e;
		uint16_t hash;

		rd_view(&r, SEL_ENTRY, &e);
		hash = (uint16_t)(e[0] | e[1] << 8);
		if (i >= count) {
			if (!zeros(e, SEL_ENTRY))
				return "the PCR file has bytes in unused selections";
			continue;
		}
		if (!crypto_hash_size(hash) || e[2] > 4 || e[7] ||
		    (e[2] < 4 && !zeros(e + 3 + e[2], 4 - e[2])) || e[6])
			return "the PCR file's selection has an unknown bank or a PCR above 23";
		for (size_t k = 0; k < i; k++)
			if (sel[k].hash == hash)
				return "the PCR file names a bank twice";
		sel[i].hash = hash;
		sel[i].pcrs = (uint32_t)e[3] | (uint32_t)e[4] << 8 | (uint32_t)e[5] << 16;
		pv->len[i] = 0;
	}
	*nsel = count;
	/* and with the exact size checked here, every read of the lists below */
	if (rd_u32le(&r, &lists) || lists == 0 || lists > 24 * PQTPM_TSS_MAX_BANKS ||
	    rd_left(&r) != (size_t)lists * DIGEST_LIST)
		return "the PCR file's size is not that of its digest lists";
	for (uint32_t l = 0; l < lists; l++) {
		uint32_t n;

		rd_u32le(&r, &n);
		if (n > 8)
			return "a digest list of the PCR file has more than 8 digests";
		for (uint32_t k = 0; k < 8; k++) {
			const uint8_t *d;
			uint16_t size;
			size_t hl;

			rd_view(&r, DIGEST_ENTRY, &d);
			size = (uint16_t)(d[0] | d[1] << 8);
			if (k >= n) {
				if (!zeros(d, DIGEST_ENTRY))
					return "the PCR file has bytes in unused digests";
				continue;
			}
			/* the next selected PCR */
			while (bank < *nsel && (pcr == 24 || !(sel[bank].pcrs & (1u << pcr)))) {
				if (pcr == 24) {
					bank++;
					pcr = 0;
				} else {
					pcr++;
				}
			}
			if (bank == *nsel)
				return "the PCR file has more values than PCRs selected";
			hl = crypto_hash_size(sel[bank].hash);
			if (size != hl || !zeros(d + 2 + size, 64 - size))
				return "a PCR value of the PCR file is not of its bank's size";
			memcpy(pv->v[bank] + pv->len[bank], d + 2, hl);
			pv->len[bank] += hl;
			pcr++;
		}
	}
	for (size_t i = 0; i < *nsel; i++)
		if (pv->len[i] != (size_t)__builtin_popcount(sel[i].pcrs) *
					  crypto_hash_size(sel[i].hash))
			return "the PCR file has fewer values than PCRs selected";
	return NULL;
}

int pqtpm_attest_import_tpm2tools(const uint8_t *msg, size_t msg_len, const uint8_t *sig,
				  size_t sig_len, const uint8_t *pcrs, size_t pcrs_len,
				  const uint8_t *nonce, size_t nonce_len,
				  const struct pqtpm_tss_public *ak_pub, json_t **evidence,
				  char *why, size_t whylen)
{
	struct pqtpm_tss_pcr_select sel[PQTPM_TSS_MAX_BANKS];
	struct {
		struct pcr_values pv;
		struct pqtpm_tss_attest q;
		struct pqtpm_tss_signature s;
		struct pqtpm_attest_ak ak;
	} *w;
	const char *err = NULL, *alg;
	struct ak_public p;
	size_t nsel;
	json_t *pj;
	int rc = -EINVAL;

	*evidence = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	if (nonce_len > PQTPM_ATTEST_MAX_NONCE)
		err = "the nonce is longer than 64 bytes";
	else if (msg_len == 0 || msg_len > sizeof(w->q.b) || sig_len == 0 || sig_len > sizeof(w->s.b))
		err = "the message or the signature is empty or too large";
	else if (ak_public_parse(ak_pub->b, ak_pub->size, &p) || !(alg = ak_alg_name(&p)))
		err = "the AK is no RSA-2048, ECC P-256/P-384/P-521 or ML-DSA key";
	else
		err = parse_pcrs(pcrs, pcrs_len, sel, &nsel, &w->pv);
	if (!err) {
		memcpy(w->q.b, msg, msg_len);
		w->q.size = (uint16_t)msg_len;
		memcpy(w->s.b, sig, sig_len);
		w->s.size = (uint16_t)sig_len;
		w->ak.pub = *ak_pub;
		snprintf(w->ak.alg, sizeof(w->ak.alg), "%s", alg);
		if (public_name(ak_pub->b, ak_pub->size, p.name_alg, &w->ak.name))
			err = "the AK's nameAlg is not supported";
	}
	if (!err) {
		pj = pcrs_json(sel, nsel, &w->pv);
		*evidence = pj ? evidence_json(&w->ak, nonce, nonce_len, &w->q, &w->s, pj, NULL,
					       NULL, 0)
			       : NULL;
		json_decref(pj);
		rc = *evidence ? 0 : -ENOMEM;
		if (!*evidence)
			err = "the message is no TPMS_ATTEST, or out of memory";
	}
	if (err)
		snprintf(why, whylen, "%s", err);
	free(w);
	return rc;
}
