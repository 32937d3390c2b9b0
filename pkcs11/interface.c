/* The exported entry points: C_GetFunctionList (the 2.40 list), C_GetInterfaceList and
 * C_GetInterface ("PKCS 11" 3.2, 3.0 and 2.40). Nothing else leaves the library. */
#include <string.h>

#include "p11.h"

#define P11_EXPORT __attribute__((visibility("default")))

#define ENTRY_240(name) .name = name,
#define ENTRY_30(name, type) .name = name,
#define INFO_240(name) .name = p11_get_info_240,
#define INFO_30(name) .name = p11_get_info_30,

static CK_FUNCTION_LIST list_240 = {
	.version = { 2, 40 },
	P11_FUNCTIONS_240(ENTRY_240, INFO_240)
};

static CK_FUNCTION_LIST_3_0 list_30 = {
	.version = { 3, 0 },
	P11_FUNCTIONS_240(ENTRY_240, INFO_30)
	P11_FUNCTIONS_30(ENTRY_30)
};

static CK_FUNCTION_LIST_3_2 list_32 = {
	.version = { 3, 2 },
	P11_FUNCTIONS_240(ENTRY_240, ENTRY_240)
	P11_FUNCTIONS_30(ENTRY_30)
	P11_FUNCTIONS_32(ENTRY_30)
};

static CK_CHAR interface_name[] = "PKCS 11";

static CK_INTERFACE interfaces[] = {
	{ interface_name, &list_32, CKF_INTERFACE_FORK_SAFE },
	{ interface_name, &list_30, CKF_INTERFACE_FORK_SAFE },
	{ interface_name, &list_240, CKF_INTERFACE_FORK_SAFE },
};
#define NINTERFACES (sizeof(interfaces) / sizeof(interfaces[0]))

P11_EXPORT CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
	if (!ppFunctionList)
		return CKR_ARGUMENTS_BAD;
	*ppFunctionList = &list_240;
	return CKR_OK;
}

P11_EXPORT CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)
{
	size_t i;

	if (!pulCount)
		return CKR_ARGUMENTS_BAD;
	if (!pInterfacesList) {
		*pulCount = NINTERFACES;
		return CKR_OK;
	}
	if (*pulCount < NINTERFACES) {
		*pulCount = NINTERFACES;
		return CKR_BUFFER_TOO_SMALL;
	}
	for (i = 0; i < NINTERFACES; i++)
		pInterfacesList[i] = interfaces[i];
	*pulCount = NINTERFACES;
	return CKR_OK;
}

/* The first interface (the newest version) that matches the name, version and flags asked. */
P11_EXPORT CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
				CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags)
{
	size_t i;

	if (!ppInterface)
		return CKR_ARGUMENTS_BAD;
	for (i = 0; i < NINTERFACES; i++) {
		const CK_VERSION *v = interfaces[i].pFunctionList;
		const char *name = (const char *)interfaces[i].pInterfaceName;

		if (pInterfaceName && strcmp((const char *)pInterfaceName, name))
			continue;
		if (pVersion && (pVersion->major != v->major || pVersion->minor != v->minor))
			continue;
		if ((interfaces[i].flags & flags) != flags)
			continue;
		*ppInterface = &interfaces[i];
		return CKR_OK;
	}
	return CKR_ARGUMENTS_BAD;
}
