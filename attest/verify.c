/* The verifier (docs/attestation.md): every check it can apply runs and reports; the
 * evidence's own claims count only once checked. Nothing here talks to a TPM. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto/crypto.h"
#include "verify_int.h"

#define MAX_QUOTE 2048
#define MAX_SIGNATURE PQTPM_TSS_MAX_SIGNATURE
#define FUTURE_SKEW 60 /* seconds an issued_at may be ahead of the verifier's clock */

void verify_failure(struct ctx *c, const char *check, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (json_array_append_new(c->failures,
				  json_pack("{s:s, s:s}", "check", check, "detail", detail)))
		c->nomem = true;
}

/* TPMS_ATTEST: magic, type, qualifiedSigner, extraData, clockInfo, firmwareVersion, and for a
 * quote TPMS_QUOTE_INFO; nothing after it. Returns a text for the format check or NULL. */
static const char *parse_attest(const uint8_t *b, size_t len, struct quote *q)
{
	uint8_t signer[sizeof(((struct pqtpm_tss_name *)0)->b)];
	uint16_t n;
	uint32_t count;
	struct rd r;

	memset(q, 0, sizeof(*q));
	rd_init(&r, b, len);
	if (rd_u32(&r, &q->magic) || rd_u16(&r, &q->type) ||
	    rd_tpm2b(&r, signer, sizeof(signer), &n) ||
	    rd_tpm2b(&r, q->extra, sizeof(q->extra), &q->extra_size) || rd_u64(&r, &q->clock) ||
	    rd_u32(&r, &q->reset) || rd_u32(&r, &q->restart) || rd_u8(&r, &q->safe) ||
	    rd_u64(&r, &q->firmware))
		return "TPMS_ATTEST truncated or over-long";
	if (q->type != TPM_ST_ATTEST_QUOTE)
		return NULL; /* the type check says so; nothing more to read */
	if (rd_u32(&r, &count) || count > PQTPM_TSS_MAX_BANKS)
		return "TPML_PCR_SELECTION truncated or over-long";
	for (uint32_t i = 0; i < count; i++) {
		uint8_t size, bits[4] = { 0 };

		if (rd_u16(&r, &q->sel[i].hash) || rd_u8(&r, &size) || size > sizeof(bits) ||
		    rd_bytes(&r, bits, size))
			return "TPMS_PCR_SELECTION truncated or over-long";
		if (bits[3])
			return "a PCR above 23 selected";
		q->sel[i].pcrs = (uint32_t)bits[0] | (uint32_t)bits[1] << 8 | (uint32_t)bits[2] << 16;
	}
	q->nsel = count;
	if (rd_tpm2b(&r, q->digest, sizeof(q->digest), &q->digest_size))
		return "pcrDigest truncated or over-long";
	return rd_left(&r) ? "bytes after the TPMS_ATTEST" : NULL;
}

const char *verify_b64_field(const json_t *o, const char *key, uint8_t *out, size_t cap,
			     size_t *len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		return "a field is missing or not a string";
	return pqtpm_attest_unb64url(s, out, cap, len) ? "a field is no base64url or too long"
						       : NULL;
}

/* RFC 3339 UTC "YYYY-MM-DDTHH:MM:SSZ" */
static int parse_time(const char *s, int64_t *out)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	*out = (int64_t)timegm(&tm);
	return 0;
}

/* The presented PCR values: bank names and PCR numbers that parse, values of the bank's
 * size. Fills presented selections (banks in the document's order). */
static const char *parse_pcrs(const json_t *pcrs, struct pqtpm_tss_pcr_select *sel,
			      size_t *nsel)
{
	const char *bank, *num;
	json_t *values, *v;

	if (!json_is_object(pcrs))
		return "\"pcrs\" is not an object";
	*nsel = 0;
	json_object_foreach((json_t *)pcrs, bank, values) {
		TPM_ALG_ID h = hash_by_name(bank);
		size_t dl = crypto_hash_size(h);

		if (h == TPM_ALG_NULL || !json_is_object(values) || *nsel == PQTPM_TSS_MAX_BANKS)
			return "\"pcrs\" has an unknown bank or too many";
		sel[*nsel].hash = h;
		sel[*nsel].pcrs = 0;
		json_object_foreach(values, num, v) {
			uint8_t d[64];
			size_t len;
			char *end;
			long pcr = strtol(num, &end, 10);

			if (*end || end == num || pcr < 0 || pcr > 23 ||
			    (num[0] == '0' && num[1]) || !json_is_string(v) ||
			    pqtpm_attest_unhex(json_string_value(v), d, sizeof(d), &len) ||
			    len != dl)
				return "\"pcrs\" has a bad PCR number or value";
			sel[*nsel].pcrs |= 1u << pcr;
		}
		++*nsel;
	}
	return NULL;
}

static void check_ak(struct ctx *c, const struct ak_public *p)
{
	const uint32_t must = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_RESTRICTED |
			      TPMA_OBJECT_SIGN_ENCRYPT;

	if ((p->attributes & must) != must || (p->attributes & TPMA_OBJECT_DECRYPT))
		verify_failure(c, "ak-attributes",
			"TPMA_OBJECT 0x%08x: fixedTPM, fixedParent, sensitiveDataOrigin, "
			"restricted and sign needed, decrypt not allowed", p->attributes);
	if (p->type == TPM_ALG_RSA &&
	    (p->rsa_bits < 2048 || p->key_len != p->rsa_bits / 8u ||
	     (p->scheme != TPM_ALG_RSASSA && p->scheme != TPM_ALG_RSAPSS)))
		verify_failure(c, "ak-attributes", "RSA key of %u bits or without RSASSA/RSAPSS",
			p->rsa_bits);
	if (p->type == TPM_ALG_ECC &&
	    ((p->curve != TPM_ECC_NIST_P256 && p->curve != TPM_ECC_NIST_P384 &&
	      p->curve != TPM_ECC_NIST_P521) ||
	     p->scheme != TPM_ALG_ECDSA))
		verify_failure(c, "ak-attributes", "ECC curve 0x%04x or scheme 0x%04x: a NIST curve of "
			"at least 256 bits with ECDSA needed", p->curve, p->scheme);
	if (p->type == TPM_ALG_MLDSA && (p->parameter_set < TPM_MLDSA_44 ||
					 p->parameter_set > TPM_MLDSA_87))
		verify_failure(c, "ak-attributes", "ML-DSA parameter set %u", p->parameter_set);
	if (p->scheme != TPM_ALG_MLDSA && crypto_hash_size(p->scheme_hash) == 0)
		verify_failure(c, "ak-attributes", "scheme hash 0x%04x", p->scheme_hash);
}

static bool same_selection(const struct pqtpm_tss_pcr_select *a, size_t na,
			   const struct pqtpm_tss_pcr_select *b, size_t nb)
{
	for (size_t i = 0; i < na; i++) {
		uint32_t other = 0;
		int seen = 0;

		for (size_t j = 0; j < nb; j++)
			if (b[j].hash == a[i].hash) {
				other = b[j].pcrs;
				seen++;
			}
		for (size_t j = 0; j < i; j++)
			if (a[j].hash == a[i].hash)
				return false;
		/* a bank quoted without PCRs needs none presented */
		if (seen > 1 || other != a[i].pcrs)
			return false;
	}
	/* and every presented bank (not empty) is quoted */
	for (size_t j = 0; j < nb; j++) {
		bool found = b[j].pcrs == 0;

		for (size_t i = 0; i < na; i++)
			found |= a[i].hash == b[j].hash;
		if (!found)
			return false;
	}
	return true;
}

static void check_digest(struct ctx *c, const struct quote *q, const json_t *pcrs,
			 TPM_ALG_ID hash)
{
	struct crypto_hash_ctx h;
	uint8_t mine[64];

	if (crypto_hash_start(&h, hash) != TPM_RC_SUCCESS) {
		verify_failure(c, "pcr-digest", "the AK's hash 0x%04x is not supported", hash);
		return;
	}
	for (size_t i = 0; i < q->nsel; i++) {
		const json_t *bank = json_object_get(pcrs, hash_name(q->sel[i].hash));

		for (unsigned pcr = 0; pcr < 24; pcr++) {
			char num[4];
			const char *v;
			uint8_t d[64];
			size_t len;

			if (!(q->sel[i].pcrs & (1u << pcr)))
				continue;
			snprintf(num, sizeof(num), "%u", pcr);
			v = json_string_value(json_object_get(bank, num));
			if (!v || pqtpm_attest_unhex(v, d, sizeof(d), &len)) {
				verify_failure(c, "pcr-digest", "PCR %s:%u is quoted but not presented",
					hash_name(q->sel[i].hash) ? hash_name(q->sel[i].hash) : "?",
					pcr);
				return;
			}
			crypto_hash_update(&h, d, len);
		}
	}
	crypto_hash_finish(&h, mine);
	if (q->digest_size != crypto_hash_size(hash) ||
	    memcmp(mine, q->digest, q->digest_size) != 0)
		verify_failure(c, "pcr-digest", "the PCR values presented do not give the quoted digest");
}

/* against the previous result of this TPM: counts never go back, a TPM Reset shows, and
 * Clock moves forward while both counts stand */
static void check_previous(struct ctx *c, const struct quote *q, const json_t *previous)
{
	const json_t *claims = json_object_get(previous, "claims");
	json_t *jr = json_object_get(claims, "reset_count"),
	       *js = json_object_get(claims, "restart_count"), *jc = json_object_get(claims, "clock");
	json_int_t reset, restart, clock;

	if (!json_is_integer(jr) || !json_is_integer(js) || !json_is_integer(jc)) {
		verify_failure(c, "format", "the previous result has no reset_count, restart_count, clock");
		return;
	}
	reset = json_integer_value(jr);
	restart = json_integer_value(js);
	clock = json_integer_value(jc);
	if ((json_int_t)q->reset != reset) {
		verify_failure(c, "reset-count", "resetCount %u, %lld before: %s", q->reset,
			(long long)reset,
			(json_int_t)q->reset < reset ? "it went back" : "a TPM Reset since");
		return;
	}
	if ((json_int_t)q->restart < restart) {
		verify_failure(c, "restart-count", "restartCount %u went back from %lld", q->restart,
			(long long)restart);
		return;
	}
	if ((json_int_t)q->restart == restart && (json_int_t)q->clock <= clock)
		verify_failure(c, "clock", "clock %llu does not move on from %lld",
			(unsigned long long)q->clock, (long long)clock);
}

/* log_ok: -1 no event log, else whether it replayed to the PCRs */
static json_t *claims_json(const struct quote *q, const json_t *pcrs, const char *ak_name,
			   int log_ok)
{
	return json_pack("{s:s, s:O, s:I, s:I, s:I, s:I, s:b, s:o}", "ak_name", ak_name, "pcrs",
			 pcrs, "clock", (json_int_t)q->clock, "reset_count",
			 (json_int_t)q->reset, "restart_count", (json_int_t)q->restart,
			 "firmware_version", (json_int_t)q->firmware, "safe", q->safe != 0,
			 "event_log_ok", log_ok < 0 ? json_null() : json_boolean(log_ok));
}

/* Everything past the format: the document parsed; q, the AK and the PCRs in hand. */
static void check_all(struct ctx *c, const struct pqtpm_attest_verify_opts *o,
		      const struct quote *q, const uint8_t *attest, size_t attest_len,
		      const uint8_t *sig, size_t sig_len, const uint8_t *ev_ak, size_t ev_ak_len,
		      const char *ev_name, const uint8_t *ev_nonce, size_t ev_nonce_len,
		      const json_t *pcrs, const struct pqtpm_tss_pcr_select *psel, size_t npsel,
		      int64_t issued, const json_t *ek, const char *log, int *log_ok)
{
	struct pqtpm_tss_name name;
	struct ak_public p;
	const char *why;
	uint8_t nb[66];
	size_t nlen;

	if (ak_public_parse(o->trusted_ak, o->trusted_ak_len, &p) != TPM_RC_SUCCESS) {
		verify_failure(c, "ak-attributes", "the trusted AK is no TPMT_PUBLIC of RSA, ECC, ML-DSA");
		return;
	}
	check_ak(c, &p);
	if (ev_ak_len != o->trusted_ak_len || memcmp(ev_ak, o->trusted_ak, ev_ak_len) != 0 ||
	    public_name(o->trusted_ak, o->trusted_ak_len, p.name_alg, &name) ||
	    pqtpm_attest_unhex(ev_name, nb, sizeof(nb), &nlen) || nlen != name.size ||
	    memcmp(nb, name.b, nlen) != 0)
		verify_failure(c, "ak-mismatch", "the evidence's AK (public or name) is not the trusted one");
	if (!ak_signature_ok(&p, attest, attest_len, sig, sig_len, &why))
		verify_failure(c, "signature", "%s", why);
	if (q->magic != TPM_GENERATED_VALUE)
		verify_failure(c, "magic", "0x%08x is not TPM_GENERATED_VALUE", q->magic);
	if (q->type != TPM_ST_ATTEST_QUOTE) {
		verify_failure(c, "type", "0x%04x is not TPM_ST_ATTEST_QUOTE", q->type);
	} else {
		if (!same_selection(q->sel, q->nsel, psel, npsel))
			verify_failure(c, "pcr-selection",
				"the PCRs quoted are not the PCRs presented");
		check_digest(c, q, pcrs, ak_quote_hash(&p));
		if (log)
			verify_log(c, q, pcrs, log, log_ok);
	}
	if (q->extra_size != o->nonce_len || o->nonce_len == 0 ||
	    !crypto_ct_equal(q->extra, o->nonce, o->nonce_len))
		verify_failure(c, "nonce", "the quote's extraData is not the verifier's nonce");
	if (ev_nonce_len != o->nonce_len || !crypto_ct_equal(ev_nonce, o->nonce, o->nonce_len))
		verify_failure(c, "nonce", "the evidence's nonce field is not the verifier's nonce");
	if (q->safe != 1)
		verify_failure(c, "clock-safe", "safe is NO: Clock may have gone back (a crash)");
	if (o->previous)
		check_previous(c, q, o->previous);
	if (o->ca)
		verify_ek(c, o->ca, ek);
	if (o->policy && q->type == TPM_ST_ATTEST_QUOTE)
		verify_policy(c, q, pcrs, o->policy);
	if (o->max_age && (issued > o->now + FUTURE_SKEW || o->now - issued > (int64_t)o->max_age))
		verify_failure(c, "freshness", "issued_at is %lld s from now, more than %llu allowed",
			(long long)(o->now - issued), (unsigned long long)o->max_age);
}

int pqtpm_attest_verify(const json_t *ev, const struct pqtpm_attest_verify_opts *o,
			json_t **result)
{
	struct ctx c = { .failures = json_array() };
	struct pqtpm_tss_pcr_select psel[PQTPM_TSS_MAX_BANKS];
	uint8_t *attest = malloc(MAX_QUOTE), *sig = malloc(MAX_SIGNATURE),
		*ev_ak = malloc(PQTPM_TSS_MAX_PUBLIC), ev_nonce[PQTPM_ATTEST_MAX_NONCE];
	size_t attest_len = 0, sig_len = 0, ev_ak_len = 0, ev_nonce_len = 0, npsel = 0;
	const json_t *akj = json_object_get(ev, "ak"), *quotes = json_object_get(ev, "quotes"),
		     *pcrs = json_object_get(ev, "pcrs"), *q0 = json_array_get(quotes, 0);
	const char *why = NULL, *ev_name = json_string_value(json_object_get(akj, "name")),
		   *profile = json_string_value(json_object_get(ev, "profile")),
		   *nonce = json_string_value(json_object_get(ev, "nonce")),
		   *issued_at = json_string_value(json_object_get(ev, "issued_at"));
	struct quote q;
	const json_t *jlog = json_object_get(ev, "event_log");
	const char *event_log = json_string_value(jlog);
	int64_t issued = 0;
	int log_ok = -1;
	bool parsed = false;

	memset(&q, 0, sizeof(q));
	if (!c.failures || !attest || !sig || !ev_ak) {
		c.nomem = true;
		goto out;
	}
	if (!json_is_object(ev))
		why = "the evidence is not a JSON object";
	else if (!profile || strcmp(profile, PQTPM_ATTEST_PROFILE) != 0)
		why = "\"profile\" is not " PQTPM_ATTEST_PROFILE;
	else if (!nonce || pqtpm_attest_unhex(nonce, ev_nonce, sizeof(ev_nonce), &ev_nonce_len))
		why = "\"nonce\" is no hex of at most 64 bytes";
	else if (!issued_at || parse_time(issued_at, &issued))
		why = "\"issued_at\" is no RFC 3339 UTC time";
	else if (jlog && !event_log)
		why = "\"event_log\" is not a string";
	else if (!json_is_object(akj) || !ev_name)
		why = "\"ak\" is not an object with a name";
	else if ((why = verify_b64_field(akj, "public", ev_ak, PQTPM_TSS_MAX_PUBLIC, &ev_ak_len)))
		;
	else if (!json_is_array(quotes) || json_array_size(quotes) != 1 || !json_is_object(q0))
		why = "\"quotes\" is not an array of one quote";
	else if ((why = verify_b64_field(q0, "attest", attest, MAX_QUOTE, &attest_len)) ||
		 (why = verify_b64_field(q0, "signature", sig, MAX_SIGNATURE, &sig_len)) ||
		 (why = parse_attest(attest, attest_len, &q)) ||
		 (why = parse_pcrs(pcrs, psel, &npsel)))
		;
	else
		parsed = true;
	if (!parsed) {
		verify_failure(&c, "format", "%s", why);
		goto out;
	}
	check_all(&c, o, &q, attest, attest_len, sig, sig_len, ev_ak, ev_ak_len, ev_name, ev_nonce,
		  ev_nonce_len, pcrs, psel, npsel, issued, json_object_get(ev, "ek"), event_log,
		  &log_ok);
out:
	free(attest);
	free(sig);
	free(ev_ak);
	if (c.nomem) {
		json_decref(c.failures);
		return -ENOMEM;
	}
	*result = json_pack("{s:b, s:O, s:o}", "valid", json_array_size(c.failures) == 0,
			    "failures", c.failures, "claims",
			    parsed ? claims_json(&q, pcrs, ev_name, log_ok) : json_object());
	json_decref(c.failures);
	if (!*result)
		return -ENOMEM;
	return json_array_size(json_object_get(*result, "failures")) == 0;
}
