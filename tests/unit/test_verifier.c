/* The verifier (attest/verify.c) on real evidence: quotes by RSA-2048, ECC P-256, ECC P-521
 * and ML-DSA-44/65/87 AKs of an engine in memory, through the attestation library. Valid
 * evidence passes; each tampered field fails with its check's name: signature (every byte of
 * the P-256 and P-521 ECDSA signatures; a signature of another scheme or hash: no
 * downgrade), nonce (evidence and verifier), PCR values, PCR selection, AK attributes (an
 * unknown curve), another AK, each region of the
 * TPMS_ATTEST (magic, type, extraData, clock safe, trailing bytes), malformed base64 and
 * sizes, every byte of the TPMS_ATTEST by its field, --previous (a TPM Reset, a clock that
 * stood still), freshness, and the EK certificate chain (RSA, ECC and ML-KEM EKs of a
 * manufactured state directory: another CA, another EK's certificate, a flipped bit, none),
 * the event log (each digest and PCR index of each event, an event left out, truncated,
 * extended) and reference values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <pqtpm/attest.h>

#include "marshal.h"

#include "harness.h"
#include "unit_main.h"

static const uint8_t nonce[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

struct sample {
	const char *alg, *ek_alg;
	struct pqtpm_attest_ak ak;
	json_t *ev;
};

static struct sample samples[] = {
	{ .alg = "rsa2048", .ek_alg = "rsa2048" }, { .alg = "ecc-p256", .ek_alg = "ecc-p256" },
	{ .alg = "mldsa44", .ek_alg = "mlkem768" }, { .alg = "mldsa65", .ek_alg = "rsa2048" },
	{ .alg = "mldsa87", .ek_alg = "mlkem768" }, { .alg = "ecc-p521", .ek_alg = "ecc-p256" },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))
static struct pqtpm_attest_ak other_ak;
/* evidence of PCR 9 (sha256, sha1) with the event log of two measurements of it */
static json_t *log_ev;
static uint8_t log_buf[2048];
static size_t log_len, log_head, log_event1;
/* the manufacturer CA of the TPM that quoted, and of another */
static struct pqtpm_attest_ca ca, other_ca;
static char dir[64], other_dir[64];

static int load_ca(const char *d, struct pqtpm_attest_ca *out)
{
	char path[128], pem[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/" PQTPM_CA_CERT_NAME, d);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(pem, 1, sizeof(pem), f);
	fclose(f);
	return pqtpm_attest_ca_load(pem, n, out);
}

static int quote_sample(struct pqtpm_tss *t, struct sample *s,
			const struct pqtpm_tss_pcr_select *sel, size_t nsel)
{
	static uint8_t cert[PQTPM_ATTEST_MAX_CERT];
	struct pqtpm_tss_key ekey;
	TPM_HANDLE ek, ak;
	size_t cert_len;

	if (pqtpm_attest_ak_create(t, s->alg, s->ek_alg, &s->ak) ||
	    pqtpm_attest_ek_create(t, s->ek_alg, &ekey) || pqtpm_tss_flush(t, ekey.handle) ||
	    pqtpm_attest_ek_certificate(t, s->ek_alg, cert, sizeof(cert), &cert_len) ||
	    pqtpm_attest_ak_load(t, &s->ak, &ek, &ak) ||
	    pqtpm_attest_quote(t, &s->ak, ak, nonce, sizeof(nonce), sel, nsel, &ekey.pub, cert,
			       cert_len, &s->ev))
		return -1;
	pqtpm_tss_flush(t, ak);
	pqtpm_tss_flush(t, ek);
	return 0;
}

static int measured_sample(struct pqtpm_tss *t, const struct sample *s)
{
	struct pqtpm_tss_pcr_select sel[2];
	TPM_HANDLE ek, ak;
	size_t n, nsel;

	if (pqtpm_attest_measure(t, 9, 0xD, (const uint8_t *)"kernel", 6, NULL, 1, log_buf,
				 sizeof(log_buf), &log_event1) ||
	    pqtpm_attest_measure(t, 9, 0xD, (const uint8_t *)"initrd", 6, NULL, 0,
				 log_buf + log_event1, sizeof(log_buf) - log_event1, &n) ||
	    pqtpm_attest_pcrs_parse("sha256:9+sha1:9", sel, 2, &nsel) ||
	    pqtpm_attest_ak_load(t, &s->ak, &ek, &ak) ||
	    pqtpm_attest_quote(t, &s->ak, ak, nonce, sizeof(nonce), sel, nsel, NULL, NULL, 0,
			       &log_ev))
		return -1;
	log_len = log_event1 + n;
	/* the first event of the SHA-1 and SHA-256 banks: 12 + 2 + 20 + 2 + 32 + 4 + 6 bytes */
	log_head = log_event1 - 78;
	pqtpm_tss_flush(t, ak);
	pqtpm_tss_flush(t, ek);
	return pqtpm_attest_evidence_add_log(log_ev, log_buf, log_len);
}

static int setup_all(void)
{
	static const uint8_t m[32] = { 0x6D };
	struct pqtpm_tss_pcr_select sel[2];
	struct harness h;
	struct pqtpm_tss *t;
	size_t nsel;

	snprintf(dir, sizeof(dir), "/tmp/pqtpm-verifier.%d", (int)getpid());
	snprintf(other_dir, sizeof(other_dir), "/tmp/pqtpm-verifier-other.%d", (int)getpid());
	harness_rm_tree(dir);
	harness_rm_tree(other_dir);
	harness_open_dir(&h, other_dir);
	harness_close(&h);
	harness_open_dir(&h, dir);
	if (load_ca(dir, &ca) || load_ca(other_dir, &other_ca) ||
	    pqtpm_tss_open_engine(&t, h.e) || pqtpm_tss_pcr_extend(t, 16, TPM_ALG_SHA256, m, 32) ||
	    pqtpm_attest_pcrs_parse("sha256:0,16+sha1:7", sel, 2, &nsel))
		return -1;
	for (size_t i = 0; i < NSAMPLES; i++)
		if (quote_sample(t, &samples[i], sel, nsel))
			return -1;
	if (pqtpm_attest_ak_create(t, "ecc-p256", "rsa2048", &other_ak) ||
	    measured_sample(t, &samples[1]))
		return -1;
	pqtpm_tss_close(t);
	harness_close(&h);
	harness_rm_tree(dir);
	harness_rm_tree(other_dir);
	return 0;
}

static int teardown_all(void)
{
	for (size_t i = 0; i < NSAMPLES; i++)
		json_decref(samples[i].ev);
	json_decref(log_ev);
	return 0;
}

static struct pqtpm_attest_verify_opts opts_for(const struct sample *s)
{
	struct pqtpm_attest_verify_opts o = { .trusted_ak = s->ak.pub.b,
					      .trusted_ak_len = s->ak.pub.size,
					      .nonce = nonce, .nonce_len = sizeof(nonce),
					      .now = 0 };

	return o;
}

/* verify; returns the result (valid or not as want_valid), the caller frees */
static json_t *run(const json_t *ev, const struct pqtpm_attest_verify_opts *o, int want_valid)
{
	json_t *r = NULL;
	int v = pqtpm_attest_verify(ev, o, &r);

	CU_ASSERT_EQUAL(v, want_valid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(json_is_true(json_object_get(r, "valid")), want_valid);
	return r;
}

static bool failed(const json_t *r, const char *check)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(r, "failures"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "check")), check) == 0)
			return true;
	return false;
}

/* expect invalid with check among the failures */
static void expect(const json_t *ev, const struct pqtpm_attest_verify_opts *o, const char *check)
{
	json_t *r = run(ev, o, 0);

	CU_ASSERT(failed(r, check));
	if (!failed(r, check)) {
		char *got = json_dumps(json_object_get(r, "failures"), 0);

		fprintf(stderr, "\n  wanted %s in %s\n", check, got ? got : "?");
		free(got);
	}
	json_decref(r);
}

/* expect invalid with check among the failures, its detail containing text */
static void expect_detail(const json_t *ev, const struct pqtpm_attest_verify_opts *o,
			  const char *check, const char *text)
{
	json_t *r = run(ev, o, 0), *f;
	bool seen = false;
	size_t i;

	json_array_foreach(json_object_get(r, "failures"), i, f)
		seen |= strcmp(json_string_value(json_object_get(f, "check")), check) == 0 &&
			strstr(json_string_value(json_object_get(f, "detail")), text) != NULL;
	CU_ASSERT(seen);
	if (!seen) {
		char *got = json_dumps(json_object_get(r, "failures"), 0);

		fprintf(stderr, "\n  wanted %s (%s) in %s\n", check, text, got ? got : "?");
		free(got);
	}
	json_decref(r);
}

/* a copy of the evidence with a base64url blob (quotes[0].KEY) changed by fn */
static json_t *with_blob(const json_t *ev, const char *key,
			 void (*fn)(uint8_t *b, size_t *len, size_t arg), size_t arg)
{
	json_t *c = json_deep_copy(ev), *q = json_array_get(json_object_get(c, "quotes"), 0);
	static uint8_t b[8192];
	size_t len;
	char *s;

	CU_ASSERT_EQUAL_FATAL(pqtpm_attest_unb64url(json_string_value(json_object_get(q, key)), b,
						    sizeof(b) - 1, &len), 0);
	fn(b, &len, arg);
	s = pqtpm_attest_b64url(b, len);
	json_object_set_new(q, key, json_string(s));
	free(s);
	return c;
}

static void flip(uint8_t *b, size_t *len, size_t at)
{
	b[at < *len ? at : *len - 1] ^= 0x01;
}

static void append(uint8_t *b, size_t *len, size_t v)
{
	b[(*len)++] = (uint8_t)v;
}

static void truncate_to(uint8_t *b, size_t *len, size_t n)
{
	(void)b;
	*len = n;
}

/* the TPMT_SIGNATURE's sigAlg (at 0) or hash (at 2) set to v */
static void set_u16(uint8_t *b, size_t at, size_t v)
{
	b[at] = (uint8_t)(v >> 8);
	b[at + 1] = (uint8_t)v;
}

static void set_sig_alg(uint8_t *b, size_t *len, size_t v)
{
	(void)len;
	set_u16(b, 0, v);
}

static void set_sig_hash(uint8_t *b, size_t *len, size_t v)
{
	(void)len;
	set_u16(b, 2, v);
}

static void test_valid(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		json_t *r = run(samples[i].ev, &o, 1);

		CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "failures")), 0);
		CU_ASSERT(json_is_integer(json_object_get(json_object_get(r, "claims"), "clock")));
		json_decref(r);
	}
}

/* offsets in a TPMS_ATTEST: magic 0, type 4, qualifiedSigner size 6 then the Name (34 for
 * SHA-256), extraData size, extraData, clock, resetCount, restartCount, safe */
#define OFF_EXTRA (6 + 2 + 34 + 2)
#define OFF_SAFE (OFF_EXTRA + sizeof(nonce) + 8 + 4 + 4)

static void test_tampered_attest(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		json_t *c;

		c = with_blob(samples[i].ev, "signature", flip, 40);
		expect(c, &o, "signature");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", flip, 0);
		expect(c, &o, "magic");
		expect(c, &o, "signature");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", flip, 5);
		expect(c, &o, "type");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", flip, OFF_EXTRA);
		expect(c, &o, "nonce");
		expect(c, &o, "signature");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", flip, OFF_SAFE);
		expect(c, &o, "clock-safe");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", append, 0);
		expect(c, &o, "format");
		json_decref(c);
		c = with_blob(samples[i].ev, "attest", truncate_to, 20);
		expect(c, &o, "format");
		json_decref(c);
		/* the last byte is the pcrDigest's */
		c = with_blob(samples[i].ev, "attest", flip, 10000);
		expect(c, &o, "pcr-digest");
		expect(c, &o, "signature");
		json_decref(c);
	}
}

/* Every byte of a quote's TPMS_ATTEST, by the field it is in: the check that must fail when it
 * changes. A size or count breaks the structure (format, before any other check can run);
 * every other byte breaks the signature and, where the verifier reads the field, its own
 * check. A sizeofSelect does either: a select one byte shorter may still parse, as another
 * selection. Fields the verifier has nothing to compare with (qualifiedSigner, clock, the counts
 * without --previous, firmwareVersion) are caught by the signature alone. */
struct attest_map {
	const char *field[PQTPM_TSS_MAX_ATTEST], *check[PQTPM_TSS_MAX_ATTEST];
	bool or_format[PQTPM_TSS_MAX_ATTEST];
	size_t len;
};

static void span(struct attest_map *m, const struct rd *r, size_t from, const char *field,
		 const char *check)
{
	for (size_t i = from; i < r->off; i++) {
		m->field[i] = field;
		m->check[i] = check;
		m->or_format[i] = false;
	}
}

static void map_attest(const json_t *ev, struct attest_map *m)
{
	const json_t *q = json_array_get(json_object_get(ev, "quotes"), 0);
	static uint8_t b[PQTPM_TSS_MAX_ATTEST];
	const uint8_t *skip;
	uint16_t n, hash;
	uint32_t u32, count;
	uint64_t u64;
	uint8_t u8;
	struct rd r;
	size_t at;

	CU_ASSERT_EQUAL_FATAL(pqtpm_attest_unb64url(json_string_value(json_object_get(q, "attest")),
						    b, sizeof(b), &m->len), 0);
	rd_init(&r, b, m->len);
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &u32), TPM_RC_SUCCESS);
	span(m, &r, at, "magic", "magic");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u16(&r, &n), TPM_RC_SUCCESS);
	span(m, &r, at, "type", "type");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u16(&r, &n), TPM_RC_SUCCESS);
	span(m, &r, at, "qualifiedSigner size", "format");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_view(&r, n, &skip), TPM_RC_SUCCESS);
	span(m, &r, at, "qualifiedSigner", "signature");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u16(&r, &n), TPM_RC_SUCCESS);
	span(m, &r, at, "extraData size", "format");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_view(&r, n, &skip), TPM_RC_SUCCESS);
	span(m, &r, at, "extraData", "nonce");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u64(&r, &u64), TPM_RC_SUCCESS);
	span(m, &r, at, "clockInfo.clock", "signature");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &u32), TPM_RC_SUCCESS);
	span(m, &r, at, "clockInfo.resetCount", "signature");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &u32), TPM_RC_SUCCESS);
	span(m, &r, at, "clockInfo.restartCount", "signature");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u8(&r, &u8), TPM_RC_SUCCESS);
	span(m, &r, at, "clockInfo.safe", "clock-safe");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u64(&r, &u64), TPM_RC_SUCCESS);
	span(m, &r, at, "firmwareVersion", "signature");
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u32(&r, &count), TPM_RC_SUCCESS);
	span(m, &r, at, "pcrSelect count", "format");
	CU_ASSERT_FATAL(count > 0 && count <= PQTPM_TSS_MAX_BANKS);
	for (uint32_t i = 0; i < count; i++) {
		at = r.off;
		CU_ASSERT_EQUAL_FATAL(rd_u16(&r, &hash), TPM_RC_SUCCESS);
		span(m, &r, at, "pcrSelect hash", "pcr-selection");
		at = r.off;
		CU_ASSERT_EQUAL_FATAL(rd_u8(&r, &u8), TPM_RC_SUCCESS);
		span(m, &r, at, "sizeofSelect", "pcr-selection");
		m->or_format[at] = true;
		at = r.off;
		CU_ASSERT_EQUAL_FATAL(rd_view(&r, u8, &skip), TPM_RC_SUCCESS);
		span(m, &r, at, "pcrSelect", "pcr-selection");
	}
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_u16(&r, &n), TPM_RC_SUCCESS);
	span(m, &r, at, "pcrDigest size", "format");
	CU_ASSERT_FATAL(n > 0);
	at = r.off;
	CU_ASSERT_EQUAL_FATAL(rd_view(&r, n, &skip), TPM_RC_SUCCESS);
	span(m, &r, at, "pcrDigest", "pcr-digest");
	CU_ASSERT_EQUAL_FATAL(rd_left(&r), 0);
}

/* one byte changed: invalid, with its field's check, and the signature's unless the
 * structure no longer parses; says which byte of which AK when not */
static void expect_byte(const struct sample *s, const struct attest_map *m, size_t at)
{
	struct pqtpm_attest_verify_opts o = opts_for(s);
	json_t *c = with_blob(s->ev, "attest", flip, at), *r = NULL;
	int v = pqtpm_attest_verify(c, &o, &r);
	bool broke = r && strcmp(m->check[at], "format") == 0;
	bool good = v == 0 && r && json_is_false(json_object_get(r, "valid")) &&
		    ((m->or_format[at] && failed(r, "format")) ||
		     (failed(r, m->check[at]) && (broke || failed(r, "signature"))));

	CU_ASSERT(good);
	if (!good) {
		char *got = r ? json_dumps(json_object_get(r, "failures"), 0) : NULL;

		fprintf(stderr, "\n  %s: byte %zu (%s) wanted %s in %s\n", s->alg, at, m->field[at],
			m->check[at], got ? got : "no result");
		free(got);
	}
	json_decref(r);
	json_decref(c);
}

static void test_every_attest_byte(void)
{
	static struct attest_map m;

	for (size_t i = 0; i < NSAMPLES; i++) {
		map_attest(samples[i].ev, &m);
		for (size_t at = 0; at < m.len; at++)
			expect_byte(&samples[i], &m, at);
	}
}

/* A signature of another scheme, or of the AK's scheme with another hash, is refused before
 * it is verified, whatever it would verify as: each other hash for the AK's (SHA-1: a
 * downgrade; for P-521's SHA-512 the shorter ones too), EC Schnorr or ECDSA for its scheme. */
static void test_no_downgrade(void)
{
	static const uint16_t hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					   TPM_ALG_SHA512 };

	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		const json_t *q = json_array_get(json_object_get(samples[i].ev, "quotes"), 0);
		static uint8_t sig[8192];
		uint16_t scheme, own;
		size_t len;
		json_t *c;

		CU_ASSERT_EQUAL_FATAL(pqtpm_attest_unb64url(
			json_string_value(json_object_get(q, "signature")), sig, sizeof(sig), &len), 0);
		scheme = (uint16_t)(sig[0] << 8 | sig[1]);
		own = (uint16_t)(sig[2] << 8 | sig[3]);
		c = with_blob(samples[i].ev, "signature", set_sig_alg,
			      scheme == TPM_ALG_ECDSA ? TPM_ALG_ECSCHNORR : TPM_ALG_ECDSA);
		expect_detail(c, &o, "signature", "another scheme");
		json_decref(c);
		if (scheme == TPM_ALG_MLDSA) /* pure ML-DSA has no hash in its signature */
			continue;
		for (size_t h = 0; h < sizeof(hashes) / sizeof(hashes[0]); h++) {
			if (hashes[h] == own)
				continue;
			c = with_blob(samples[i].ev, "signature", set_sig_hash, hashes[h]);
			expect_detail(c, &o, "signature", "another hash");
			json_decref(c);
		}
	}
}

/* the top bit of a byte set: in P-521's first byte of r or s (0 or 1), a value above the order */
static void set_top_bit(uint8_t *b, size_t *len, size_t at)
{
	(void)len;
	b[at] |= 0x80;
}

/* Every byte of each ECDSA AK's quote signature flipped, one at a time: sigAlg, hash, the two
 * sizes, r and s. Each copy is refused by the signature check, none by a crash or as valid.
 * The TPM writes r and s at the curve's size (66 bytes for P-521, whose first byte holds one
 * bit of the value); P-521's r or s with that byte's top bit set is above the order. */
static void test_every_ecdsa_signature_byte(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		const json_t *q = json_array_get(json_object_get(samples[i].ev, "quotes"), 0);
		static uint8_t sig[8192];
		size_t len, n;
		json_t *c;

		if (strncmp(samples[i].alg, "ecc", 3) != 0)
			continue;
		n = strcmp(samples[i].alg, "ecc-p521") == 0 ? 66 : 32;
		CU_ASSERT_EQUAL_FATAL(pqtpm_attest_unb64url(
			json_string_value(json_object_get(q, "signature")), sig, sizeof(sig), &len), 0);
		CU_ASSERT_EQUAL_FATAL(len, 4 + 2 * (2 + n));
		CU_ASSERT_EQUAL(sig[0] << 8 | sig[1], TPM_ALG_ECDSA);
		CU_ASSERT_EQUAL(sig[4] << 8 | sig[5], n);
		CU_ASSERT_EQUAL(sig[6 + n] << 8 | sig[7 + n], n);
		for (size_t at = 0; at < len; at++) {
			c = with_blob(samples[i].ev, "signature", flip, at);
			expect(c, &o, "signature");
			json_decref(c);
		}
		if (n != 66)
			continue;
		CU_ASSERT(sig[6] <= 1 && sig[8 + n] <= 1);
		c = with_blob(samples[i].ev, "signature", set_top_bit, 6);
		expect_detail(c, &o, "signature", "does not verify");
		json_decref(c);
		c = with_blob(samples[i].ev, "signature", set_top_bit, 8 + n);
		expect_detail(c, &o, "signature", "does not verify");
		json_decref(c);
	}
}

static void test_nonce(void)
{
	static const uint8_t wrong[] = { 1, 2, 3, 4, 5, 6, 7, 9 };

	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		json_t *c = json_deep_copy(samples[i].ev);

		o.nonce = wrong;
		expect(samples[i].ev, &o, "nonce");
		o.nonce = nonce;
		o.nonce_len = sizeof(nonce) - 1; /* a prefix is no match */
		expect(samples[i].ev, &o, "nonce");
		o.nonce_len = sizeof(nonce);
		json_object_set_new(c, "nonce", json_string("0102030405060709"));
		expect(c, &o, "nonce");
		json_decref(c);
	}
}

static void test_pcrs(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		json_t *c = json_deep_copy(samples[i].ev);
		json_t *bank = json_object_get(json_object_get(c, "pcrs"), "sha256");

		json_object_set_new(bank, "16", json_string("00000000000000000000000000000000"
							    "00000000000000000000000000000001"));
		expect(c, &o, "pcr-digest");
		json_decref(c);
		c = json_deep_copy(samples[i].ev);
		bank = json_object_get(json_object_get(c, "pcrs"), "sha256");
		json_object_set_new(bank, "5", json_string("00000000000000000000000000000000"
							   "00000000000000000000000000000000"));
		expect(c, &o, "pcr-selection");
		json_decref(c);
		c = json_deep_copy(samples[i].ev);
		json_object_del(json_object_get(json_object_get(c, "pcrs"), "sha256"), "0");
		expect(c, &o, "pcr-selection");
		expect(c, &o, "pcr-digest");
		json_decref(c);
		c = json_deep_copy(samples[i].ev);
		json_object_set_new(json_object_get(json_object_get(c, "pcrs"), "sha256"), "16",
				    json_string("00"));
		expect(c, &o, "format");
		json_decref(c);
	}
}

static void test_ak(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		struct pqtpm_tss_public pub = samples[i].ak.pub;

		/* TPMA_OBJECT is at offset 4: restricted (bit 16) cleared */
		pub.b[5] &= (uint8_t)~0x01;
		o.trusted_ak = pub.b;
		expect(samples[i].ev, &o, "ak-attributes");
		expect(samples[i].ev, &o, "ak-mismatch");
		/* ECC: the curve (TPMS_ECC_PARMS after the NULL symmetric and the ECDSA scheme, at
		 * offset 16) one the verifier does not take, NIST P-192 */
		if (strncmp(samples[i].alg, "ecc", 3) == 0) {
			struct pqtpm_attest_verify_opts e = opts_for(&samples[i]);
			struct pqtpm_tss_public weak = samples[i].ak.pub;

			CU_ASSERT_EQUAL(weak.b[16] << 8 | weak.b[17],
					strcmp(samples[i].alg, "ecc-p256") == 0 ? TPM_ECC_NIST_P256
										: TPM_ECC_NIST_P521);
			weak.b[16] = 0;
			weak.b[17] = TPM_ECC_NIST_P192;
			e.trusted_ak = weak.b;
			expect_detail(samples[i].ev, &e, "ak-attributes", "ECC curve 0x0001");
		}
		/* another AK is trusted: neither its key nor its Name is the evidence's */
		o.trusted_ak = other_ak.pub.b;
		o.trusted_ak_len = other_ak.pub.size;
		expect(samples[i].ev, &o, "ak-mismatch");
		expect(samples[i].ev, &o, "signature");
	}
}

static void test_ek_certificate(void)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		struct pqtpm_attest_verify_opts o = opts_for(&samples[i]);
		json_t *c, *ek;
		char *s;
		size_t len;
		static uint8_t b[4096];

		o.ca = &ca;
		json_decref(run(samples[i].ev, &o, 1));
		/* another manufacturer's CA */
		o.ca = &other_ca;
		expect(samples[i].ev, &o, "ek-certificate");
		o.ca = &ca;
		/* the certificate of another EK */
		c = json_deep_copy(samples[i].ev);
		json_object_set(json_object_get(c, "ek"), "certificate",
				json_object_get(json_object_get(samples[(i + 1) % NSAMPLES].ev, "ek"),
						"certificate"));
		expect(c, &o, "ek-certificate");
		json_decref(c);
		/* one bit of the certificate (its key, near the middle) */
		c = json_deep_copy(samples[i].ev);
		ek = json_object_get(c, "ek");
		CU_ASSERT_EQUAL_FATAL(pqtpm_attest_unb64url(
			json_string_value(json_object_get(ek, "certificate")), b, sizeof(b), &len), 0);
		b[len / 2] ^= 0x10;
		s = pqtpm_attest_b64url(b, len);
		json_object_set_new(ek, "certificate", json_string(s));
		free(s);
		expect(c, &o, "ek-certificate");
		/* no EK at all */
		json_object_del(c, "ek");
		expect(c, &o, "ek-certificate");
		json_decref(c);
	}
}

/* the evidence with log bytes changed by fn */
static json_t *with_log(void (*fn)(uint8_t *b, size_t *len, size_t arg), size_t arg)
{
	static uint8_t b[sizeof(log_buf) + 1];
	json_t *c = json_deep_copy(log_ev);
	size_t len = log_len;
	char *s;

	memcpy(b, log_buf, log_len);
	fn(b, &len, arg);
	s = pqtpm_attest_b64url(b, len);
	json_object_set_new(c, "event_log", json_string(s));
	free(s);
	return c;
}

static void test_event_log(void)
{
	struct pqtpm_attest_verify_opts o = opts_for(&samples[1]);
	/* the events: pcr, type, count, then sha1 (2 + 20) and sha256 (2 + 32), size, data */
	const size_t ev1 = log_head, ev2 = log_event1, digests[] = { 12 + 2, 12 + 2 + 20 + 2 };
	json_t *r = run(log_ev, &o, 1), *c;

	CU_ASSERT(json_is_true(json_object_get(json_object_get(r, "claims"), "event_log_ok")));
	json_decref(r);
	for (size_t e = 0; e < 2; e++) {
		size_t at = e ? ev2 : ev1;

		c = with_log(flip, at); /* the PCR index */
		expect(c, &o, "event-log");
		json_decref(c);
		for (size_t d = 0; d < 2; d++)
			for (size_t k = 0; k < (d ? 32u : 20u); k++) {
				c = with_log(flip, at + digests[d] + k);
				expect(c, &o, "event-log");
				json_decref(c);
			}
	}
	c = with_log(truncate_to, ev2); /* the last event left out */
	expect(c, &o, "event-log");
	json_decref(c);
	c = with_log(truncate_to, log_len - 1);
	expect(c, &o, "event-log");
	json_decref(c);
	c = with_log(append, 0);
	expect(c, &o, "event-log");
	json_decref(c);
	c = with_log(flip, 40); /* the Spec ID signature */
	expect(c, &o, "event-log");
	json_decref(c);
	c = json_deep_copy(log_ev);
	json_object_set_new(c, "event_log", json_string("@@"));
	expect(c, &o, "format");
	json_decref(c);
}

static void test_policy(void)
{
	struct pqtpm_attest_verify_opts o = opts_for(&samples[0]);
	const char *pcr16 = json_string_value(
		json_object_get(json_object_get(json_object_get(samples[0].ev, "pcrs"), "sha256"),
				"16"));
	static const char zero[] = "0000000000000000000000000000000000000000000000000000000000000000";
	json_t *pol;

	pol = json_pack("{s:{s:{s:s, s:[s, s]}}}", "pcrs", "sha256", "0", zero, "16", zero, pcr16);
	o.policy = pol;
	json_decref(run(samples[0].ev, &o, 1));
	json_decref(pol);
	pol = json_pack("{s:{s:{s:[s]}}}", "pcrs", "sha256", "16", zero);
	o.policy = pol;
	expect(samples[0].ev, &o, "reference-values");
	json_decref(pol);
	pol = json_pack("{s:{s:{s:s}}}", "pcrs", "sha256", "7", zero); /* not quoted */
	o.policy = pol;
	expect(samples[0].ev, &o, "reference-values");
	json_decref(pol);
	pol = json_pack("{s:{s:{s:i}}}", "pcrs", "sha256", "0", 0);
	o.policy = pol;
	expect(samples[0].ev, &o, "reference-values");
	json_decref(pol);
	pol = json_pack("{s:s}", "pcrs", "all");
	o.policy = pol;
	expect(samples[0].ev, &o, "reference-values");
	json_decref(pol);
}

static void test_format(void)
{
	struct pqtpm_attest_verify_opts o = opts_for(&samples[0]);
	json_t *c = json_deep_copy(samples[0].ev), *q = json_array_get(json_object_get(c, "quotes"), 0);

	json_object_set_new(q, "signature", json_string("AB=="));
	expect(c, &o, "format");
	json_object_set_new(q, "signature", json_string("A"));
	expect(c, &o, "format");
	json_decref(c);
	c = json_deep_copy(samples[0].ev);
	json_object_set_new(c, "profile", json_string("tag:other"));
	expect(c, &o, "format");
	json_decref(c);
	c = json_array();
	expect(c, &o, "format");
	json_decref(c);
}

static void test_previous(void)
{
	struct pqtpm_attest_verify_opts o = opts_for(&samples[0]);
	json_t *r = run(samples[0].ev, &o, 1), *prev = json_deep_copy(r),
	       *claims = json_object_get(prev, "claims");
	json_int_t reset = json_integer_value(json_object_get(claims, "reset_count"));

	/* the same evidence again: Clock stood still */
	o.previous = r;
	expect(samples[0].ev, &o, "clock");
	/* the previous one was before a TPM Reset: resetCount differs */
	json_object_set_new(claims, "reset_count", json_integer(reset - 1));
	o.previous = prev;
	expect(samples[0].ev, &o, "reset-count");
	json_object_set_new(claims, "reset_count", json_integer(reset));
	json_object_set_new(claims, "restart_count", json_integer(5));
	expect(samples[0].ev, &o, "restart-count");
	json_object_set_new(claims, "restart_count", json_integer(0));
	json_object_set_new(claims, "clock", json_integer(0));
	json_decref(run(samples[0].ev, &o, 1));
	json_decref(r);
	json_decref(prev);
}

static void test_freshness(void)
{
	struct pqtpm_attest_verify_opts o = opts_for(&samples[0]);
	json_t *c = json_deep_copy(samples[0].ev);

	json_object_set_new(c, "issued_at", json_string("2026-01-01T00:00:00Z"));
	o.max_age = 60;
	o.now = 1767225600 + 30; /* 2026-01-01T00:00:30Z */
	json_decref(run(c, &o, 1));
	o.now = 1767225600 + 61;
	expect(c, &o, "freshness");
	o.now = 1767225600 - 600; /* issued in the verifier's future */
	expect(c, &o, "freshness");
	json_object_set_new(c, "issued_at", json_string("yesterday"));
	expect(c, &o, "format");
	json_decref(c);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "valid evidence of every AK", test_valid },
		{ "tampered TPMS_ATTEST and signature", test_tampered_attest },
		{ "no signature of another scheme or hash", test_no_downgrade },
		{ "every byte of an ECDSA signature (P-256, P-521)", test_every_ecdsa_signature_byte },
		{ "every byte of the TPMS_ATTEST", test_every_attest_byte },
		{ "nonce", test_nonce },
		{ "PCR values and selection", test_pcrs },
		{ "AK attributes and another AK", test_ak },
		{ "EK certificate chain", test_ek_certificate },
		{ "event log", test_event_log },
		{ "reference values", test_policy },
		{ "format", test_format },
		{ "previous result", test_previous },
		{ "freshness", test_freshness },
	};

	if (setup_all()) {
		fprintf(stderr, "test_verifier: making the evidence failed\n");
		return 1;
	}
	int rc = UNIT_RUN("verifier", tests, NULL, NULL);

	teardown_all();
	return rc;
}
