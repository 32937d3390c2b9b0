/* What PKCS#11 3.0 and 3.2 add to p11-kit 0.24's 2.40 header: the interface functions, the 3.0
 * and 3.2 function lists, and the post-quantum constants of the OASIS PKCS#11 3.2
 * specification. */
#ifndef PQTPM_PKCS11_PK3_H
#define PQTPM_PKCS11_PK3_H

#include <p11-kit/pkcs11.h>

/* The 68 functions of the 2.40 list, in its order; INFO(C_GetInfo), whose answer is each
 * list's own (the interface's version). */
#define P11_FUNCTIONS_240(X, INFO)                                                             \
	X(C_Initialize) X(C_Finalize) INFO(C_GetInfo) X(C_GetFunctionList) X(C_GetSlotList)   \
	X(C_GetSlotInfo) X(C_GetTokenInfo) X(C_GetMechanismList) X(C_GetMechanismInfo)         \
	X(C_InitToken) X(C_InitPIN) X(C_SetPIN) X(C_OpenSession) X(C_CloseSession)             \
	X(C_CloseAllSessions) X(C_GetSessionInfo) X(C_GetOperationState)                       \
	X(C_SetOperationState) X(C_Login) X(C_Logout) X(C_CreateObject) X(C_CopyObject)        \
	X(C_DestroyObject) X(C_GetObjectSize) X(C_GetAttributeValue) X(C_SetAttributeValue)    \
	X(C_FindObjectsInit) X(C_FindObjects) X(C_FindObjectsFinal) X(C_EncryptInit)           \
	X(C_Encrypt) X(C_EncryptUpdate) X(C_EncryptFinal) X(C_DecryptInit) X(C_Decrypt)        \
	X(C_DecryptUpdate) X(C_DecryptFinal) X(C_DigestInit) X(C_Digest) X(C_DigestUpdate)     \
	X(C_DigestKey) X(C_DigestFinal) X(C_SignInit) X(C_Sign) X(C_SignUpdate)                \
	X(C_SignFinal) X(C_SignRecoverInit) X(C_SignRecover) X(C_VerifyInit) X(C_Verify)       \
	X(C_VerifyUpdate) X(C_VerifyFinal) X(C_VerifyRecoverInit) X(C_VerifyRecover)           \
	X(C_DigestEncryptUpdate) X(C_DecryptDigestUpdate) X(C_SignEncryptUpdate)               \
	X(C_DecryptVerifyUpdate) X(C_GenerateKey) X(C_GenerateKeyPair) X(C_WrapKey)            \
	X(C_UnwrapKey) X(C_DeriveKey) X(C_SeedRandom) X(C_GenerateRandom)                      \
	X(C_GetFunctionStatus) X(C_CancelFunction) X(C_WaitForSlotEvent)

/* ---- PKCS#11 3.0 ---- */
typedef struct CK_INTERFACE {
	CK_CHAR *pInterfaceName;
	CK_VOID_PTR pFunctionList;
	CK_FLAGS flags;
} CK_INTERFACE;
typedef CK_INTERFACE *CK_INTERFACE_PTR;
typedef CK_INTERFACE_PTR *CK_INTERFACE_PTR_PTR;
#define CKF_INTERFACE_FORK_SAFE 0x00000001UL

typedef CK_RV P11_FN_GetInterfaceList(CK_INTERFACE_PTR list, CK_ULONG_PTR count);
typedef CK_RV P11_FN_GetInterface(CK_UTF8CHAR_PTR name, CK_VERSION_PTR version,
				   CK_INTERFACE_PTR_PTR iface, CK_FLAGS flags);
typedef CK_RV P11_FN_LoginUser(CK_SESSION_HANDLE s, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin,
				CK_ULONG pin_len, CK_UTF8CHAR_PTR username, CK_ULONG username_len);
typedef CK_RV P11_FN_SessionCancel(CK_SESSION_HANDLE s, CK_FLAGS flags);
typedef CK_RV P11_FN_MessageInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech, CK_OBJECT_HANDLE key);
typedef CK_RV P11_FN_MessageFinal(CK_SESSION_HANDLE s);
typedef CK_RV P11_FN_CryptMessage(CK_SESSION_HANDLE s, CK_VOID_PTR param, CK_ULONG param_len,
				   CK_BYTE_PTR ad, CK_ULONG ad_len, CK_BYTE_PTR in, CK_ULONG in_len,
				   CK_BYTE_PTR out, CK_ULONG_PTR out_len);
typedef CK_RV P11_FN_CryptMessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR param,
					CK_ULONG param_len, CK_BYTE_PTR ad, CK_ULONG ad_len);
typedef CK_RV P11_FN_CryptMessageNext(CK_SESSION_HANDLE s, CK_VOID_PTR param,
				       CK_ULONG param_len, CK_BYTE_PTR in, CK_ULONG in_len,
				       CK_BYTE_PTR out, CK_ULONG_PTR out_len, CK_FLAGS flags);
typedef CK_RV P11_FN_SignMessage(CK_SESSION_HANDLE s, CK_VOID_PTR param, CK_ULONG param_len,
				  CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR sig,
				  CK_ULONG_PTR sig_len);
typedef CK_RV P11_FN_MessageBegin(CK_SESSION_HANDLE s, CK_VOID_PTR param, CK_ULONG param_len);
typedef CK_RV P11_FN_VerifyMessage(CK_SESSION_HANDLE s, CK_VOID_PTR param, CK_ULONG param_len,
				    CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR sig,
				    CK_ULONG sig_len);

/* The 24 functions 3.0 appends, in the order of CK_FUNCTION_LIST_3_0, with their types. */
#define P11_FUNCTIONS_30(X)                                                                    \
	X(C_GetInterfaceList, P11_FN_GetInterfaceList) X(C_GetInterface, P11_FN_GetInterface)      \
	X(C_LoginUser, P11_FN_LoginUser) X(C_SessionCancel, P11_FN_SessionCancel)                  \
	X(C_MessageEncryptInit, P11_FN_MessageInit) X(C_EncryptMessage, P11_FN_CryptMessage)       \
	X(C_EncryptMessageBegin, P11_FN_CryptMessageBegin)                                       \
	X(C_EncryptMessageNext, P11_FN_CryptMessageNext)                                         \
	X(C_MessageEncryptFinal, P11_FN_MessageFinal)                                            \
	X(C_MessageDecryptInit, P11_FN_MessageInit) X(C_DecryptMessage, P11_FN_CryptMessage)       \
	X(C_DecryptMessageBegin, P11_FN_CryptMessageBegin)                                       \
	X(C_DecryptMessageNext, P11_FN_CryptMessageNext)                                         \
	X(C_MessageDecryptFinal, P11_FN_MessageFinal) X(C_MessageSignInit, P11_FN_MessageInit)     \
	X(C_SignMessage, P11_FN_SignMessage) X(C_SignMessageBegin, P11_FN_MessageBegin)            \
	X(C_SignMessageNext, P11_FN_SignMessage) X(C_MessageSignFinal, P11_FN_MessageFinal)        \
	X(C_MessageVerifyInit, P11_FN_MessageInit) X(C_VerifyMessage, P11_FN_VerifyMessage)        \
	X(C_VerifyMessageBegin, P11_FN_MessageBegin) X(C_VerifyMessageNext, P11_FN_VerifyMessage)  \
	X(C_MessageVerifyFinal, P11_FN_MessageFinal)

#define P11_MEMBER_240(name) CK_##name name;
#define P11_MEMBER_30(name, type) type *name;
typedef struct CK_FUNCTION_LIST_3_0 {
	CK_VERSION version;
	P11_FUNCTIONS_240(P11_MEMBER_240, P11_MEMBER_240)
	P11_FUNCTIONS_30(P11_MEMBER_30)
} CK_FUNCTION_LIST_3_0;

#define P11_DECLARE_30(name, type) type name;
P11_FUNCTIONS_30(P11_DECLARE_30)

/* ---- PKCS#11 3.2: the 12 functions it appends to CK_FUNCTION_LIST_3_0, in its order ---- */
typedef CK_ULONG CK_SESSION_VALIDATION_FLAGS_TYPE;
typedef struct CK_ASYNC_DATA {
	CK_ULONG ulVersion;
	CK_BYTE_PTR pValue;
	CK_ULONG ulValue;
	CK_OBJECT_HANDLE hObject;
	CK_OBJECT_HANDLE hAdditionalObject;
} CK_ASYNC_DATA;
typedef CK_ASYNC_DATA *CK_ASYNC_DATA_PTR;

typedef CK_RV P11_FN_EncapsulateKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech,
				     CK_OBJECT_HANDLE public_key, CK_ATTRIBUTE_PTR templ,
				     CK_ULONG count, CK_BYTE_PTR ciphertext,
				     CK_ULONG_PTR ciphertext_len, CK_OBJECT_HANDLE_PTR key);
typedef CK_RV P11_FN_DecapsulateKey(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech,
				     CK_OBJECT_HANDLE private_key, CK_ATTRIBUTE_PTR templ,
				     CK_ULONG count, CK_BYTE_PTR ciphertext,
				     CK_ULONG ciphertext_len, CK_OBJECT_HANDLE_PTR key);
typedef CK_RV P11_FN_VerifySignatureInit(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech,
					  CK_OBJECT_HANDLE key, CK_BYTE_PTR sig,
					  CK_ULONG sig_len);
typedef CK_RV P11_FN_VerifySignature(CK_SESSION_HANDLE s, CK_BYTE_PTR data, CK_ULONG data_len);
typedef CK_RV P11_FN_VerifySignatureUpdate(CK_SESSION_HANDLE s, CK_BYTE_PTR part,
					    CK_ULONG part_len);
typedef CK_RV P11_FN_VerifySignatureFinal(CK_SESSION_HANDLE s);
typedef CK_RV P11_FN_GetSessionValidationFlags(CK_SESSION_HANDLE s,
						CK_SESSION_VALIDATION_FLAGS_TYPE type,
						CK_FLAGS *flags);
typedef CK_RV P11_FN_AsyncComplete(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR function_name,
				    CK_ASYNC_DATA_PTR result);
typedef CK_RV P11_FN_AsyncGetID(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR function_name,
				 CK_ULONG_PTR id);
typedef CK_RV P11_FN_AsyncJoin(CK_SESSION_HANDLE s, CK_UTF8CHAR_PTR function_name, CK_ULONG id,
				CK_BYTE_PTR data, CK_ULONG data_len);
typedef CK_RV P11_FN_WrapKeyAuthenticated(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech,
					   CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key,
					   CK_BYTE_PTR ad, CK_ULONG ad_len, CK_BYTE_PTR wrapped,
					   CK_ULONG_PTR wrapped_len);
typedef CK_RV P11_FN_UnwrapKeyAuthenticated(CK_SESSION_HANDLE s, CK_MECHANISM_PTR mech,
					     CK_OBJECT_HANDLE unwrapping_key, CK_BYTE_PTR wrapped,
					     CK_ULONG wrapped_len, CK_ATTRIBUTE_PTR templ,
					     CK_ULONG count, CK_BYTE_PTR ad, CK_ULONG ad_len,
					     CK_OBJECT_HANDLE_PTR key);

#define P11_FUNCTIONS_32(X)                                                                    \
	X(C_EncapsulateKey, P11_FN_EncapsulateKey) X(C_DecapsulateKey, P11_FN_DecapsulateKey)      \
	X(C_VerifySignatureInit, P11_FN_VerifySignatureInit)                                     \
	X(C_VerifySignature, P11_FN_VerifySignature)                                             \
	X(C_VerifySignatureUpdate, P11_FN_VerifySignatureUpdate)                                 \
	X(C_VerifySignatureFinal, P11_FN_VerifySignatureFinal)                                   \
	X(C_GetSessionValidationFlags, P11_FN_GetSessionValidationFlags)                         \
	X(C_AsyncComplete, P11_FN_AsyncComplete) X(C_AsyncGetID, P11_FN_AsyncGetID)                \
	X(C_AsyncJoin, P11_FN_AsyncJoin) X(C_WrapKeyAuthenticated, P11_FN_WrapKeyAuthenticated)    \
	X(C_UnwrapKeyAuthenticated, P11_FN_UnwrapKeyAuthenticated)

typedef struct CK_FUNCTION_LIST_3_2 {
	CK_VERSION version;
	P11_FUNCTIONS_240(P11_MEMBER_240, P11_MEMBER_240)
	P11_FUNCTIONS_30(P11_MEMBER_30)
	P11_FUNCTIONS_32(P11_MEMBER_30)
} CK_FUNCTION_LIST_3_2;

P11_FUNCTIONS_32(P11_DECLARE_30)

#define CKA_UNIQUE_ID 0x4UL

/* ---- PKCS#11 3.2: post-quantum key types, mechanisms and attributes ---- */
#define CKK_ML_KEM 0x49UL
#define CKK_ML_DSA 0x4AUL
#define CKM_ML_KEM_KEY_PAIR_GEN 0x0FUL
#define CKM_ML_KEM 0x17UL
#define CKM_ML_DSA_KEY_PAIR_GEN 0x1CUL
#define CKM_ML_DSA 0x1DUL
#define CKM_HASH_ML_DSA 0x1FUL
/* HashML-DSA with the hash computed by the token (the 3.2 list; the module offers those whose
 * hash the TPM computes: SHA-256, SHA-384, SHA-512) */
#define CKM_HASH_ML_DSA_SHA224 0x23UL
#define CKM_HASH_ML_DSA_SHA256 0x24UL
#define CKM_HASH_ML_DSA_SHA384 0x25UL
#define CKM_HASH_ML_DSA_SHA512 0x26UL
#define CKM_HASH_ML_DSA_SHA3_224 0x27UL
#define CKM_HASH_ML_DSA_SHA3_256 0x28UL
#define CKM_HASH_ML_DSA_SHA3_384 0x29UL
#define CKM_HASH_ML_DSA_SHA3_512 0x2AUL
#define CKM_HASH_ML_DSA_SHAKE128 0x2BUL
#define CKM_HASH_ML_DSA_SHAKE256 0x2CUL
#define CKA_PARAMETER_SET 0x61DUL
#define CKA_SEED 0x637UL
#define CKA_ENCAPSULATE 0x633UL
#define CKA_DECAPSULATE 0x634UL
#define CKF_ENCAPSULATE 0x10000000UL
#define CKF_DECAPSULATE 0x20000000UL
#define CKP_ML_DSA_44 1UL
#define CKP_ML_DSA_65 2UL
#define CKP_ML_DSA_87 3UL
#define CKP_ML_KEM_512 1UL
#define CKP_ML_KEM_768 2UL
#define CKP_ML_KEM_1024 3UL
/* CKM_ML_DSA's (and CKM_HASH_ML_DSA_SHA*'s) parameter: the hedging wanted and the context
 * string */
typedef CK_ULONG CK_HEDGE_TYPE;
#define CKH_HEDGE_PREFERRED 0UL
#define CKH_HEDGE_REQUIRED 1UL
#define CKH_DETERMINISTIC_REQUIRED 2UL
typedef struct CK_SIGN_ADDITIONAL_CONTEXT {
	CK_HEDGE_TYPE hedgeVariant;
	CK_BYTE_PTR pContext;
	CK_ULONG ulContextLen;
} CK_SIGN_ADDITIONAL_CONTEXT;
/* CKM_HASH_ML_DSA's parameter: the same, and the mechanism of the hash that made the data */
typedef struct CK_HASH_SIGN_ADDITIONAL_CONTEXT {
	CK_HEDGE_TYPE hedgeVariant;
	CK_BYTE_PTR pContext;
	CK_ULONG ulContextLen;
	CK_MECHANISM_TYPE hash;
} CK_HASH_SIGN_ADDITIONAL_CONTEXT;

#endif
