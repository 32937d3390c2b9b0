/* The functions this module does not implement: CKR_FUNCTION_NOT_SUPPORTED, the answer the
 * specification gives for them (a function moves out of this file when it is implemented). */
#include "p11.h"

#define NOT_SUPPORTED(name, args)                                                                  \
	CK_RV name args                                                                            \
	{                                                                                          \
		return CKR_FUNCTION_NOT_SUPPORTED;                                                 \
	}

/* PKCS#11 2.40 */
NOT_SUPPORTED(C_GetOperationState, (CK_SESSION_HANDLE session, CK_BYTE_PTR operation_state,
				    CK_ULONG_PTR operation_state_len))
NOT_SUPPORTED(C_SetOperationState,
	      (CK_SESSION_HANDLE session, CK_BYTE_PTR operation_state, CK_ULONG operation_state_len,
	       CK_OBJECT_HANDLE encryption_key, CK_OBJECT_HANDLE authentication_key))
NOT_SUPPORTED(C_DigestKey, (CK_SESSION_HANDLE session, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_SignRecoverInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_SignRecover, (CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len,
			      CK_BYTE_PTR signature, CK_ULONG_PTR signature_len))
NOT_SUPPORTED(C_VerifyRecoverInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_VerifyRecover, (CK_SESSION_HANDLE session, CK_BYTE_PTR signature,
				CK_ULONG signature_len, CK_BYTE_PTR data, CK_ULONG_PTR data_len))
NOT_SUPPORTED(C_DigestEncryptUpdate,
	      (CK_SESSION_HANDLE session, CK_BYTE_PTR part, CK_ULONG part_len,
	       CK_BYTE_PTR encrypted_part, CK_ULONG_PTR encrypted_part_len))
NOT_SUPPORTED(C_DecryptDigestUpdate,
	      (CK_SESSION_HANDLE session, CK_BYTE_PTR encrypted_part, CK_ULONG encrypted_part_len,
	       CK_BYTE_PTR part, CK_ULONG_PTR part_len))
NOT_SUPPORTED(C_SignEncryptUpdate, (CK_SESSION_HANDLE session, CK_BYTE_PTR part, CK_ULONG part_len,
				    CK_BYTE_PTR encrypted_part, CK_ULONG_PTR encrypted_part_len))
NOT_SUPPORTED(C_DecryptVerifyUpdate,
	      (CK_SESSION_HANDLE session, CK_BYTE_PTR encrypted_part, CK_ULONG encrypted_part_len,
	       CK_BYTE_PTR part, CK_ULONG_PTR part_len))
NOT_SUPPORTED(C_WrapKey,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE wrapping_key,
	       CK_OBJECT_HANDLE key, CK_BYTE_PTR wrapped_key, CK_ULONG_PTR wrapped_key_len))
NOT_SUPPORTED(C_UnwrapKey,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	       CK_OBJECT_HANDLE unwrapping_key, CK_BYTE_PTR wrapped_key, CK_ULONG wrapped_key_len,
	       CK_ATTRIBUTE_PTR templ, CK_ULONG attribute_count, CK_OBJECT_HANDLE_PTR key))
NOT_SUPPORTED(C_WaitForSlotEvent, (CK_FLAGS flags, CK_SLOT_ID_PTR slot, CK_VOID_PTR reserved))

/* PKCS#11 3.0 */
NOT_SUPPORTED(C_SessionCancel, (CK_SESSION_HANDLE session, CK_FLAGS flags))
NOT_SUPPORTED(C_MessageEncryptInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_MessageDecryptInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_MessageSignInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_MessageVerifyInit,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key))
NOT_SUPPORTED(C_EncryptMessage,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR associated_data, CK_ULONG associated_data_len, CK_BYTE_PTR in,
	       CK_ULONG in_len, CK_BYTE_PTR out, CK_ULONG_PTR out_len))
NOT_SUPPORTED(C_DecryptMessage,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR associated_data, CK_ULONG associated_data_len, CK_BYTE_PTR in,
	       CK_ULONG in_len, CK_BYTE_PTR out, CK_ULONG_PTR out_len))
NOT_SUPPORTED(C_EncryptMessageBegin,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR associated_data, CK_ULONG associated_data_len))
NOT_SUPPORTED(C_DecryptMessageBegin,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR associated_data, CK_ULONG associated_data_len))
NOT_SUPPORTED(C_EncryptMessageNext, (CK_SESSION_HANDLE session, CK_VOID_PTR parameter,
				     CK_ULONG parameter_len, CK_BYTE_PTR in, CK_ULONG in_len,
				     CK_BYTE_PTR out, CK_ULONG_PTR out_len, CK_FLAGS flags))
NOT_SUPPORTED(C_DecryptMessageNext, (CK_SESSION_HANDLE session, CK_VOID_PTR parameter,
				     CK_ULONG parameter_len, CK_BYTE_PTR in, CK_ULONG in_len,
				     CK_BYTE_PTR out, CK_ULONG_PTR out_len, CK_FLAGS flags))
NOT_SUPPORTED(C_MessageEncryptFinal, (CK_SESSION_HANDLE session))
NOT_SUPPORTED(C_MessageDecryptFinal, (CK_SESSION_HANDLE session))
NOT_SUPPORTED(C_MessageSignFinal, (CK_SESSION_HANDLE session))
NOT_SUPPORTED(C_MessageVerifyFinal, (CK_SESSION_HANDLE session))
NOT_SUPPORTED(C_SignMessage, (CK_SESSION_HANDLE session, CK_VOID_PTR parameter,
			      CK_ULONG parameter_len, CK_BYTE_PTR data, CK_ULONG data_len,
			      CK_BYTE_PTR signature, CK_ULONG_PTR signature_len))
NOT_SUPPORTED(C_SignMessageNext, (CK_SESSION_HANDLE session, CK_VOID_PTR parameter,
				  CK_ULONG parameter_len, CK_BYTE_PTR data, CK_ULONG data_len,
				  CK_BYTE_PTR signature, CK_ULONG_PTR signature_len))
NOT_SUPPORTED(C_SignMessageBegin,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len))
NOT_SUPPORTED(C_VerifyMessageBegin,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len))
NOT_SUPPORTED(C_VerifyMessage,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR signature, CK_ULONG signature_len))
NOT_SUPPORTED(C_VerifyMessageNext,
	      (CK_SESSION_HANDLE session, CK_VOID_PTR parameter, CK_ULONG parameter_len,
	       CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR signature, CK_ULONG signature_len))

/* PKCS#11 3.2 (C_EncapsulateKey and C_DecapsulateKey are in kem.c) */
NOT_SUPPORTED(C_VerifySignatureInit, (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
				      CK_OBJECT_HANDLE key, CK_BYTE_PTR signature,
				      CK_ULONG signature_len))
NOT_SUPPORTED(C_VerifySignature, (CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len))
NOT_SUPPORTED(C_VerifySignatureUpdate,
	      (CK_SESSION_HANDLE session, CK_BYTE_PTR part, CK_ULONG part_len))
NOT_SUPPORTED(C_VerifySignatureFinal, (CK_SESSION_HANDLE session))
NOT_SUPPORTED(C_GetSessionValidationFlags, (CK_SESSION_HANDLE session,
					    CK_SESSION_VALIDATION_FLAGS_TYPE type,
					    CK_FLAGS *flags))
NOT_SUPPORTED(C_AsyncComplete, (CK_SESSION_HANDLE session, CK_UTF8CHAR_PTR function_name,
				CK_ASYNC_DATA_PTR result))
NOT_SUPPORTED(C_AsyncGetID,
	      (CK_SESSION_HANDLE session, CK_UTF8CHAR_PTR function_name, CK_ULONG_PTR id))
NOT_SUPPORTED(C_AsyncJoin, (CK_SESSION_HANDLE session, CK_UTF8CHAR_PTR function_name,
			    CK_ULONG id, CK_BYTE_PTR data, CK_ULONG data_len))
NOT_SUPPORTED(C_WrapKeyAuthenticated,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE wrapping_key,
	       CK_OBJECT_HANDLE key, CK_BYTE_PTR associated_data, CK_ULONG associated_data_len,
	       CK_BYTE_PTR wrapped_key, CK_ULONG_PTR wrapped_key_len))
NOT_SUPPORTED(C_UnwrapKeyAuthenticated,
	      (CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
	       CK_OBJECT_HANDLE unwrapping_key, CK_BYTE_PTR wrapped_key, CK_ULONG wrapped_key_len,
	       CK_ATTRIBUTE_PTR templ, CK_ULONG attribute_count, CK_BYTE_PTR associated_data,
	       CK_ULONG associated_data_len, CK_OBJECT_HANDLE_PTR key))
