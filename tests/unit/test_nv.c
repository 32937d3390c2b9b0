/* NV indices (core/nv, core/cmd/nv_*.c, core/cmd/policy_nv.c): every NV command, every index
 * type, the attribute rules of NV_DefineSpace with their exact codes, the access rules
 * (OWNER/PP/AUTH/POLICY read and write, PIN counting, locks), what Startup does to locks and
 * flags, orderly counters, PolicyNV, Clear, GetCapability. Helpers: nv_util.c. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "nv/nv.h"
#include "nv_util.h"

static void test_define_rules(void)
{
	uint8_t pol[DSIZE] = { 1 };
	char long_pw[34];
	struct cmdbuf b;
	unsigned i;

	CU_ASSERT_EQUAL(nvt_define(0x02000000, OWNER_RW, 8), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX, TPM_ALG_NULL, OWNER_RW, 8, "", NULL, 0),
			RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | 0x100, 8), RC_P(TPM_RC_RESERVED_BITS, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | (1u << 20), 8), RC_P(TPM_RC_RESERVED_BITS, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, NV_INDEX_MAX + 1), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(3), 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 4), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_BITS), 9), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_EXTEND), 20), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_COUNTER) | TPMA_NV_CLEAR_STCLEAR, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_PIN_FAIL), 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_PIN_FAIL) | TPMA_NV_NO_DA |
					    TPMA_NV_AUTHWRITE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_PIN_PASS) | TPMA_NV_WRITEDEFINE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_PIN_PASS) | TPMA_NV_GLOBALLOCK, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_WRITTEN, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_WRITELOCKED, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_READLOCKED, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, TPMA_NV_OWNERWRITE, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, TPMA_NV_OWNERREAD, 8), RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_CLEAR_STCLEAR | TPMA_NV_WRITEDEFINE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_PLATFORMCREATE, 8),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX, TPM_ALG_SHA256, OWNER_RW, 8, "", NULL,
				    0),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_POLICY_DELETE, 8),
			RC_P(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_WRITEALL, NV_BUFFER_MAX + 1),
			RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256, OWNER_RW, 8, "", pol, 20),
			RC_P(TPM_RC_SIZE, 2));
	memset(long_pw, 'a', 33);
	long_pw[33] = 0;
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256, OWNER_RW, 8, long_pw,
				    NULL, 0),
			RC_P(TPM_RC_SIZE, 1));
	/* trailing zeros do not count towards the authValue's size */
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA1, OWNER_RW, 8,
				    "01234567890123456789", NULL, 0),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX), TPM_RC_SUCCESS);

	/* TPM2B_NV_PUBLIC: empty, or longer than what it holds */
	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));
	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 4 + 2 + 4 + 2 + 2 + 1);
	wr_u32(&b.params, IDX);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, OWNER_RW);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 8);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));

	/* every type defined once; twice is NV_DEFINED */
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 32), TPM_RC_NV_DEFINED);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW | NT(TPM_NT_BITS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 3, OWNER_RW | NT(TPM_NT_EXTEND), 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 4, OWNER_RW | NT(TPM_NT_PIN_PASS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 5, OWNER_RW | NT(TPM_NT_PIN_FAIL) | TPMA_NV_NO_DA, 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 6, TPM_ALG_SHA384,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE |
					    TPMA_NV_POLICY_DELETE | NT(TPM_NT_EXTEND),
				    48, "", NULL, 0),
			TPM_RC_SUCCESS);
	for (i = 0; i <= 6; i++)
		CU_ASSERT_EQUAL(nvt_readpublic(IDX + i, NULL, NULL), TPM_RC_SUCCESS);
	/* the platform deletes anything but POLICY_DELETE; the owner only its own */
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX + 6), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_PLATFORM, IDX + 5), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX + 7), RC_H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 5, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

static void test_nv_space(void)
{
	unsigned n = 0;
	TPM_RC rc;

	/* the largest indices until the space is gone */
	while ((rc = nvt_define(IDX + n, OWNER_RW, NV_INDEX_MAX_RELEASED)) == TPM_RC_SUCCESS)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_NV_SPACE);
	CU_ASSERT_EQUAL(n, NV_SPACE / (NV_INDEX_MAX_RELEASED + NV_INDEX_OVERHEAD));
	while (n > 0)
		CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX + --n), TPM_RC_SUCCESS);
	/* the table: NV_MAX_INDICES small ones */
	while ((rc = nvt_define(IDX + n, OWNER_RW, 1)) == TPM_RC_SUCCESS)
		n++;
	CU_ASSERT_EQUAL(rc, TPM_RC_NV_SPACE);
	CU_ASSERT_EQUAL(n, NV_MAX_INDICES);
}

static void test_ordinary(void)
{
	uint8_t buf[NV_BUFFER_MAX], data[NV_BUFFER_MAX];
	struct tpm2b_name before, after;
	uint32_t a;

	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | AUTH_RW, 2000), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, &a, &before), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(a & TPMA_NV_WRITTEN, 0);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 4, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX, "", data, 1024, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", data, 976, 1024), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, &a, &after), TPM_RC_SUCCESS);
	CU_ASSERT(a & TPMA_NV_WRITTEN);
	CU_ASSERT(before.size == after.size && memcmp(before.b, after.b, before.size) != 0);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 1024, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, data, 1024) == 0);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 976, 1024, buf), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(buf, data, 976) == 0);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 0, 2000, buf), TPM_RC_SUCCESS);
	/* ranges */
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 1025, 0, buf), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 1, 2001, buf), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 2, 1999, buf), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", data, 2, 1999), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", data, 0, 2001), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", data, 1, 2000), TPM_RC_NV_RANGE);
	/* a write larger than TPM2B_MAX_NV_BUFFER is refused by its size */
	{
		struct cmdbuf b;

		nvt_begin(&b, TPM_CC_NV_Write, IDX, IDX, "pw");
		wr_u16(&b.params, NV_BUFFER_MAX + 1);
		wr_bytes(&b.params, data, NV_BUFFER_MAX);
		wr_u8(&b.params, 0);
		wr_u16(&b.params, 0);
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	}
	/* a wrong password, an unknown index, a wrong handle kind */
	CU_ASSERT_NOT_EQUAL(nvt_write(IDX, IDX, "wrong", data, 1, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 9, "", data, 1, 0), RC_H(TPM_RC_HANDLE, 2));
	CU_ASSERT_EQUAL(nvt_write(IDX + 9, IDX, "", data, 1, 0), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_ENDORSEMENT, IDX, "", data, 1, 0), RC_H(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, 0x81000000, "", data, 1, 0),
			RC_H(TPM_RC_VALUE, 2));
	/* the authorization handle must be the index, or a hierarchy the index allows */
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, AUTH_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 1, "", data, 8, 0), TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_PLATFORM, IDX + 1, "", data, 8, 0),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX + 1, "pw", data, 8, 0), TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvt_write(IDX + 1, IDX + 1, "pw", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_AUTHORIZATION);
	/* AUTHWRITE/AUTHREAD clear: the index's authValue cannot be used */
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(IDX + 2, IDX + 2, "pw", data, 8, 0), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 2, "", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(IDX + 2, IDX + 2, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	/* WRITEALL: only the whole index at once */
	CU_ASSERT_EQUAL(nvt_define(IDX + 3, OWNER_RW | TPMA_NV_WRITEALL, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 3, "", data, 8, 0), TPM_RC_NV_RANGE);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 3, "", data, 16, 0), TPM_RC_SUCCESS);
	/* platform authorization: PPWRITE/PPREAD */
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_PLATFORM, IDX + 3, "", data, 16, 0),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 4, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_PLATFORM, IDX + 4, "", data, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_PLATFORM, IDX + 4, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 4, "", 8, 0, buf), TPM_RC_NV_AUTHORIZATION);
	/* counters and friends are not written with NV_Write */
	CU_ASSERT_EQUAL(nvt_define(IDX + 5, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 5, "", data, 8, 0), TPM_RC_ATTRIBUTES);
}

static void test_counter(void)
{
	uint8_t buf[8];

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | AUTH_RW | NT(TPM_NT_COUNTER), 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, IDX + 1, IDX + 1, "pw"),
				TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), 5);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 1, "", 4, 4, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[3], 5);
	/* a counter defined after one went starts above its last value */
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_OWNER, IDX + 1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX + 2, ""),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 2, ""), 6);
}

/* An orderly counter counts in RAM: exact after an orderly shutdown, ahead to the top of its
 * window after a power loss, and never back. */
static void test_orderly_counter(void)
{
	uint64_t v;

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_COUNTER) | TPMA_NV_ORDERLY, 8),
			TPM_RC_SUCCESS);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""),
				TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 3);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 3);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(LOSS, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	v = nvt_read_u64(TPM_RH_OWNER, IDX, "");
	CU_ASSERT_EQUAL(v, NV_ORDERLY_COUNT);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), NV_ORDERLY_COUNT + 1);
	/* the rollover was stored: another power loss keeps it and moves to the next top */
	CU_ASSERT_EQUAL(nvt_cycle(LOSS, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 2 * NV_ORDERLY_COUNT + 1);
}

static void test_bits(void)
{
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_BITS), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_setbits(TPM_RH_OWNER, IDX + 1, "", 1), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_setbits(TPM_RH_OWNER, IDX, "", 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 0);
	CU_ASSERT_EQUAL(nvt_setbits(TPM_RH_OWNER, IDX, "", 0x11), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_setbits(TPM_RH_OWNER, IDX, "", 0x8000000000000100ull), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), 0x8000000000000111ull);
}

static void test_extend(void)
{
	uint8_t buf[64], want[64] = { 0 }, in[DSIZE + 5];

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_EXTEND), DSIZE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_extend(TPM_RH_OWNER, IDX + 1, "", "x", 1), RC_H(TPM_RC_ATTRIBUTES, 2));
	for (int round = 0; round < 2; round++) {
		CU_ASSERT_EQUAL(nvt_extend(TPM_RH_OWNER, IDX, "", "hello", 5), TPM_RC_SUCCESS);
		memcpy(in, want, DSIZE);
		memcpy(in + DSIZE, "hello", 5);
		crypto_hash(TPM_ALG_SHA256, in, sizeof(in), want);
		CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", DSIZE, 0, buf), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(buf, want, DSIZE) == 0);
	}
}

static void test_locks(void)
{
	uint8_t d[8] = { 1 }, buf[8];

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX, ""),
			RC_H(TPM_RC_ATTRIBUTES, 2));
	/* WRITE_STCLEAR: until the next Startup(CLEAR); WRITEDEFINE: for good */
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | TPMA_NV_WRITE_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW | TPMA_NV_WRITEDEFINE, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 3, OWNER_RW | TPMA_NV_READ_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 4, OWNER_RW | TPMA_NV_GLOBALLOCK, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 3, "", d, 8, 0), TPM_RC_SUCCESS);
	/* the owner may lock only with OWNERWRITE/OWNERREAD */
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_WriteLock, TPM_RH_PLATFORM, IDX + 1, ""),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 1, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_WriteLock, TPM_RH_OWNER, IDX + 2, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX + 3, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_ReadLock, TPM_RH_OWNER, IDX + 3, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 3, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT(nvt_attrs_of(IDX + 1) & TPMA_NV_WRITELOCKED);
	CU_ASSERT(nvt_attrs_of(IDX + 3) & TPMA_NV_READLOCKED);
	/* GlobalWriteLock: GLOBALLOCK indices only */
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_NV_GlobalWriteLock);
		cmd_handle(&b, TPM_RH_OWNER);
		cmd_auth_pw(&b, "");
		CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 4, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX, "", d, 8, 0), TPM_RC_SUCCESS);
	/* TPM Resume keeps every lock */
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_NV_LOCKED);
	/* TPM Restart clears the STCLEAR ones and the global lock, not WRITEDEFINE's */
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 1, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 3, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 4, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + 2, "", d, 8, 0), TPM_RC_NV_LOCKED);
}

/* CLEAR_STCLEAR and orderly non-counter indices lose WRITTEN at TPM Reset and Restart. */
static void test_stclear_written(void)
{
	uint8_t d[8] = { 7 }, buf[8];

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_CLEAR_STCLEAR, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | TPMA_NV_ORDERLY, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, IDX + i, "", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_STATE, TPM_SU_STATE), TPM_RC_SUCCESS);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + i, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_cycle(TPM_SU_CLEAR, TPM_SU_CLEAR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 1, "", 8, 0, buf), TPM_RC_NV_UNINITIALIZED);
	CU_ASSERT_EQUAL(nvt_read(TPM_RH_OWNER, IDX + 2, "", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[0], 7);
}

static void put_pin(TPM_HANDLE idx, uint32_t count, uint32_t limit)
{
	uint8_t p[8];

	nvt_be32(p, count);
	nvt_be32(p + 4, limit);
	CU_ASSERT_EQUAL(nvt_write(TPM_RH_OWNER, idx, "", p, 8, 0), TPM_RC_SUCCESS);
}

static void test_pin(void)
{
	uint8_t buf[8];

	/* PIN Pass: each use of the authValue counts, up to pinLimit */
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | TPMA_NV_AUTHREAD | NT(TPM_NT_PIN_PASS), 8),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	put_pin(IDX, 0, 2);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX, ""), (2ull << 32) | 2);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	/* PIN Fail: failures count, a success starts over, at the limit the value is locked */
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, OWNER_RW | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA |
					       NT(TPM_NT_PIN_FAIL),
			       8),
			TPM_RC_SUCCESS);
	put_pin(IDX + 1, 0, 2);
	CU_ASSERT_NOT_EQUAL(nvt_read(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), (1ull << 32) | 2);
	CU_ASSERT_EQUAL(nvt_read(IDX + 1, IDX + 1, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), 2);
	CU_ASSERT_NOT_EQUAL(nvt_read(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(nvt_read(IDX + 1, IDX + 1, "bad", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(IDX + 1, IDX + 1, "pw", 8, 0, buf), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(nvt_read_u64(TPM_RH_OWNER, IDX + 1, ""), (2ull << 32) | 2);
}

/* An index of a disabled hierarchy is not there. */
static void test_hierarchy_visibility(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 1, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_PLATFORM_NV);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 1, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 2, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			RC_H(TPM_RC_HIERARCHY, 1));
	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, TPM_RH_OWNER);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

/* Policies: POLICYWRITE, NV_ChangeAuth and NV_UndefineSpaceSpecial (ADMIN: policy only). */
static void test_policy_commands(void)
{
	uint8_t pol_write[DSIZE], pol_change[DSIZE], pol_del[DSIZE], d[8] = { 9 }, buf[8];
	struct psess s;
	struct cmdbuf b;

	nvt_cc_policy(TPM_CC_NV_Write, pol_write);
	nvt_cc_policy(TPM_CC_NV_ChangeAuth, pol_change);
	nvt_cc_policy(TPM_CC_NV_UndefineSpaceSpecial, pol_del);

	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX, TPM_ALG_SHA256,
				    TPMA_NV_POLICYWRITE | TPMA_NV_AUTHREAD, 8, "pw", pol_write,
				    DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(IDX, IDX, "pw", d, 8, 0), TPM_RC_AUTH_UNAVAILABLE);
	nvt_start_policy(&s);
	nvt_policy_cc(&s, TPM_CC_NV_Write);
	nvt_begin(&b, TPM_CC_NV_Write, IDX, IDX, "");
	b.auth.off = 0;
	b.nauth = 0;
	wr_tpm2b(&b.params, d, 8);
	wr_u16(&b.params, 0);
	nvt_auth_policy(&b, &s, NULL);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_read(IDX, IDX, "pw", 8, 0, buf), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(buf[0], 9);

	/* NV_ChangeAuth: a password is not enough */
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_OWNER, IDX + 1, TPM_ALG_SHA256,
				    AUTH_RW, 8, "old", pol_change, DSIZE),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_NV_ChangeAuth);
	cmd_handle(&b, IDX + 1);
	cmd_auth_pw(&b, "old");
	wr_tpm2b(&b.params, "new", 3);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_AUTH_UNAVAILABLE);
	nvt_start_policy(&s);
	nvt_policy_cc(&s, TPM_CC_NV_ChangeAuth);
	cmd_begin(&b, TPM_CC_NV_ChangeAuth);
	cmd_handle(&b, IDX + 1);
	wr_tpm2b(&b.params, "new", 3);
	nvt_auth_policy(&b, &s, NULL);
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_write(IDX + 1, IDX + 1, "new", d, 8, 0), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(nvt_write(IDX + 1, IDX + 1, "old", d, 8, 0), TPM_RC_SUCCESS);

	/* NV_UndefineSpaceSpecial: only POLICY_DELETE indices, with their policy and platform */
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 2, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE |
					    TPMA_NV_POLICY_DELETE,
				    8, "", pol_del, DSIZE),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_undefine(TPM_RH_PLATFORM, IDX + 2), RC_H(TPM_RC_ATTRIBUTES, 2));
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 3, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", pol_del, DSIZE),
			TPM_RC_SUCCESS);
	nvt_start_policy(&s);
	nvt_policy_cc(&s, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_begin(&b, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_handle(&b, IDX + 3);
	cmd_handle(&b, TPM_RH_PLATFORM);
	nvt_auth_policy(&b, &s, "");
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), RC_H(TPM_RC_ATTRIBUTES, 1));
	nvt_start_policy(&s);
	nvt_policy_cc(&s, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_begin(&b, TPM_CC_NV_UndefineSpaceSpecial);
	cmd_handle(&b, IDX + 2);
	cmd_handle(&b, TPM_RH_PLATFORM);
	nvt_auth_policy(&b, &s, "");
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 2, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
}

/* PolicyNV: the assertion holds or not on the index data; the digest as Part 3 defines it. */
static TPM_RC policy_nv(struct psess *s, TPM_HANDLE auth, TPM_HANDLE idx, const uint8_t *op_b,
			uint16_t len, uint16_t offset, uint16_t op)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyNV);
	cmd_handle(&b, auth);
	cmd_handle(&b, idx);
	cmd_handle(&b, s->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, op_b, len);
	wr_u16(&b.params, offset);
	wr_u16(&b.params, op);
	return harness_run(&nvh, &b, NULL, NULL);
}

static void test_policy_nv(void)
{
	uint8_t five[8] = { 0, 0, 0, 0, 0, 0, 0, 5 }, six[8] = { 0, 0, 0, 0, 0, 0, 0, 6 };
	uint8_t args[12], arg_hash[DSIZE], buf[DSIZE + 4 + DSIZE + 2 + DSIZE] = { 0 };
	uint8_t want[DSIZE];
	struct tpm2b_name name;
	struct tpm2b_digest got;
	struct psess s;
	struct cmdbuf b;
	struct rd r;

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX + 1, AUTH_RW, 8), TPM_RC_SUCCESS);
	nvt_start_policy(&s);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 7 /* UNSIGNED_GE */),
			TPM_RC_NV_UNINITIALIZED);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(nvt_simple(TPM_CC_NV_Increment, TPM_RH_OWNER, IDX, ""), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, six, 8, 0, 7), TPM_RC_POLICY);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 1, 7), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 12), RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX + 1, five, 8, 0, 7),
			TPM_RC_NV_AUTHORIZATION);
	CU_ASSERT_EQUAL(policy_nv(&s, TPM_RH_OWNER, IDX, five, 8, 0, 7), TPM_RC_SUCCESS);
	/* H(0 || PolicyNV || H(operandB || offset || operation) || name) */
	memcpy(args, five, 8);
	args[8] = 0;
	args[9] = 0;
	args[10] = 0;
	args[11] = 7;
	crypto_hash(TPM_ALG_SHA256, args, sizeof(args), arg_hash);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, NULL, &name), TPM_RC_SUCCESS);
	nvt_be32(buf + DSIZE, TPM_CC_PolicyNV);
	memcpy(buf + DSIZE + 4, arg_hash, DSIZE);
	memcpy(buf + 2 * DSIZE + 4, name.b, name.size);
	crypto_hash(TPM_ALG_SHA256, buf, 2 * DSIZE + 4 + name.size, want);
	cmd_begin(&b, TPM_CC_PolicyGetDigest);
	cmd_handle(&b, s.handle);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &got), TPM_RC_SUCCESS);
	CU_ASSERT(got.size == DSIZE && memcmp(got.b, want, DSIZE) == 0);
}

static void test_clear(void)
{
	struct cmdbuf b;

	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define_full(TPM_RH_PLATFORM, IDX + 1, TPM_ALG_SHA256,
				    TPMA_NV_PPWRITE | TPMA_NV_PPREAD | TPMA_NV_PLATFORMCREATE, 8,
				    "", NULL, 0),
			TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_PLATFORM);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&nvh, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_readpublic(IDX, NULL, NULL), RC_H(TPM_RC_HANDLE, 1));
	CU_ASSERT_EQUAL(nvt_readpublic(IDX + 1, NULL, NULL), TPM_RC_SUCCESS);
}

static void get_property(uint32_t pt, uint32_t *v)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t cap, count, prop;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&b.params, pt);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	rd_u32(&r, &prop);
	rd_u32(&r, v);
	CU_ASSERT_EQUAL(prop, pt);
}

static void test_capability(void)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t v, cap, count, hd[4];
	uint8_t more;

	CU_ASSERT_EQUAL(nvt_define(IDX + 2, OWNER_RW, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(IDX, OWNER_RW | NT(TPM_NT_COUNTER), 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nvt_define(0x01C00002, OWNER_RW, 8), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_HANDLES);
	wr_u32(&b.params, TPM_HR_NV_INDEX);
	wr_u32(&b.params, 2);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	CU_ASSERT_EQUAL(more, 1);
	CU_ASSERT_EQUAL_FATAL(count, 2);
	rd_u32(&r, &hd[0]);
	rd_u32(&r, &hd[1]);
	CU_ASSERT_EQUAL(hd[0], IDX);
	CU_ASSERT_EQUAL(hd[1], IDX + 2);
	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_HANDLES);
	wr_u32(&b.params, IDX + 3);
	wr_u32(&b.params, 10);
	CU_ASSERT_EQUAL_FATAL(harness_run(&nvh, &b, &r, NULL), TPM_RC_SUCCESS);
	rd_u8(&r, &more);
	rd_u32(&r, &cap);
	rd_u32(&r, &count);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL_FATAL(count, 1);
	rd_u32(&r, &hd[0]);
	CU_ASSERT_EQUAL(hd[0], 0x01C00002);

	get_property(TPM_PT_HR_NV_INDEX, &v);
	CU_ASSERT_EQUAL(v, 3);
	get_property(TPM_PT_NV_COUNTERS, &v);
	CU_ASSERT_EQUAL(v, 1);
	get_property(TPM_PT_NV_COUNTERS_AVAIL, &v);
	CU_ASSERT(v > 0 && v <= NV_MAX_INDICES - 3);
	get_property(TPM_PT_NV_INDEX_MAX, &v);
	CU_ASSERT_EQUAL(v, NV_INDEX_MAX_RELEASED);
	get_property(TPM_PT_NV_BUFFER_MAX, &v);
	CU_ASSERT_EQUAL(v, NV_BUFFER_MAX);
}

static void add_tests(CU_pSuite s)
{
	nvt_add(s, "NV_DefineSpace rules and codes", test_define_rules);
	nvt_add(s, "NV space and index table limits", test_nv_space);
	nvt_add(s, "ordinary index: write, read, ranges, authorization", test_ordinary);
	nvt_add(s, "counter index", test_counter);
	nvt_add(s, "orderly counter across shutdowns and power loss", test_orderly_counter);
	nvt_add(s, "bit field index", test_bits);
	nvt_add(s, "extend index", test_extend);
	nvt_add(s, "write, read and global locks through the lifecycle", test_locks);
	nvt_add(s, "CLEAR_STCLEAR and orderly indices lose WRITTEN", test_stclear_written);
	nvt_add(s, "PIN Pass and PIN Fail", test_pin);
	nvt_add(s, "indices of disabled hierarchies", test_hierarchy_visibility);
	nvt_add(s, "policies: POLICYWRITE, ChangeAuth, UndefineSpaceSpecial", test_policy_commands);
	nvt_add(s, "PolicyNV", test_policy_nv);
	nvt_add(s, "Clear deletes owner indices", test_clear);
	nvt_add(s, "GetCapability: handles and NV properties", test_capability);
}

int main(void)
{
	return nvt_run_suite("nv", add_tests);
}
