/* See p11_token.h. */
#include <string.h>

#include <CUnit/Basic.h>

#include "p11_token.h"

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
