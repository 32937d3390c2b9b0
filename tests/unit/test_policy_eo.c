/* The TPM_EO comparisons of PolicyNV and PolicyCounterTimer (core/policy.c): unsigned,
 * signed with the reference implementation's order (two negatives compare in the reverse of
 * their unsigned order, as libtpms and IBM's simulator do), bit tests, several bytes. */
#include <stdio.h>

#include <CUnit/Basic.h>

#include "policy.h"
#include "unit_main.h"

enum {
	EQ, NEQ, SIGNED_GT, UNSIGNED_GT, SIGNED_LT, UNSIGNED_LT, SIGNED_GE, UNSIGNED_GE,
	SIGNED_LE, UNSIGNED_LE, BITSET, BITCLEAR,
};

struct eo_case {
	uint16_t op;
	uint8_t a[2], b[2];
	bool holds;
};

static void run_cases(const struct eo_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct eo_case *t = &cases[i];
		bool got = policy_eo_holds(t->op, t->a, t->b, 2);

		if (got != t->holds)
			fprintf(stderr, "case %zu: op %u a %02x%02x b %02x%02x\n", i, t->op,
				t->a[0], t->a[1], t->b[0], t->b[1]);
		CU_ASSERT_EQUAL(got, t->holds);
	}
}

static void test_unsigned(void)
{
	static const struct eo_case cases[] = {
		{ EQ, { 0x12, 0x34 }, { 0x12, 0x34 }, true },
		{ EQ, { 0x12, 0x34 }, { 0x12, 0x35 }, false },
		{ NEQ, { 0x12, 0x34 }, { 0x13, 0x34 }, true },
		{ NEQ, { 0x12, 0x34 }, { 0x12, 0x34 }, false },
		{ UNSIGNED_GT, { 0x90, 0x00 }, { 0x10, 0xFF }, true },
		{ UNSIGNED_GT, { 0x10, 0xFF }, { 0x90, 0x00 }, false },
		{ UNSIGNED_LT, { 0x00, 0x01 }, { 0x00, 0x02 }, true },
		{ UNSIGNED_GE, { 0x00, 0x02 }, { 0x00, 0x02 }, true },
		{ UNSIGNED_GE, { 0x00, 0x01 }, { 0x00, 0x02 }, false },
		{ UNSIGNED_LE, { 0xFF, 0xFF }, { 0xFF, 0xFF }, true },
		{ UNSIGNED_LE, { 0xFF, 0xFF }, { 0xFF, 0xFE }, false },
	};

	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_signed(void)
{
	static const struct eo_case cases[] = {
		/* both non-negative: as unsigned */
		{ SIGNED_GT, { 0x7F, 0xFF }, { 0x00, 0x01 }, true },
		{ SIGNED_LT, { 0x00, 0x01 }, { 0x7F, 0xFF }, true },
		/* different signs: the negative one is smaller */
		{ SIGNED_GT, { 0x00, 0x00 }, { 0x80, 0x00 }, true },
		{ SIGNED_LT, { 0xFF, 0xFF }, { 0x00, 0x00 }, true },
		{ SIGNED_GE, { 0x80, 0x00 }, { 0x7F, 0xFF }, false },
		{ SIGNED_LE, { 0x7F, 0xFF }, { 0x80, 0x00 }, false },
		/* both negative: the larger unsigned value is the smaller one */
		{ SIGNED_GT, { 0x90, 0x00 }, { 0xA0, 0x00 }, true },
		{ SIGNED_GT, { 0xA0, 0x00 }, { 0x90, 0x00 }, false },
		{ SIGNED_LT, { 0xC0, 0x01 }, { 0xC0, 0x00 }, true },
		{ SIGNED_LT, { 0xC0, 0x00 }, { 0xC0, 0x01 }, false },
		{ SIGNED_GE, { 0x80, 0x01 }, { 0x80, 0x02 }, true },
		{ SIGNED_GE, { 0x80, 0x02 }, { 0x80, 0x02 }, true },
		{ SIGNED_LE, { 0xFF, 0x00 }, { 0xFE, 0x00 }, true },
		{ SIGNED_LE, { 0xFE, 0x00 }, { 0xFF, 0x00 }, false },
	};

	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_bits(void)
{
	static const struct eo_case cases[] = {
		{ BITSET, { 0xF0, 0x0F }, { 0x30, 0x01 }, true },
		{ BITSET, { 0xF0, 0x0F }, { 0x08, 0x00 }, false },
		{ BITCLEAR, { 0xF0, 0x0F }, { 0x0F, 0xF0 }, true },
		{ BITCLEAR, { 0xF0, 0x0F }, { 0x00, 0x01 }, false },
		{ BITCLEAR + 1, { 0x00, 0x00 }, { 0x00, 0x00 }, false }, /* no such operation */
	};

	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "unsigned and equality", test_unsigned },
		{ "signed, in the reference implementation's order", test_signed },
		{ "bit set, bit clear", test_bits },
	};

	return UNIT_RUN("policy_eo", tests, NULL, NULL);
}
