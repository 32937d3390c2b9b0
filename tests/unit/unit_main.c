/* One CUnit suite from a table of tests (see unit_main.h). */
#include "unit_main.h"

int unit_run(const char *suite, const struct unit_test *tests, size_t n, CU_SetUpFunc setup,
	     CU_TearDownFunc teardown)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite_with_setup_and_teardown(suite, NULL, NULL, setup, teardown);
	if (!s)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (!CU_add_test(s, tests[i].name, tests[i].fn))
			goto fail;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		goto fail;
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed != 0;
fail:
	CU_cleanup_registry();
	return 1;
}
