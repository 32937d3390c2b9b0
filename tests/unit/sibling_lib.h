/* A shared library of this build, opened from a unit test program (sibling_lib.c). */
#ifndef PQTPM_TEST_SIBLING_LIB_H
#define PQTPM_TEST_SIBLING_LIB_H

/* dlopen BUILD/lib/name, found from this program's own path (BUILD/tests/PROGRAM); NULL, with
 * dlerror's message on stderr, if it cannot be opened. */
void *sibling_lib_open(const char *name);

#endif
