/* See p11_token.h. */
#include <dlfcn.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "p11_token.h"
#include "sibling_lib.h"

int p11_module_load(void **lib, CK_FUNCTION_LIST **f)
{
	CK_RV (*get_list)(CK_FUNCTION_LIST_PTR_PTR);

	*lib = sibling_lib_open("libpqtpm-pkcs11.so");
	if (!*lib)
		return -1;
	if (!f)
		return 0;
	get_list = (CK_RV(*)(CK_FUNCTION_LIST_PTR_PTR))dlsym(*lib, "C_GetFunctionList");
	return get_list && get_list(f) == CKR_OK ? 0 : -1;
}

void *p11_module_interface(void *lib, CK_BYTE major, CK_BYTE minor)
{
	CK_RV (*get_iface)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS);
	CK_VERSION v = { major, minor };
	CK_INTERFACE *iface = NULL;

	get_iface = (CK_RV(*)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR,
			      CK_FLAGS))dlsym(lib, "C_GetInterface");
	if (!get_iface || get_iface((CK_UTF8CHAR *)"PKCS 11", &v, &iface, 0) != CKR_OK || !iface)
		return NULL;
	return iface->pFunctionList;
}

void p11_token_user_session(CK_FUNCTION_LIST *f, const char *label, const char *so_pin,
			    const char *user_pin, CK_SLOT_ID *slot, CK_SESSION_HANDLE *s)
{
	p11_token_user_session_args(f, NULL, label, so_pin, user_pin, slot, s);
}

void p11_token_user_session_args(CK_FUNCTION_LIST *f, CK_C_INITIALIZE_ARGS *args,
				 const char *label, const char *so_pin, const char *user_pin,
				 CK_SLOT_ID *slot, CK_SESSION_HANDLE *s)
{
	CK_SLOT_ID slots[4];
	CK_ULONG n = 4;
	CK_UTF8CHAR padded[32];
	size_t len = strlen(label) < sizeof(padded) ? strlen(label) : sizeof(padded);

	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(args), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_GetSlotList(CK_FALSE, slots, &n), CKR_OK);
	*slot = slots[n - 1];
	memset(padded, ' ', sizeof(padded));
	memcpy(padded, label, len);
	CU_ASSERT_EQUAL_FATAL(f->C_InitToken(*slot, (CK_UTF8CHAR *)so_pin, strlen(so_pin), padded),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(*slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, s),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(*s, CKU_SO, (CK_UTF8CHAR *)so_pin, strlen(so_pin)),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_InitPIN(*s, (CK_UTF8CHAR *)user_pin, strlen(user_pin)), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Logout(*s), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(*s, CKU_USER, (CK_UTF8CHAR *)user_pin, strlen(user_pin)),
			      CKR_OK);
}
