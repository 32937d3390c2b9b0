/* Response codes as text, exactly as tpm2_rc_decode (tpm2-tools 5.4, tpm2-tss 3.2) prints them,
 * so that a message from this library reads the same as one from the tools next to it:
 * "layer:" then, for the TPM (and resource-manager TPM) layer, format-one codes with the
 * parameter, handle or session they name, format-zero errors and warnings by TPM version; for
 * the TSS layers (fapi, esapi, sys, mu, tcti: this library's PQTPM_TSS_RC_* are tcti codes)
 * the common TSS2 base codes. The texts are Part 2's descriptions as the tool words them,
 * including its quirks (a 3-bit parameter number, "(null)" for unassigned format-one
 * numbers); tests/unit/test_tss_rc.c runs the tool to compare. */
#include <stdio.h>

#include "tss_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RC_SEVERITY 0x800 /* format zero: a warning */
#define RC_VENDOR 0x400	  /* format zero: vendor defined */

/* format one: TPM_RC_FMT1 + n */
static const char *const fmt1[0x28] = {
	[0x01] = "asymmetric algorithm not supported or not correct",
	[0x02] = "inconsistent attributes",
	[0x03] = "hash algorithm not supported or not appropriate",
	[0x04] = "value is out of range or is not correct for the context",
	[0x05] = "hierarchy is not enabled or is not correct for the use",
	[0x07] = "key size is not supported",
	[0x08] = "mask generation function not supported",
	[0x09] = "mode of operation not supported",
	[0x0A] = "the type of the value is not appropriate for the use",
	[0x0B] = "the handle is not correct for the use",
	[0x0C] = "unsupported key derivation function or function not appropriate for use",
	[0x0D] = "value was out of allowed range",
	[0x0E] = "the authorization HMAC check failed and DA counter incremented",
	[0x0F] = "invalid nonce size or nonce value mismatch",
	[0x10] = "authorization requires assertion of PP",
	[0x12] = "unsupported or incompatible scheme",
	[0x15] = "structure is the wrong size",
	[0x16] = "unsupported symmetric algorithm or key size or not appropriate for instance",
	[0x17] = "incorrect structure tag",
	[0x18] = "union selector is incorrect",
	[0x1A] =
		"the TPM was unable to unmarshal a value because there were not enough octets "
		"in the input buffer",
	[0x1B] = "the signature is not valid",
	[0x1C] = "key fields are not compatible with the selected use",
	[0x1D] = "a policy check failed",
	[0x1F] = "integrity check failed",
	[0x20] = "invalid ticket",
	[0x21] = "reserved bits not set to zero as required",
	[0x22] = "authorization failure without DA implications",
	[0x23] = "the policy has expired",
	[0x24] =
		"the commandCode in the policy is not the commandCode of the command or the "
		"command code in a policy command references a command that is not implemented",
	[0x25] = "public and sensitive portions of an object are not cryptographically bound",
	[0x26] = "curve not supported",
	[0x27] = "point is not on the required curve",
};

/* format zero, TPM 2.0 errors: TPM_RC_VER1 + n */
static const char *const fmt0[0x56] = {
	[0x00] = "TPM not initialized by TPM2_Startup or already initialized",
	[0x01] = "commands not being accepted because of a TPM failure",
	[0x03] = "improper use of a sequence handle",
	[0x0B] = "not currently used",
	[0x19] = "not currently used",
	[0x20] = "the command is disabled",
	[0x21] = "command failed because audit sequence required exclusivity",
	[0x24] = "authorization handle is not correct for command",
	[0x25] = "command requires an authorization session for handle and it is not present",
	[0x26] = "policy failure in math operation or an invalid authPolicy value",
	[0x27] = "PCR check fail",
	[0x28] = "PCR have changed since checked",
	[0x2D] =
		"For all commands, other than TPM2_FieldUpgradeData, this code indicates that "
		"the TPM is in field upgrade mode. For TPM2_FieldUpgradeData, this code "
		"indicates that the TPM is not in field upgrade mode",
	[0x2E] = "context ID counter is at maximum",
	[0x2F] = "authValue or authPolicy is not available for selected entity",
	[0x30] = "a _TPM_Init and StartupCLEAR is required before the TPM can resume operation",
	[0x31] =
		"the protection algorithms hash and symmetric are not reasonably balanced. The "
		"digest size of the hash must be larger than the key size of the symmetric "
		"algorithm.",
	[0x42] =
		"command commandSize value is inconsistent with contents of the command buffer. "
		"Either the size is not the same as the octets loaded by the hardware interface "
		"layer or the value is not large enough to hold a command header",
	[0x43] = "command code not supported",
	[0x44] =
		"the value of authorizationSize is out of range or the number of octets in the "
		"Authorization Area is greater than required",
	[0x45] =
		"use of an authorization session with a context command or another command that "
		"cannot have an authorization session",
	[0x46] = "NV offset+size is out of range",
	[0x47] = "Requested allocation size is larger than allowed",
	[0x48] = "NV access locked",
	[0x49] = "NV access authorization fails in command actions",
	[0x4A] =
		"an NV Index is used before being initialized or the state saved by "
		"TPM2_ShutdownSTATE could not be restored",
	[0x4B] = "insufficient space for NV allocation",
	[0x4C] = "NV Index or persistent object already defined",
	[0x50] = "context in TPM2_ContextLoad is not valid",
	[0x51] = "cpHash value already set or not correct for use",
	[0x52] = "handle for parent is not a valid parent",
	[0x53] = "some function needs testing",
	[0x54] =
		"returned when an internal function cannot process a request due to an "
		"unspecified problem. This code is usually related to invalid parameters that "
		"are not properly filtered by the input unmarshaling code",
	[0x55] = "the sensitive area did not unmarshal correctly after decryption",
};

/* format zero, TPM 2.0 warnings: TPM_RC_WARN + n */
static const char *const warn[0x24] = {
	[0x01] = "gap for context ID is too large",
	[0x02] = "out of memory for object contexts",
	[0x03] = "out of memory for session contexts",
	[0x04] = "out of shared objectsession memory or need space for internal operations",
	[0x05] = "out of session handles",
	[0x06] = "out of object handles",
	[0x07] = "bad locality",
	[0x08] =
		"the TPM has suspended operation on the command forward progress was made and "
		"the command may be retried",
	[0x09] = "the command was canceled",
	[0x0A] = "TPM is performing selftests",
	[0x10] =
		"the 1st handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x11] =
		"the 2nd handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x12] =
		"the 3rd handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x13] =
		"the 4th handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x14] =
		"the 5th handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x15] =
		"the 6th handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x16] =
		"the 7th handle in the handle area references a transient object or session "
		"that is not loaded",
	[0x18] = "the 1st authorization session handle references a session that is not loaded",
	[0x19] = "the 2nd authorization session handle references a session that is not loaded",
	[0x1A] = "the 3rd authorization session handle references a session that is not loaded",
	[0x1B] = "the 4th authorization session handle references a session that is not loaded",
	[0x1C] = "the 5th session handle references a session that is not loaded",
	[0x1D] = "the 6th session handle references a session that is not loaded",
	[0x1E] = "the 7th authorization session handle references a session that is not loaded",
	[0x20] = "the TPM is rate limiting accesses to prevent wearout of NV",
	[0x21] =
		"authorizations for objects subject to DA protection are not allowed at this "
		"time because the TPM is in DA lockout mode",
	[0x22] = "the TPM was not able to start the command",
	[0x23] = "the command may require writing of NV and NV is not current accessible",
};

/* TSS2_BASE_RC_*, shared by the TSS layers */
static const char *const base[0x36] = {
	[0x00] = "success",
	[0x01] = "Catch all for all errors not otherwise specified",
	[0x02] = "If called functionality isn't implemented",
	[0x03] = "A context structure is bad",
	[0x04] = "Passed in ABI version doesn't match called module's ABI version",
	[0x05] = "A pointer is NULL that isn't allowed to be NULL.",
	[0x06] = "A buffer isn't large enough",
	[0x07] = "Function called in the wrong order",
	[0x08] = "Fails to connect to next lower layer",
	[0x09] = "Operation timed out; function must be called again to be completed",
	[0x0A] = "IO failure",
	[0x0B] = "A parameter has a bad value",
	[0x0C] = "Operation not permitted.",
	[0x0D] =
		"Session structures were sent, but command doesn't use them or doesn't use the "
		"specified number of them",
	[0x0E] =
		"If function called that uses decrypt parameter, but command doesn't support "
		"decrypt parameter.",
	[0x0F] =
		"If function called that uses encrypt parameter, but command doesn't support "
		"decrypt parameter.",
	[0x10] = "If size of a parameter is incorrect",
	[0x11] = "Response is malformed",
	[0x12] = "Context not large enough",
	[0x13] = "Response is not long enough",
	[0x14] = "Unknown or unusable TCTI version",
	[0x15] = "Functionality not supported",
	[0x16] = "TCTI context is bad",
	[0x17] = "Failed to allocate memory",
	[0x18] = "The ESYS_TR resource object is bad",
	[0x19] = "Multiple sessions were marked with attribute decrypt",
	[0x1A] = "Multiple sessions were marked with attribute encrypt",
	[0x1B] = "Authorizing the TPM response failed",
	[0x1C] = "No config is available",
	[0x1D] = "The provided path is bad",
	[0x1E] = "The object is not deletable",
	[0x1F] = "The provided path already exists",
	[0x20] = "The key was not found",
	[0x21] = "Signature verification failed",
	[0x22] = "Hashes mismatch",
	[0x23] = "Key is not duplicatable",
	[0x24] = "The path was not found",
	[0x25] = "No certificate",
	[0x26] = "No PCR",
	[0x27] = "PCR not resettable",
	[0x28] = "The template is bad",
	[0x29] = "Authorization failed",
	[0x2A] = "Authorization is unknown",
	[0x2B] = "NV is not readable",
	[0x2C] = "NV is too small",
	[0x2D] = "NV is not writable",
	[0x2E] = "The policy is unknown",
	[0x2F] = "The NV type is wrong",
	[0x30] = "The name already exists",
	[0x31] = "No TPM available",
	[0x32] = "The key is bad",
	[0x33] = "No handle provided",
	[0x34] = "Provisioning was not executed.",
	[0x35] = "Already provisioned",
};

static const char *const layer_name[] = {
	[0] = "tpm",	[6] = "fapi", [7] = "esapi", [8] = "sys",
	[9] = "mu",	[10] = "tcti", [11] = "rmt",  [12] = "rm", [13] = "drvr",
};

static const char *lookup(const char *const *table, size_t n, unsigned i)
{
	return i < n ? table[i] : NULL;
}

/* The TPM's own codes (layers tpm and rmt): err is the low 16 bits. */
static void tpm_text(char *buf, size_t len, unsigned err)
{
	unsigned n = (err >> 8) & 0x7;
	const char *s, *kind;
	char num[8] = "unk";

	if (err == 0) {
		snprintf(buf, len, "success");
	} else if (err & TPM_RC_FMT1) {
		unsigned e = err & 0x3F;

		kind = (err & TPM_RC_P) ? "parameter" : (err & TPM_RC_S) ? "session" : "handle";
		if (n)
			snprintf(num, sizeof(num), "%u", n);
		if (e < N(fmt1)) {
			s = fmt1[e];
			snprintf(buf, len, "%s(%s):%s", kind, num, s ? s : "(null)");
		} else {
			snprintf(buf, len, "%s(%s):unknown error num: 0x%X", kind, num, e);
		}
	} else {
		kind = (err & RC_SEVERITY) ? "warn" : "error";
		if (!(err & TPM_RC_VER1))
			snprintf(buf, len, "%s(1.2): unknown version 1.2 error code", kind);
		else if (err & RC_VENDOR)
			snprintf(buf, len, "%s(2.0): Vendor specific error: 0x%X", kind, err & 0x7F);
		else if ((s = (err & RC_SEVERITY) ? lookup(warn, N(warn), err & 0x7F)
						    : lookup(fmt0, N(fmt0), err & 0x7F)))
			snprintf(buf, len, "%s(2.0): %s", kind, s);
		else
			snprintf(buf, len, "0x%X", err);
	}
}

const char *pqtpm_tss_rc_decode(TPM_RC rc, char *buf, size_t len)
{
	unsigned layer = (rc >> 16) & 0xFF, err = rc & 0xFFFF;
	const char *name = layer < N(layer_name) ? layer_name[layer] : NULL;
	const char *s;
	int n;

	if (!buf || len == 0)
		return "";
	n = name ? snprintf(buf, len, "%s:", name) : snprintf(buf, len, "%u:", layer);
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (layer == 0 || layer == 11)
		tpm_text(buf + n, len - (size_t)n, err);
	else if (layer >= 6 && layer <= 10 && err == 0)
		snprintf(buf + n, len - (size_t)n, "success");
	else if (layer >= 6 && layer <= 10 && (s = lookup(base, N(base), err)))
		snprintf(buf + n, len - (size_t)n, "%s", s);
	else if (layer >= 6 && layer <= 10)
		snprintf(buf + n, len - (size_t)n, "0x%X", err);
	else /* a layer without a decoder: the tool shows the code above the low byte */
		snprintf(buf + n, len - (size_t)n, "0x%X", rc >> 8);
	return buf;
}
