/* The TCG PC Client crypto-agile event log (PC Client Platform Firmware Profile, section 10),
 * as /sys/kernel/security/tpm0/binary_bios_measurements holds it: a Spec ID event in the SHA-1
 * format naming the digest algorithms and their sizes, then TCG_PCR_EVENT2 records, all
 * integers little-endian. Built for measure, replayed for the verifier; parsing is bounded. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"

#define EV_NO_ACTION 0x3u
#define SPEC_ID_SIGNATURE "Spec ID Event03" /* with its NUL: 16 bytes */
#define STARTUP_LOCALITY "StartupLocality"  /* with its NUL: 16 bytes */
#define MAX_LOG_ALGS 16
#define MAX_EVENTS 100000 /* in the text of fail() too */

TPM_RC pqtpm_attest_log_header(const TPM_ALG_ID *banks, size_t n, uint8_t *out, size_t cap,
			       size_t *len)
{
	static const uint8_t zeros[20];
	struct wr w;
	size_t size_at;

	wr_init(&w, out, cap);
	TRY(wr_u32le(&w, 0));
	TRY(wr_u32le(&w, EV_NO_ACTION));
	TRY(wr_bytes(&w, zeros, sizeof(zeros)));
	size_at = w.off;
	TRY(wr_u32le(&w, 0));
	TRY(wr_bytes(&w, SPEC_ID_SIGNATURE, sizeof(SPEC_ID_SIGNATURE)));
	TRY(wr_u32le(&w, 0)); /* platformClass: client */
	TRY(wr_u8(&w, 0));    /* specVersionMinor */
	TRY(wr_u8(&w, 2));    /* specVersionMajor */
	TRY(wr_u8(&w, 0));    /* specErrata */
	TRY(wr_u8(&w, 2));    /* uintnSize: UINT64 */
	TRY(wr_u32le(&w, (uint32_t)n));
	for (size_t i = 0; i < n; i++) {
		TRY(wr_u16le(&w, banks[i]));
		TRY(wr_u16le(&w, (uint16_t)crypto_hash_size(banks[i])));
	}
	TRY(wr_u8(&w, 0)); /* vendorInfoSize */
	{
		struct wr patch;

		wr_init(&patch, out + size_at, 4);
		TRY(wr_u32le(&patch, (uint32_t)(w.off - size_at - 4)));
	}
	*len = w.off;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_attest_log_event(uint32_t pcr, uint32_t type, const struct pqtpm_tss_ha *d,
			      size_t n, const uint8_t *event, size_t len, uint8_t *out, size_t cap,
			      size_t *outlen)
{
	struct wr w;

	wr_init(&w, out, cap);
	TRY(wr_u32le(&w, pcr));
	TRY(wr_u32le(&w, type));
	TRY(wr_u32le(&w, (uint32_t)n));
	for (size_t i = 0; i < n; i++) {
		TRY(wr_u16le(&w, d[i].hash));
		TRY(wr_bytes(&w, d[i].b, d[i].size));
	}
	TRY(wr_u32le(&w, (uint32_t)len));
	TRY(wr_bytes(&w, event, len));
	*outlen = w.off;
	return TPM_RC_SUCCESS;
}

struct log_algs {
	size_t n;
	uint16_t alg[MAX_LOG_ALGS], size[MAX_LOG_ALGS];
};

static int fail(char *why, size_t whylen, const char *text)
{
	snprintf(why, whylen, "%s", text);
	return -EINVAL;
}

/* the same about event k */
static int fail_at(char *why, size_t whylen, unsigned long k, const char *text)
{
	snprintf(why, whylen, "event %lu %s", k, text);
	return -EINVAL;
}

static int parse_header(struct rd *r, struct log_algs *a, char *why, size_t whylen)
{
	uint32_t pcr, type, size, n;
	uint8_t sig[16], skip[8], vendor;
	const uint8_t *digest;
	struct rd data;

	if (rd_u32le(r, &pcr) || rd_u32le(r, &type) || rd_view(r, 20, &digest) ||
	    rd_u32le(r, &size) || size > rd_left(r) || type != EV_NO_ACTION)
		return fail(why, whylen, "no Spec ID event first");
	rd_init(&data, r->buf + r->off, size);
	r->off += size;
	if (rd_bytes(&data, sig, sizeof(sig)) || memcmp(sig, SPEC_ID_SIGNATURE, sizeof(sig)) ||
	    rd_bytes(&data, skip, 8) || rd_u32le(&data, &n) || n == 0 || n > MAX_LOG_ALGS)
		return fail(why, whylen, "the Spec ID event is not Spec ID Event03");
	a->n = n;
	for (uint32_t i = 0; i < n; i++)
		if (rd_u16le(&data, &a->alg[i]) || rd_u16le(&data, &a->size[i]) ||
		    a->size[i] > 64 ||
		    (crypto_hash_size(a->alg[i]) && crypto_hash_size(a->alg[i]) != a->size[i]))
			return fail(why, whylen, "the Spec ID event names an algorithm of a wrong size");
	if (rd_u8(&data, &vendor) || rd_view(&data, vendor, &digest) || rd_left(&data))
		return fail(why, whylen, "the Spec ID event's size is wrong");
	return 0;
}

static int alg_index(const struct log_algs *a, uint16_t alg)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->alg[i] == alg)
			return (int)i;
	return -1;
}

/* PCR 0 starts at the locality of a StartupLocality event */
static void startup_locality(struct pqtpm_attest_replay *rp, const uint8_t *ev, size_t len)
{
	if (len != sizeof(STARTUP_LOCALITY) + 1 ||
	    memcmp(ev, STARTUP_LOCALITY, sizeof(STARTUP_LOCALITY)) != 0)
		return;
	for (size_t b = 0; b < rp->nbanks; b++)
		rp->value[b][0][crypto_hash_size(rp->bank[b]) - 1] = ev[sizeof(STARTUP_LOCALITY)];
}

int pqtpm_attest_log_replay(const uint8_t *log, size_t len, struct pqtpm_attest_replay *rp,
			    char *why, size_t whylen)
{
	struct log_algs a;
	struct rd r;
	unsigned long k;

	memset(rp, 0, sizeof(*rp));
	rd_init(&r, log, len);
	if (parse_header(&r, &a, why, whylen))
		return -EINVAL;
	for (size_t i = 0; i < a.n; i++)
		if (crypto_hash_size(a.alg[i]) && rp->nbanks < PQTPM_TSS_MAX_BANKS)
			rp->bank[rp->nbanks++] = a.alg[i];
	for (k = 1; rd_left(&r); k++) {
		uint32_t pcr, type, count, size;
		const uint8_t *d[MAX_LOG_ALGS] = { 0 }, *ev;

		if (k > MAX_EVENTS)
			return fail(why, whylen, "more than 100000 events");
		if (rd_u32le(&r, &pcr) || rd_u32le(&r, &type) || rd_u32le(&r, &count) ||
		    count > a.n)
			return fail_at(why, whylen, k, "is truncated or has too many digests");
		for (uint32_t i = 0; i < count; i++) {
			uint16_t alg;
			int x;

			if (rd_u16le(&r, &alg) || (x = alg_index(&a, alg)) < 0 || d[x] ||
			    rd_view(&r, a.size[x], &d[x]))
				return fail_at(why, whylen, k, "has a digest the header does not name, "
							       "twice, or truncated");
		}
		if (rd_u32le(&r, &size) || rd_view(&r, size, &ev))
			return fail_at(why, whylen, k, "has its data truncated");
		if (type == EV_NO_ACTION) {
			if (pcr == 0)
				startup_locality(rp, ev, size);
			continue;
		}
		if (pcr > 23)
			continue;
		for (size_t b = 0; b < rp->nbanks; b++) {
			int x = alg_index(&a, rp->bank[b]);
			size_t hl = crypto_hash_size(rp->bank[b]);
			struct crypto_hash_ctx h;

			rp->touched[b] |= 1u << pcr;
			if (!d[x]) {
				rp->missing[b] |= 1u << pcr;
				continue;
			}
			if (crypto_hash_start(&h, rp->bank[b]) ||
			    crypto_hash_update(&h, rp->value[b][pcr], hl) ||
			    crypto_hash_update(&h, d[x], hl) ||
			    crypto_hash_finish(&h, rp->value[b][pcr]))
				return fail_at(why, whylen, k, "could not be hashed");
		}
	}
	return 0;
}
