/* Endorsement (core/endorse): the DER writer's length forms and bounds, PEM, the
 * SubjectPublicKeyInfo of ECC P-256/P-384/P-521 points (RFC 5480), and the manufacturing of a state directory: three EK certificate indices with the profile's
 * attributes, made once (a second open keeps them and the CA), and made at a later open when
 * they could not be made at the first (the TPM opens without them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/der.h"
#include "endorse/endorse.h"
#include "crypto/pem.h"
#include "crypto/spki.h"
#include "harness.h"
#include "nv/nv.h"
#include "unit_main.h"

static uint8_t buf[70000], content[66000];

static void test_der_lengths(void)
{
	static const struct { size_t n; uint8_t hdr[4]; size_t hlen; } cases[] = {
		{ 0, { 0x04, 0x00 }, 2 },
		{ 127, { 0x04, 0x7F }, 2 },
		{ 128, { 0x04, 0x81, 0x80 }, 3 },
		{ 255, { 0x04, 0x81, 0xFF }, 3 },
		{ 256, { 0x04, 0x82, 0x01, 0x00 }, 4 },
		{ 65535, { 0x04, 0x82, 0xFF, 0xFF }, 4 },
	};
	struct der d;
	size_t len;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(content, 0x5A, cases[i].n);
		der_init(&d, buf, sizeof(buf));
		der_tlv(&d, DER_OCTET_STRING, content, cases[i].n);
		CU_ASSERT_EQUAL_FATAL(der_finish(&d, &len), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(len, cases[i].hlen + cases[i].n);
		CU_ASSERT_EQUAL(memcmp(buf, cases[i].hdr, cases[i].hlen), 0);
		CU_ASSERT(cases[i].n == 0 || buf[len - 1] == 0x5A);
	}
	der_init(&d, buf, sizeof(buf));
	der_tlv(&d, DER_OCTET_STRING, content, 65536);
	CU_ASSERT_EQUAL(der_finish(&d, &len), TPM_RC_SIZE);
}

static void test_der_nesting(void)
{
	static const uint8_t want[] = { 0x30, 0x81, 0x83, 0x30, 0x81, 0x80 };
	struct der d;
	size_t len;

	memset(content, 1, 128);
	der_init(&d, buf, sizeof(buf));
	der_open(&d, DER_SEQUENCE);
	der_open(&d, DER_SEQUENCE);
	der_raw(&d, content, 128);
	der_close(&d);
	der_close(&d);
	CU_ASSERT_EQUAL_FATAL(der_finish(&d, &len), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, 6 + 128);
	CU_ASSERT_EQUAL(memcmp(buf, want, sizeof(want)), 0);
	/* left open, closed once too often, too deep */
	der_init(&d, buf, sizeof(buf));
	der_open(&d, DER_SEQUENCE);
	CU_ASSERT_EQUAL(der_finish(&d, &len), TPM_RC_SIZE);
	der_init(&d, buf, sizeof(buf));
	der_close(&d);
	CU_ASSERT_EQUAL(der_finish(&d, &len), TPM_RC_SIZE);
	der_init(&d, buf, sizeof(buf));
	for (int i = 0; i <= DER_MAX_DEPTH; i++)
		der_open(&d, DER_SEQUENCE);
	for (int i = 0; i <= DER_MAX_DEPTH; i++)
		der_close(&d);
	CU_ASSERT_EQUAL(der_finish(&d, &len), TPM_RC_SIZE);
}

static void test_der_bounds(void)
{
	struct der d;
	size_t len;

	/* every buffer size short of the whole gives TPM_RC_SIZE, never a write past it */
	memset(content, 2, 200);
	for (size_t cap = 0; cap <= 206; cap++) {
		uint8_t small[210];

		memset(small, 0xEE, sizeof(small));
		der_init(&d, small, cap);
		der_open(&d, DER_SEQUENCE);
		der_tlv(&d, DER_OCTET_STRING, content, 200);
		der_close(&d);
		CU_ASSERT_EQUAL(der_finish(&d, &len), cap < 206 ? TPM_RC_SIZE : TPM_RC_SUCCESS);
		CU_ASSERT(cap < 206 || len == 206);
		for (size_t i = cap; i < sizeof(small); i++)
			CU_ASSERT_EQUAL(small[i], 0xEE);
	}
}

static void test_der_integers_bits(void)
{
	static const uint8_t zeros[3] = { 0, 0, 0 }, high[2] = { 0x00, 0x80 }, one_bit = 0x20;
	static const uint8_t want[] = { 0x02, 0x01, 0x00, 0x02, 0x02, 0x00, 0x80,
					0x02, 0x03, 0x01, 0x00, 0x01, 0x03, 0x02, 0x05, 0x20 };
	struct der d;
	size_t len;

	der_init(&d, buf, sizeof(buf));
	der_uint(&d, zeros, sizeof(zeros));
	der_uint(&d, high, sizeof(high));
	der_uint32(&d, 65537);
	der_bits(&d, &one_bit, 1, 5);
	CU_ASSERT_EQUAL_FATAL(der_finish(&d, &len), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(len, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(buf, want, sizeof(want)), 0);
	/* an unused bit that is set is no DER */
	der_init(&d, buf, sizeof(buf));
	der_bits(&d, &one_bit, 1, 6);
	CU_ASSERT_EQUAL(der_finish(&d, &len), TPM_RC_SIZE);
}

static void test_pem(void)
{
	static const uint8_t der[] = { 'a', 'b', 'c', 'd' };
	static const char want[] = "-----BEGIN X-----\nYWJjZA==\n-----END X-----\n";
	char out[128];

	CU_ASSERT_EQUAL(pem_encode("X", der, sizeof(der), out, sizeof(out)), strlen(want));
	CU_ASSERT_STRING_EQUAL(out, want);
	CU_ASSERT_EQUAL(pem_encode("X", der, sizeof(der), out, 20), 0);
	memset(content, 0, 48);
	CU_ASSERT_EQUAL(pem_encode("X", content, 48, out, sizeof(out)), 18 + 64 + 1 + 16);
	CU_ASSERT_EQUAL(out[18 + 64], '\n');
}

/* id-ecPublicKey with the curve's OID, the uncompressed point in a BIT STRING: the bytes
 * before x (the SEQUENCE of P-521 needs the long length form, 0x81) */
static void test_spki_ecc(void)
{
	static const uint8_t p256[] = { 0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE,
					0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D,
					0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04 };
	static const uint8_t p384[] = { 0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48,
					0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B, 0x81, 0x04,
					0x00, 0x22, 0x03, 0x62, 0x00, 0x04 };
	static const uint8_t p521[] = { 0x30, 0x81, 0x9B, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86,
					0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B, 0x81,
					0x04, 0x00, 0x23, 0x03, 0x81, 0x86, 0x00, 0x04 };
	static const struct {
		enum spki_kind kind;
		size_t n;
		const uint8_t *head;
		size_t head_len;
	} curves[] = {
		{ SPKI_ECC_P256, 32, p256, sizeof(p256) },
		{ SPKI_ECC_P384, 48, p384, sizeof(p384) },
		{ SPKI_ECC_P521, 66, p521, sizeof(p521) },
	};
	uint8_t x[66], y[66];
	char pem[512];

	memset(x, 0x11, sizeof(x));
	memset(y, 0x22, sizeof(y));
	for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++) {
		struct spki_key k = { .kind = curves[i].kind, .a = x, .alen = curves[i].n, .b = y,
				      .blen = curves[i].n };
		struct der d;
		size_t len;

		der_init(&d, buf, sizeof(buf));
		spki_write(&d, &k);
		CU_ASSERT_EQUAL_FATAL(der_finish(&d, &len), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(len, curves[i].head_len + 2 * curves[i].n);
		CU_ASSERT_EQUAL(memcmp(buf, curves[i].head, curves[i].head_len), 0);
		CU_ASSERT_EQUAL(memcmp(buf + curves[i].head_len, x, curves[i].n), 0);
		CU_ASSERT_EQUAL(memcmp(buf + curves[i].head_len + curves[i].n, y, curves[i].n), 0);
		CU_ASSERT(spki_pem(&k, pem, sizeof(pem)) > 0);
	}
}

/* NV_ReadPublic's attributes and size and the data of an index, through the engine */
static TPM_RC read_index(struct harness *h, TPM_HANDLE idx, uint32_t *attrs, uint8_t *data,
			 uint16_t *size)
{
	struct cmdbuf b;
	struct rd r;
	uint16_t sz, name_alg, pol, got = 0;
	uint32_t handle;

	cmd_begin(&b, TPM_CC_NV_ReadPublic);
	cmd_handle(&b, idx);
	TRY(harness_run(h, &b, &r, NULL));
	TRY(rd_u16(&r, &sz));
	TRY(rd_u32(&r, &handle));
	TRY(rd_u16(&r, &name_alg));
	TRY(rd_u32(&r, attrs));
	TRY(rd_u16(&r, &pol));
	r.off += pol;
	TRY(rd_u16(&r, size));
	while (got < *size) {
		uint16_t n = *size - got > 1024 ? 1024 : *size - got, rn;

		cmd_begin(&b, TPM_CC_NV_Read);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_handle(&b, idx);
		cmd_auth_pw(&b, "");
		wr_u16(&b.params, n);
		wr_u16(&b.params, got);
		TRY(harness_run(h, &b, &r, NULL));
		TRY(rd_tpm2b(&r, data + got, n, &rn));
		got += rn;
	}
	return TPM_RC_SUCCESS;
}

static char dir[64];

static void open_dir(struct harness *h)
{
	harness_open_dir(h, dir);
}

static void test_manufacture(void)
{
	static const TPM_HANDLE idx[] = { EK_CERT_RSA2048, EK_CERT_ECC_P256, EK_CERT_MLKEM768 };
	static uint8_t first[3][NV_INDEX_MAX_RELEASED], again[NV_INDEX_MAX_RELEASED];
	uint16_t size[3], size2;
	uint32_t attrs;
	struct harness h;
	struct stat st;
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/pqtpm-endorse.%d", (int)getpid());
	harness_rm_tree(dir);
	open_dir(&h);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(read_index(&h, idx[i], &attrs, first[i], &size[i]),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(attrs & (TPMA_NV_PPWRITE | TPMA_NV_PLATFORMCREATE |
					 TPMA_NV_OWNERREAD | TPMA_NV_AUTHREAD | TPMA_NV_WRITELOCKED),
				TPMA_NV_PPWRITE | TPMA_NV_PLATFORMCREATE | TPMA_NV_OWNERREAD |
					TPMA_NV_AUTHREAD | TPMA_NV_WRITELOCKED);
		CU_ASSERT_EQUAL(attrs & (TPMA_NV_OWNERWRITE | TPMA_NV_AUTHWRITE), 0);
		CU_ASSERT_EQUAL(first[i][0], 0x30); /* a certificate: one SEQUENCE */
	}
	/* the ML-KEM-768 certificate (1184-byte key) fits a released TSS's 2048 bytes */
	CU_ASSERT(size[2] > 1184 && size[2] <= NV_INDEX_MAX_RELEASED);
	harness_close(&h);
	snprintf(path, sizeof(path), "%s/pqtpm.ca.key", dir);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(st.st_size, 32);

	/* a second open changes nothing */
	open_dir(&h);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(read_index(&h, idx[i], &attrs, again, &size2), TPM_RC_SUCCESS);
		CU_ASSERT(size2 == size[i] && memcmp(again, first[i], size2) == 0);
	}
	harness_close(&h);
	harness_rm_tree(dir);
}

/* A TPM whose CA cannot be written still opens, without certificates, and gets them at the
 * next open that can write it. */
static void test_manufacture_later(void)
{
	static uint8_t data[NV_INDEX_MAX_RELEASED];
	struct harness h;
	uint32_t attrs;
	uint16_t size;
	char block[128];

	snprintf(dir, sizeof(dir), "/tmp/pqtpm-endorse2.%d", (int)getpid());
	harness_rm_tree(dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
	/* the CA key's temporary file cannot be made: a directory stands in its place */
	snprintf(block, sizeof(block), "%s/pqtpm.ca.key.tmp", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(block, 0700), 0);
	open_dir(&h);
	CU_ASSERT_EQUAL(read_index(&h, EK_CERT_ECC_P256, &attrs, data, &size),
			RC_H(TPM_RC_HANDLE, 1));
	harness_close(&h);
	CU_ASSERT_EQUAL_FATAL(rmdir(block), 0);
	open_dir(&h);
	CU_ASSERT_EQUAL(read_index(&h, EK_CERT_ECC_P256, &attrs, data, &size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(data[0], 0x30);
	harness_close(&h);
	harness_rm_tree(dir);
}

/* ek_certificates = no: a new TPM is made without the CA and the certificates, stays so at
 * each such open, and gets them at an open without the setting, which does not take them
 * away again. */
static void test_manufacture_without(void)
{
	static const TPM_HANDLE idx[] = { EK_CERT_RSA2048, EK_CERT_ECC_P256, EK_CERT_MLKEM768 };
	static uint8_t data[NV_INDEX_MAX_RELEASED];
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1,
					   .no_ek_certificates = 1 };
	struct harness h;
	struct stat st;
	uint32_t attrs;
	uint16_t size;
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/pqtpm-endorse3.%d", (int)getpid());
	harness_rm_tree(dir);
	cfg.state_dir = dir;
	for (int pass = 0; pass < 2; pass++) {
		harness_open_config(&h, &cfg);
		for (int i = 0; i < 3; i++)
			CU_ASSERT_EQUAL(read_index(&h, idx[i], &attrs, data, &size),
					RC_H(TPM_RC_HANDLE, 1));
		harness_close(&h);
		snprintf(path, sizeof(path), "%s/pqtpm.ca.key", dir);
		CU_ASSERT_EQUAL(stat(path, &st), -1);
	}
	open_dir(&h);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(read_index(&h, idx[i], &attrs, data, &size), TPM_RC_SUCCESS);
	harness_close(&h);
	harness_open_config(&h, &cfg);
	CU_ASSERT_EQUAL(read_index(&h, EK_CERT_ECC_P256, &attrs, data, &size), TPM_RC_SUCCESS);
	harness_close(&h);
	harness_rm_tree(dir);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "der lengths", test_der_lengths },
		{ "der nesting", test_der_nesting },
		{ "der bounds", test_der_bounds },
		{ "der integers and bits", test_der_integers_bits },
		{ "pem", test_pem },
		{ "SubjectPublicKeyInfo of ECC points", test_spki_ecc },
		{ "manufacture", test_manufacture },
		{ "manufacture at a later open", test_manufacture_later },
		{ "manufacture without EK certificates", test_manufacture_without },
	};

	return UNIT_RUN("endorse", tests, NULL, NULL);
}
