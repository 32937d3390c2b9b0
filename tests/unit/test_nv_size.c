/* How large an NV index may be (core/nv/public.c nv_index_max, core/cmd/nv_define.c): 2048
 * bytes with the default capabilities setting, which released TSSs handle, 8192 with v1.85;
 * and an index larger than TPM_PT_NV_BUFFER_MAX written and read back in pieces at any
 * offset. Helpers: nv_util.c. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "nv/nv.h"
#include "nv_util.h"

static uint32_t index_max_property(void)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t count = 0, tag = 0, v = 0;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&b.params, TPM_PT_NV_INDEX_MAX);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u8(&r, &more), TPM_RC_SUCCESS);
	r.off += 4; /* the capability */
	CU_ASSERT_EQUAL(rd_u32(&r, &count), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	CU_ASSERT_EQUAL(rd_u32(&r, &tag), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &v), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(tag, TPM_PT_NV_INDEX_MAX);
	return v;
}

static void test_released_limit(void)
{
	CU_ASSERT_EQUAL(index_max_property(), 2048);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 2049), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 2048), TPM_RC_SUCCESS);
}

/* Write data in pieces of piece bytes, read it back in pieces of another size. */
static void write_read_in_pieces(TPM_HANDLE idx, const uint8_t *data, uint16_t size,
				 uint16_t wpiece, uint16_t rpiece)
{
	static uint8_t back[NV_INDEX_MAX];

	for (uint16_t off = 0; off < size; off += wpiece) {
		uint16_t n = size - off < wpiece ? size - off : wpiece;

		CU_ASSERT_EQUAL_FATAL(nvt_write(TPM_RH_OWNER, idx, "", data + off, n, off),
				      TPM_RC_SUCCESS);
	}
	memset(back, 0, sizeof(back));
	for (uint16_t off = 0; off < size; off += rpiece) {
		uint16_t n = size - off < rpiece ? size - off : rpiece;

		CU_ASSERT_EQUAL_FATAL(nvt_read(TPM_RH_OWNER, idx, "", n, off, back + off),
				      TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(memcmp(back, data, size), 0);
}

static void test_v185_large_index(void)
{
	static uint8_t data[NV_INDEX_MAX];
	char dir[256];

	nvt_new_dir(dir, sizeof(dir));
	harness_close(&nvh);
	harness_open_caps(&nvh, dir, PQTPM_CAPS_V185);
	CU_ASSERT_EQUAL(index_max_property(), NV_INDEX_MAX);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, NV_INDEX_MAX + 1), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL_FATAL(nvt_define(IDX, OWNER_RW, NV_INDEX_MAX), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_random(data, sizeof(data)), TPM_RC_SUCCESS);
	write_read_in_pieces(IDX, data, NV_INDEX_MAX, NV_BUFFER_MAX, NV_BUFFER_MAX);
	write_read_in_pieces(IDX, data, NV_INDEX_MAX, 1000, 777);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", NV_BUFFER_MAX + 1, 0, data),
			RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 2, NV_INDEX_MAX - 1, data),
			TPM_RC_NV_RANGE);

	/* made under v1.85, the index stays usable with the default setting */
	CU_ASSERT_EQUAL(crypto_random(data, sizeof(data)), TPM_RC_SUCCESS);
	harness_close(&nvh);
	harness_open_dir(&nvh, dir);
	CU_ASSERT_EQUAL(index_max_property(), NV_INDEX_MAX_RELEASED);
	write_read_in_pieces(IDX, data, NV_INDEX_MAX, NV_BUFFER_MAX, 500);
}

static void add_tests(CU_pSuite s)
{
	nvt_add(s, "released: indices up to 2048 bytes", test_released_limit);
	nvt_add(s, "v1.85: an 8192-byte index in pieces at any offset", test_v185_large_index);
}

int main(void)
{
	return nvt_run_suite("nv_size", add_tests);
}
