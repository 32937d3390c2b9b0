/* The three ML-DSA parameter sets and their encoded sizes (FIPS 204 Tables 1 and 2). */
#include "crypto/mldsa.h"
#include "crypto/mldsa/params.h"

#define PK_BYTES(k) (32 + (k) * MLDSA_T1_POLY_BYTES)
#define SK_BYTES(k, l, eta_bits) (128 + ((k) + (l)) * 32 * (eta_bits) + (k) * MLDSA_T0_POLY_BYTES)
#define SIG_BYTES(k, l, ctb, z_bits, omega) ((ctb) + (l) * 32 * (z_bits) + (omega) + (k))

static const struct mldsa_params sets[3] = {
	{ .k = 4, .l = 4, .eta = 2, .tau = 39, .beta = 78, .gamma1 = 1 << 17,
	  .gamma2 = (MLDSA_Q - 1) / 88, .omega = 80, .ctilde_bytes = 32,
	  .eta_bits = 3, .z_bits = 18, .w1_bits = 6,
	  .pk_bytes = PK_BYTES(4), .sk_bytes = SK_BYTES(4, 4, 3), .sig_bytes = SIG_BYTES(4, 4, 32, 18, 80) },
	{ .k = 6, .l = 5, .eta = 4, .tau = 49, .beta = 196, .gamma1 = 1 << 19,
	  .gamma2 = (MLDSA_Q - 1) / 32, .omega = 55, .ctilde_bytes = 48,
	  .eta_bits = 4, .z_bits = 20, .w1_bits = 4,
	  .pk_bytes = PK_BYTES(6), .sk_bytes = SK_BYTES(6, 5, 4), .sig_bytes = SIG_BYTES(6, 5, 48, 20, 55) },
	{ .k = 8, .l = 7, .eta = 2, .tau = 60, .beta = 120, .gamma1 = 1 << 19,
	  .gamma2 = (MLDSA_Q - 1) / 32, .omega = 75, .ctilde_bytes = 64,
	  .eta_bits = 3, .z_bits = 20, .w1_bits = 4,
	  .pk_bytes = PK_BYTES(8), .sk_bytes = SK_BYTES(8, 7, 3), .sig_bytes = SIG_BYTES(8, 7, 64, 20, 75) },
};

const struct mldsa_params *mldsa_params_get(int set)
{
	if (set < MLDSA_44 || set > MLDSA_87)
		return NULL;
	return &sets[set - MLDSA_44];
}

size_t mldsa_pk_bytes(int set)
{
	const struct mldsa_params *p = mldsa_params_get(set);

	return p ? p->pk_bytes : 0;
}

size_t mldsa_sk_bytes(int set)
{
	const struct mldsa_params *p = mldsa_params_get(set);

	return p ? p->sk_bytes : 0;
}

size_t mldsa_sig_bytes(int set)
{
	const struct mldsa_params *p = mldsa_params_get(set);

	return p ? p->sig_bytes : 0;
}
