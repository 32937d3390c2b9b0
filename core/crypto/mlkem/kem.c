/* ML-KEM key generation, encapsulation and decapsulation (FIPS 203 Alg. 16-18). */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mlkem.h"
#include "crypto/mlkem/kpke.h"

int mlkem_keygen(int set, const uint8_t d[32], const uint8_t z[32], uint8_t *ek, uint8_t *dk)
{
	const struct mlkem_params *p = mlkem_params_get(set);
	uint8_t *dk_ek;

	if (!p || !d || !z || !ek || !dk)
		return -1;
	/* dk = dk_pke || ek || H(ek) || z */
	mlkem_pke_keygen(p, d, ek, dk);
	dk_ek = dk + p->k * MLKEM_POLY_BYTES;
	memcpy(dk_ek, ek, p->ek_bytes);
	sha3_256(dk_ek + p->ek_bytes, ek, p->ek_bytes);
	memcpy(dk_ek + p->ek_bytes + 32, z, 32);
	return 0;
}

int mlkem_encaps(int set, const uint8_t *ek, const uint8_t m[32], uint8_t *ct, uint8_t ss[32])
{
	const struct mlkem_params *p = mlkem_params_get(set);
	uint8_t in[64], kr[64];

	if (!p || !m || !ct || !ss || mlkem_check_ek(set, ek, p->ek_bytes))
		return -1;
	/* (K, r) = G(m || H(ek)) */
	memcpy(in, m, 32);
	sha3_256(in + 32, ek, p->ek_bytes);
	sha3_512(kr, in, sizeof(in));
	mlkem_pke_encrypt(p, ek, m, kr + 32, ct);
	memcpy(ss, kr, 32);
	keccak_wipe(in, sizeof(in));
	keccak_wipe(kr, sizeof(kr));
	return 0;
}

struct decaps_work {
	uint8_t in[64];		/* m' || h */
	uint8_t kr[64];		/* K' || r' */
	uint8_t k_bar[32];
	uint8_t ct[MLKEM_MAX_CT_BYTES];
	struct keccak_ctx j;
};

int mlkem_decaps(int set, const uint8_t *dk, const uint8_t *ct, uint8_t ss[32])
{
	const struct mlkem_params *p = mlkem_params_get(set);
	const uint8_t *ek, *h, *z;
	struct decaps_work wk;
	uint32_t diff = 0;
	uint8_t keep;
	size_t i;

	if (!p || !ct || !ss || mlkem_check_dk(set, dk, p->dk_bytes))
		return -1;
	ek = dk + p->k * MLKEM_POLY_BYTES;
	h = ek + p->ek_bytes;
	z = h + 32;
	mlkem_pke_decrypt(p, dk, ct, wk.in);
	memcpy(wk.in + 32, h, 32);
	sha3_512(wk.kr, wk.in, sizeof(wk.in));
	/* K_bar = J(z || c) */
	shake256_init(&wk.j);
	keccak_absorb(&wk.j, z, 32);
	keccak_absorb(&wk.j, ct, p->ct_bytes);
	keccak_finalize(&wk.j);
	keccak_squeeze(&wk.j, wk.k_bar, sizeof(wk.k_bar));
	mlkem_pke_encrypt(p, ek, wk.in, wk.kr + 32, wk.ct);
	/*
	 * Compare and select with masks over every byte, so whether c was accepted does not show in
	 * the timing (relies on the compiler not turning the mask arithmetic into a branch).
	 */
	for (i = 0; i < p->ct_bytes; i++)
		diff |= (uint32_t)(ct[i] ^ wk.ct[i]);
	keep = (uint8_t)(0u - ((diff - 1) >> 31));	/* 0xff iff c == c' */
	for (i = 0; i < 32; i++)
		ss[i] = (uint8_t)((wk.kr[i] & keep) | (wk.k_bar[i] & (uint8_t)~keep));
	keccak_wipe(&wk, sizeof(wk));
	return 0;
}
