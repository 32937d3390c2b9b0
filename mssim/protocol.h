/* MSSIM protocol constants, as in the Microsoft reference simulator's TpmTcpProtocol.h
 * (microsoft/ms-tpm-20-ref, TPMCmd/Simulator/include/TpmTcpProtocol.h) and as sent by
 * tpm2-tss's mssim TCTI. Every integer on the wire is big-endian.
 */
#ifndef MSSIM_PROTOCOL_H
#define MSSIM_PROTOCOL_H

#define TPM_SIGNAL_POWER_ON 1
#define TPM_SIGNAL_POWER_OFF 2
#define TPM_SIGNAL_PHYS_PRES_ON 3
#define TPM_SIGNAL_PHYS_PRES_OFF 4
#define TPM_SIGNAL_HASH_START 5
#define TPM_SIGNAL_HASH_DATA 6	/* u32 size, size bytes */
#define TPM_SIGNAL_HASH_END 7
#define TPM_SEND_COMMAND 8	/* u8 locality, u32 size, size bytes -> u32 size, response */
#define TPM_SIGNAL_CANCEL_ON 9
#define TPM_SIGNAL_CANCEL_OFF 10
#define TPM_SIGNAL_NV_ON 11
#define TPM_SIGNAL_NV_OFF 12
#define TPM_SIGNAL_KEY_CACHE_ON 13
#define TPM_SIGNAL_KEY_CACHE_OFF 14
#define TPM_REMOTE_HANDSHAKE 15	/* u32 client version -> u32 server version, u32 flags */
#define TPM_SET_ALTERNATIVE_RESULT 16	/* u32 result */
#define TPM_SIGNAL_RESET 17
#define TPM_SIGNAL_RESTART 18
#define TPM_SESSION_END 20
#define TPM_STOP 21
#define TPM_GET_COMMAND_RESPONSE_SIZES 25
#define TPM_ACT_GET_SIGNALED 26	/* u32 ACT handle */
#define TPM_TEST_FAILURE_MODE 30
#define TPM_SET_FW_HASH 35	/* u32 */
#define TPM_SET_FW_SVN 36	/* u32 */

/* Handshake answer (enum TpmEndPointInfo). */
#define MSSIM_SERVER_VERSION 1
#define MSSIM_EP_PLATFORM_AVAILABLE 0x01
#define MSSIM_EP_USES_TBS 0x02
#define MSSIM_EP_IN_RAW_MODE 0x04
#define MSSIM_EP_SUPPORTS_PP 0x08
#define MSSIM_EP_NO_FORCE_FAILURE 0x80

/* The u32 that ends every exchange: 0 = done, nonzero = not done (our choice: 1, as the
 * reference answers an unrecognized platform command). */
#define MSSIM_ACK_OK 0
#define MSSIM_ACK_FAIL 1

#endif
