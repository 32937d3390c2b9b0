/* The verifier's checks beyond the quote itself: the event log replayed, reference values,
 * the EK certificate chain (docs/attestation.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crypto/crypto.h"
#include "verify_int.h"

#define MAX_EVENT_LOG (1u << 20)

/* The log replayed per bank gives every quoted PCR it touches; *ok says whether it did. */
void verify_log(struct ctx *c, const struct quote *q, const json_t *pcrs, const char *b64,
		      int *ok)
{
	struct pqtpm_attest_replay *rp = malloc(sizeof(*rp));
	uint8_t *log = malloc(MAX_EVENT_LOG);
	size_t len, before = json_array_size(c->failures);
	char why[160];

	if (!rp || !log) {
		c->nomem = true;
	} else if (pqtpm_attest_unb64url(b64, log, MAX_EVENT_LOG, &len)) {
		verify_failure(c, "format", "\"event_log\" is no base64url of at most 1 MiB");
	} else if (pqtpm_attest_log_replay(log, len, rp, why, sizeof(why))) {
		verify_failure(c, "event-log", "%s", why);
	} else {
		for (size_t i = 0; i < q->nsel; i++) {
			const char *bank = hash_name(q->sel[i].hash);
			size_t b = 0, hl = crypto_hash_size(q->sel[i].hash);

			while (b < rp->nbanks && rp->bank[b] != q->sel[i].hash)
				b++;
			for (unsigned pcr = 0; pcr < 24; pcr++) {
				char num[4];
				uint8_t v[64];
				size_t vl;
				const char *hex;

				if (!(q->sel[i].pcrs & (1u << pcr)))
					continue;
				snprintf(num, sizeof(num), "%u", pcr);
				hex = json_string_value(json_object_get(json_object_get(pcrs, bank), num));
				if (b == rp->nbanks) {
					if (rp->nbanks && (rp->touched[0] & (1u << pcr)))
						verify_failure(c, "event-log", "the log has no %s digests for "
							"PCR %u", bank ? bank : "?", pcr);
					continue;
				}
				if (!(rp->touched[b] & (1u << pcr)))
					continue;
				if (rp->missing[b] & (1u << pcr))
					verify_failure(c, "event-log", "an event of PCR %s:%u has no digest of "
						"that bank", bank, pcr);
				else if (!hex || pqtpm_attest_unhex(hex, v, sizeof(v), &vl) ||
					 vl != hl || memcmp(v, rp->value[b][pcr], hl) != 0)
					verify_failure(c, "event-log", "the log replayed does not give PCR "
						"%s:%u", bank, pcr);
			}
		}
	}
	*ok = json_array_size(c->failures) == before;
	free(rp);
	free(log);
}

/* Every PCR the policy names ({"pcrs": {BANK: {PCR: HEX or [HEX, ...]}}}) is quoted, and its
 * value is one of those allowed. A policy that is not of that form fails the check. */
void verify_policy(struct ctx *c, const struct quote *q, const json_t *pcrs,
			 const json_t *policy)
{
	const json_t *banks = json_object_get(policy, "pcrs"), *values, *allowed;
	const char *bank, *num;

	if (!json_is_object(banks)) {
		verify_failure(c, "reference-values", "the policy has no \"pcrs\" object");
		return;
	}
	json_object_foreach((json_t *)banks, bank, values) {
		TPM_ALG_ID h = hash_by_name(bank);
		uint32_t quoted = 0;

		for (size_t i = 0; i < q->nsel; i++)
			if (q->sel[i].hash == h)
				quoted = q->sel[i].pcrs;
		if (h == TPM_ALG_NULL || !json_is_object(values)) {
			verify_failure(c, "reference-values", "the policy's bank \"%s\" is unknown", bank);
			continue;
		}
		json_object_foreach((json_t *)values, num, allowed) {
			const char *have = json_string_value(
				json_object_get(json_object_get(pcrs, bank), num));
			char *end;
			long pcr = strtol(num, &end, 10);
			bool match = false;
			size_t k;
			json_t *v;

			if (*end || end == num || pcr < 0 || pcr > 23 ||
			    !(quoted & (1u << pcr)) || !have) {
				verify_failure(c, "reference-values", "PCR %s:%s is not quoted", bank, num);
				continue;
			}
			if (json_is_string(allowed)) {
				match = strcasecmp(json_string_value(allowed), have) == 0;
			} else if (json_is_array(allowed)) {
				json_array_foreach(allowed, k, v)
					match |= json_is_string(v) &&
						 strcasecmp(json_string_value(v), have) == 0;
			} else {
				verify_failure(c, "reference-values", "PCR %s:%s: the policy's values are "
					"neither a string nor a list", bank, num);
				continue;
			}
			if (!match)
				verify_failure(c, "reference-values", "PCR %s:%s has none of the policy's "
					"values", bank, num);
		}
	}
}

/* the EK certificate in the evidence comes from the trusted CA and certifies the EK there */
void verify_ek(struct ctx *c, const struct pqtpm_attest_ca *ca, const json_t *ek)
{
	uint8_t *cert = malloc(PQTPM_ATTEST_MAX_CERT), *pub = malloc(PQTPM_TSS_MAX_PUBLIC);
	size_t cert_len, pub_len;
	const char *why;

	if (!cert || !pub)
		c->nomem = true;
	else if (!json_is_object(ek))
		verify_failure(c, "ek-certificate", "the evidence has no EK");
	else if (verify_b64_field(ek, "certificate", cert, PQTPM_ATTEST_MAX_CERT, &cert_len) ||
		 verify_b64_field(ek, "public", pub, PQTPM_TSS_MAX_PUBLIC, &pub_len))
		verify_failure(c, "ek-certificate", "the evidence's EK has no certificate or public area");
	else if ((why = ek_cert_check(cert, cert_len, ca, pub, pub_len)))
		verify_failure(c, "ek-certificate", "%s", why);
	free(cert);
	free(pub);
}

