/* The main program of a unit test (unit_main.c): one CUnit suite from a table of tests. */
#ifndef PQTPM_TEST_UNIT_MAIN_H
#define PQTPM_TEST_UNIT_MAIN_H

#include <stddef.h>

#include <CUnit/Basic.h>

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

/* Runs tests[0..n) in order as the suite `suite`, verbosely, with setup and teardown around
 * every test (either may be NULL). Returns the exit status: 0 only if every test passed. */
int unit_run(const char *suite, const struct unit_test *tests, size_t n, CU_SetUpFunc setup,
	     CU_TearDownFunc teardown);

#define UNIT_RUN(suite, tests, setup, teardown)                                            \
	unit_run(suite, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#endif
