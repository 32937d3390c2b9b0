/* A token to test the PKCS#11 module with (p11_token.c), through its function list. */
#ifndef PQTPM_TEST_P11_TOKEN_H
#define PQTPM_TEST_P11_TOKEN_H

#include "pk3.h"

/* The module of this build (BUILD/lib/libpqtpm-pkcs11.so), opened with dlopen as applications
 * do: its handle in *lib and, unless f is NULL, its C_GetFunctionList list in *f. 0 or -1. */
int p11_module_load(void **lib, CK_FUNCTION_LIST **f);
/* The function list of the module's "PKCS 11" interface of version major.minor (a
 * CK_FUNCTION_LIST_3_0 or _3_2), or NULL. */
void *p11_module_interface(void *lib, CK_BYTE major, CK_BYTE minor);

/* C_Initialize, then a new token (label) in the last slot (the empty one) with the SO PIN
 * so_pin and the user PIN user_pin, and a R/W session logged in as the user in *s; a failure
 * ends the test (CU_ASSERT_*_FATAL). */
void p11_token_user_session(CK_FUNCTION_LIST *f, const char *label, const char *so_pin,
			    const char *user_pin, CK_SLOT_ID *slot, CK_SESSION_HANDLE *s);
/* The same with C_Initialize's arguments (NULL: none). */
void p11_token_user_session_args(CK_FUNCTION_LIST *f, CK_C_INITIALIZE_ARGS *args,
				 const char *label, const char *so_pin, const char *user_pin,
				 CK_SLOT_ID *slot, CK_SESSION_HANDLE *s);

#endif
