/* The PKCS#11 module's object functions through its function list (dlopen): C_CreateObject of
 * existing RSA and EC private keys (fixed keys below, made by openssl outside this project)
 * imported into the TPM and of RSA, EC and ML-DSA public keys, each signing or verifying, the
 * signatures also checked by the crypto layer; the checks an import makes, with the CK_RV the
 * specification names; C_CopyObject and C_SetAttributeValue with their rules, a change seen by
 * another process; CKA_ALWAYS_AUTHENTICATE keys and CKU_CONTEXT_SPECIFIC; C_LoginUser;
 * HashML-DSA signatures checked by the crypto layer's HashML-DSA.Verify; C_SeedRandom. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "crypto/mldsa.h"
#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-objects-XXXXXX";
static char dir[PATH_MAX];
static CK_FUNCTION_LIST *f;
static CK_FUNCTION_LIST_3_0 *f3;
static void *lib;
static int counter;
static CK_SLOT_ID slot;
static CK_SESSION_HANDLE s;

#define SO_PIN "so-secret"
#define USER_PIN "1234"

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
static const uint8_t F4[] = { 0x01, 0x00, 0x01 };
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
static CK_OBJECT_CLASS priv_class = CKO_PRIVATE_KEY, pub_class = CKO_PUBLIC_KEY,
		       data_class = CKO_DATA;
static CK_KEY_TYPE rsa_type = CKK_RSA, ec_type = CKK_EC, mldsa_type = CKK_ML_DSA;

/* ---- fixed keys (hex), made with openssl's RSA and EC key generation ---- */
static const char RSA2048_N[] =
	"ec5d2f72bb8e5e1c9ab07858ac68ab053d61681be014d8baa796e62963457d12"
	"1ab5dca05d5c1ccbe771a858d6f99d2f90377ee0f2b8e7425bad81dc2c2e82c3"
	"615d61b3d4e9309649ae8d86b0024dde697cdfd14fb7fb2f87574e886ca18482"
	"d80a8ddb7457f877ef34550f59d0814b8cb7cede84ca7406a5ef13a2bdc0cffe"
	"f4dfd013102401833da45340033bcddcd8f56d85d9c32fbe6256c9d2db7e152b"
	"e9e3050853447920476f133748534905de66872891e812e588bb0b5a0528342d"
	"83fe6e21d21aa16734b85b6e60398f8b6644d6f55689fde089c6808164564c27"
	"f55328dfbb3e444a37acdfe37aebf8ba7c475d5ed8cfdc07103c95f63bf1a01b";
static const char RSA2048_D[] =
	"12a24b64a6d753cc102b4166f190a98aec3535ae9ce7dd28e4a01cdd13c51d55"
	"c40d4fab6f861cd9bbbc00cda02fbaedf901fc5ab79d4ed35dc43c01f8e9b71d"
	"62c65336de337ec51a61f72905cf3e06fec1fd7dd439be4517a2666a92f08385"
	"dd35027753f616273e65c874415c681510aef2517b493559cb7dcc4a7eddd332"
	"8645a04e5cc06e0c06cf436e47c6eee6111cfff0fbd133f994bb84af2a2bb953"
	"b107daf90273517befb22ecb20d4367e40d8f1a71dcbadd5c7f550a7e5e379d0"
	"66d4c255741b65226c2353279d3c383deb4c48fcabb8b83fa44b09bf4602842b"
	"fafb8bb9abe9be9545755e9a2c6dca6fcf34af74845577edec051db0f42c8241";
static const char RSA2048_P[] =
	"fdca9f5581b5aa86e33ff50201f4375443a7f6aa9312b638e020ddd90638c351"
	"1c1f167a70b50615530d4c32bb2b7beec383222763eeeb1ffaee84cf6c141ba7"
	"e32d656fc42b5f9b9df65b310dff788f86a029a210d55b973ae9a5c6f09fe805"
	"b3747ec0e508ce012ca925428acd0590d926fe912204d8844d0cce2f42244d43";
static const char RSA2048_Q[] =
	"ee6bbd429fbbd3b164bbb9fed20ca8741a45493d64d6ab97b5178729203e35ac"
	"92eca09f0eacd9f13271935b3f2a7a3070beef6822ab7b5647496c51dac7144c"
	"c7de84fc418e14a6330bc3942d3d300c699be05885b823073779a8130e7aa075"
	"8a5db45dbf82f6d45efbdd44e45cf97ddaa9854275e2a6da3c001025c0848849";
static const char RSA2048_DP[] =
	"7486f34fa465d02d6cec31c7c133ebafa1fcddf205e3628d8cc32a797a34d7e1"
	"47033323f6d9f738155116ba785c07e4621ab4b4d75a9cd4ab3796fd52078d87"
	"3174e78d40ca1574f33b693585d2d5fd38781385992b0d89cb7ffa20f4dcc700"
	"cf1bdf131c5645981e746f6a3526dbb65d2e5d5630037f92877a28b5642e1cd7";
static const char RSA2048_DQ[] =
	"26aaf89e06940ae859630cee6418c375591165a87c63489f2932b0ac1ddb990e"
	"ed214d879e74b0402b233a77f10dad958fa397e676c10316e226e95779391274"
	"c571b475c9180707517e15f141490c32e729edbfcda8289e32041c1b431ce64b"
	"49ee9aa31dbd5ad4e4b6ca9332ca557870ef4f7a90edfa8ba871862ce9455569";
static const char RSA2048_QINV[] =
	"2ebfbac97ebfea25a4ef668afca4af58f50bc88db09c95d491838ad0cfa62035"
	"578109534a136385a015be80682c4eb9a39593de991f97cfb1c92bde65ea5051"
	"6d6ec246b4b4bbac92d462a307c53a53006ace64491252bfdfaac6f952692337"
	"a0548cb7133fb4fd0e945ab55ae273095448804eaa3236b33479b17cefb8d4d7";
static const char RSA3072_N[] =
	"c21c6331a83437721f42c82f6faa2c8c13aaffb4a26399c403f294200a7ad9a8"
	"940ce3a75ef173aebad935cfea81cbbafb1696755fac7d1ead2b208417c03765"
	"5c312c56016da3b648dc4bf69ec56e86485d7f1c01b370d1976bf5ec6cde8c88"
	"a5d0d2e7a8dd78b153bc3fedce575c062ff852d65f3ea80871b32b8e4cb015f4"
	"e9f1df47ca56bc11e7ae5e03a4f93f54c4e9d78259d13da537c2e49e26e7a81e"
	"a2de929ea6eae3572bbcf38b7c31d046a29db9439b503602866d71ed326723a7"
	"9c31b381e680eb1796b358da6c51c161581af23ae86b1df1659d0a41a3a65faa"
	"647fb21bbcee17e87d72f2c67e5e82d2a995ad57693828d67613ea4d134a26f8"
	"970c2d3cdf8472b8c02ba0c063634f2c08f0ababa562bf0e33971b0cdf803a48"
	"c538dfaac8e9a90836723c09f2d7e2d15f0fab83b989be3be3635a53475c18d1"
	"2e9d90a7bd65e318d7de129fc57711a48963530bb2872fc2cfa9733c63d494e8"
	"070d97baedf130a336d6a7dde2ccb13a34f6f4d902966dfe975edde07521578f";
static const char RSA3072_D[] =
	"13777e593209be8fc2e3d328b2b5a9cf087feb3205e1204020b738b4b7e85720"
	"c96c3b7e830e8aeff88c2511eb6e45ecc416a153371b98d6b53e307e1ed5a798"
	"9234da41ebd5bf87dde9bdf2873cbc9759f58a7458155358a9ab6997e2d934d5"
	"d56f4a5f723777cdacdca1baab2966b0b629dcc0e3ff6821a4a977d2470d97be"
	"1ea223a6d2fb7cd3fcdca7500d40f3e17ff805a56c75880da43876ee076fcf13"
	"f77883d2c661a318106a5c305e6dae7a0effeb5f04d9f7f8abdb9903d53cb3be"
	"03dfc2bf9f51509e359260daa6786b95341b598500ba688ba02c2f6125be5c65"
	"6d21893885b7e6c2433c3632fdf4ff1e0104f7bec0b8ba898baff5154f675b76"
	"ba33328daff0829a6ce466c0f9dda9618562101d6b8bdd0a5f92f85801f9d59d"
	"8f0963ab23148e9cd0c11659c620201ff74af99c928dceca093e98c6a80814a8"
	"0a45ac6cd8371fc5a80a2f8df620e4c666d4fafec5874f4bab7fb830c30ccc92"
	"050aa062c3ee34ebe55040babb5321b4fac032000899301157ebfed831ebc865";
static const char RSA3072_P[] =
	"fd4ac5ed842a21de108efa3ae9669da4df19a7649b5baaaf5011cdf778d25a80"
	"944432c47d11021bedad5f0b95db8d9b11cbbc9e8109b1749f64ea06a5d651aa"
	"8570af613d0b5e7901f6050d762c67aff1d74550dc156930cf4096e08e4c3d60"
	"d315f45c091cc8f4752be45fbada74bc07fb17e958aa4e33816df7e16834f2e7"
	"e53a57a6743c97e087d4287c38af46e2fb4c318205c5a14289a57e1bd81660a6"
	"2106e79f4bfdd6f6a1e5a195c907c06669918bd0e2ad280d7a0f0e8ea9a17005";
static const char RSA3072_Q[] =
	"c42fa4ab61b2e2df58d1f435c9ba285dd0fdcd269152f0b222a375e25243d239"
	"8c57fec893cde0417388ae5838ceca7d22151f921d278ae7ae9f8bfa9c8e6207"
	"54321525184f1bcecea2370e7471b09dc597bc1aa60a8850c7013cf41e7f009c"
	"477a6ea5854029092a6caf4ee6a57d810a63c9146c1d55e73c1802ad0b641e04"
	"e7b632c5b4be2e6cc431bccb8dea672b201487301ba4e06efcd517d51c081185"
	"5b1ac9fe9a3856391ad8add38f448f4ab10a1eeb8d05816fe0d41301ead10183";
static const char RSA3072_DP[] =
	"9adc8d99035653309745237ec3570709579232c3132d7f75026a70585ed99595"
	"c990cccd4f7e07a115b70b466510404ad01d95abff4ef2dd4fdafe2ea4541dc8"
	"391fc54a996d0b0cc70328e1ab1fc9214ca6866dc2b1a087c41f445ff5006e02"
	"75ec956373fad26e8bf912fee89a4a06f086377f66c3715e9242aeec74aef2d8"
	"8f511567e2e76d204d4b8c992e7b13c71147eb7908986558ee196dba0e6ad81a"
	"9a54c366a4aa85347395972ea2238821d567b469393e0f1ff641a06fdf0ca215";
static const char RSA3072_DQ[] =
	"13709d229655c1815c2dc1c32ab0159be63f9ffa785ffd95c934e5537dcf569f"
	"7936a6fa7d1ae363d8ecec49b5a7580d3a39599d82e20e3392ec2054befaa4e0"
	"1109bd6aa594012f66ee500250ab8b52b6e7a82e03d1fb5bf5bc3babfcf19cbf"
	"df9d542576a4baec3b95f5711e0dbbf7f36d9bd9383557f3c7d2a1414065b54b"
	"cb2214b9de8511d899404c72e72718fdfef9c9c38c99b3db8b9619fc76009eab"
	"d6313b5ecd2d53ede8a91be060cbec5efc58026458def8ca7b3ec87b62273fbd";
static const char RSA3072_QINV[] =
	"886c7dd2f5b6966c9d3bad9b15100b88bbad71427c1109cb8e59778d797705e1"
	"84b4cf001c2fdb1a1b8436103d1819c2e6c504869b83ef228a1dc4c3ae522408"
	"b4caa484defd3a185c20287e693d140c8de126c2bab6299dd3e0603f09bab756"
	"19ce2336ed759f0a7c626a72c1ec2bcf71b6bd7861e22f813c0d9ae9c630a0f5"
	"153022d59b93fd2c83c0ebfe1f78666345518dacc2776a13973688f2eee7a1b3"
	"a977ae97edf0c7e849eb4a949f9ccf97c252aec31536d42ad65d4f3c67a21e23";
static const char ECP256_D[] =
	"d2e438aede3dc8baee464b57a939d1f96eaef94ed8ae7715f8293eac0b253cd8";
static const char ECP256_POINT[] =
	"04fda7b2ad58d19f17d54c1ba80ef28dec3bae0c5618574ee6505af6fd327d2c"
	"d9a2fa0d8351e5065f046372e4584fbcc5846e10c3774c6ca568fe9f896002fb"
	"e6";
static const char ECP384_D[] =
	"525fe84b0f509892084f59df6a519bca029947f97fa801f1f0bbeb6705fc91ed"
	"b346ca3289877b6c6a3b46cc4255e415";
static const char ECP384_POINT[] =
	"048f1ca4fcefac1ab80b129c6b9df4499b4410c671f429db04ebb95e4c7ea6fe"
	"cd69521f7d7a659fb39a3a8b1e173533f393c2c35f701e0cedc4b0140bcae2b4"
	"5bf5cf685bdf315e5c0f7c0fbf6c935d7d92c7dd0656ad6544922d513ffdffcd"
	"f8";

/* A key's parts as bytes. */
struct bytes {
	uint8_t b[512];
	size_t len;
};

static struct bytes hex(const char *h)
{
	struct bytes out = { .len = strlen(h) / 2 };
	size_t i;

	for (i = 0; i < out.len; i++)
		sscanf(h + 2 * i, "%2hhx", &out.b[i]);
	return out;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	p11_token_user_session(f, "objects", SO_PIN, USER_PIN, &slot, &s);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

/* ---- RSA ---- */

struct rsa_key {
	struct bytes n, d, p, q, dp, dq, qinv;
};

static struct rsa_key rsa_key(int bits)
{
	struct rsa_key k;

	if (bits == 2048)
		k = (struct rsa_key){ hex(RSA2048_N), hex(RSA2048_D), hex(RSA2048_P),
				      hex(RSA2048_Q), hex(RSA2048_DP), hex(RSA2048_DQ),
				      hex(RSA2048_QINV) };
	else
		k = (struct rsa_key){ hex(RSA3072_N), hex(RSA3072_D), hex(RSA3072_P),
				      hex(RSA3072_Q), hex(RSA3072_DP), hex(RSA3072_DQ),
				      hex(RSA3072_QINV) };
	return k;
}

/* The full PKCS#11 template of an RSA private key (13 attributes); parts may be changed by
 * the caller through the returned array before use. */
static CK_ULONG rsa_priv_template(struct rsa_key *k, CK_ATTRIBUTE *t)
{
	CK_ATTRIBUTE tmpl[] = {
		{ CKA_CLASS, &priv_class, sizeof(priv_class) },
		{ CKA_KEY_TYPE, &rsa_type, sizeof(rsa_type) },
		{ CKA_TOKEN, &yes, sizeof(yes) },
		{ CKA_SIGN, &yes, sizeof(yes) },
		{ CKA_DECRYPT, &yes, sizeof(yes) },
		{ CKA_MODULUS, k->n.b, k->n.len },
		{ CKA_PUBLIC_EXPONENT, (void *)F4, sizeof(F4) },
		{ CKA_PRIVATE_EXPONENT, k->d.b, k->d.len },
		{ CKA_PRIME_1, k->p.b, k->p.len },
		{ CKA_PRIME_2, k->q.b, k->q.len },
		{ CKA_EXPONENT_1, k->dp.b, k->dp.len },
		{ CKA_EXPONENT_2, k->dq.b, k->dq.len },
		{ CKA_COEFFICIENT, k->qinv.b, k->qinv.len },
	};

	memcpy(t, tmpl, sizeof(tmpl));
	return sizeof(tmpl) / sizeof(tmpl[0]);
}

static CK_RV rsa_public(struct rsa_key *k, CK_OBJECT_HANDLE *h)
{
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &pub_class, sizeof(pub_class) },
		{ CKA_KEY_TYPE, &rsa_type, sizeof(rsa_type) },
		{ CKA_VERIFY, &yes, sizeof(yes) },
		{ CKA_ENCRYPT, &yes, sizeof(yes) },
		{ CKA_MODULUS, k->n.b, k->n.len },
		{ CKA_PUBLIC_EXPONENT, (void *)F4, sizeof(F4) },
	};

	return f->C_CreateObject(s, t, 6, h);
}

/* Sign msg with mech by priv; C_Verify by pub; the signature into sig. */
static CK_ULONG sign_verify(CK_MECHANISM *m, CK_OBJECT_HANDLE priv, CK_OBJECT_HANDLE pub,
			    const char *msg, uint8_t *sig, CK_ULONG cap)
{
	CK_ULONG n = cap;

	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, m, priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Sign(s, (CK_BYTE *)msg, strlen(msg), sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)msg, strlen(msg), sig, n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"other", 5, sig, n), CKR_SIGNATURE_INVALID);
	return n;
}

/* The store's files hold none of these bytes. */
static void store_lacks(const struct bytes *secret)
{
	static const char *names[] = { "pkcs11.db", "pkcs11.db-wal" };
	char path[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < 2; i++) {
		FILE *fp;
		uint8_t *buf;
		long len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		fseek(fp, 0, SEEK_END);
		len = ftell(fp);
		rewind(fp);
		buf = malloc((size_t)len + 1);
		CU_ASSERT_FATAL(buf != NULL);
		CU_ASSERT_EQUAL(fread(buf, 1, (size_t)len, fp), (size_t)len);
		fclose(fp);
		CU_ASSERT_PTR_NULL(memmem(buf, (size_t)len, secret->b, secret->len));
		free(buf);
	}
}

static void import_rsa(int bits)
{
	struct rsa_key k = rsa_key(bits);
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 }, enc = { CKM_RSA_PKCS, NULL, 0 };
	CK_ATTRIBUTE t[16];
	CK_ULONG n = rsa_priv_template(&k, t), sn, cn, pn;
	CK_OBJECT_HANDLE priv, pub;
	CK_BBOOL local = 1, always = 1, never = 1, sens = 0, extr = 1;
	CK_ULONG gen = 0;
	uint8_t modulus[512], sig[512], ct[512], plain[512], digest[32];
	CK_ATTRIBUTE a[] = {
		{ CKA_LOCAL, &local, 1 },	      { CKA_ALWAYS_SENSITIVE, &always, 1 },
		{ CKA_NEVER_EXTRACTABLE, &never, 1 }, { CKA_SENSITIVE, &sens, 1 },
		{ CKA_EXTRACTABLE, &extr, 1 },	      { CKA_KEY_GEN_MECHANISM, &gen, sizeof(gen) },
		{ CKA_MODULUS, modulus, sizeof(modulus) },
	};
	CK_ATTRIBUTE secret[] = { { CKA_PRIME_1, NULL, 0 } };
	struct crypto_rsa ck = { .n = k.n.b, .nlen = k.n.len };

	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, t, n, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, a, 7), CKR_OK);
	CU_ASSERT(!local && !always && !never && sens && !extr);
	CU_ASSERT_EQUAL(gen, CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT(a[6].ulValueLen == k.n.len && !memcmp(modulus, k.n.b, k.n.len));
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, secret, 1), CKR_ATTRIBUTE_SENSITIVE);
	CU_ASSERT_EQUAL_FATAL(rsa_public(&k, &pub), CKR_OK);
	sn = sign_verify(&m, priv, pub, "imported", sig, sizeof(sig));
	CU_ASSERT_EQUAL(sn, k.n.len);
	/* the crypto layer agrees: the TPM signed with the key given */
	crypto_hash(TPM_ALG_SHA256, "imported", 8, digest);
	CU_ASSERT_EQUAL(crypto_rsa_verify(&ck, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, sig, sn),
			TPM_RC_SUCCESS);
	/* encrypted with the public key, decrypted by the imported one */
	cn = sizeof(ct);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &enc, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, (CK_BYTE *)"secret", 6, ct, &cn), CKR_OK);
	pn = sizeof(plain);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &enc, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, cn, plain, &pn), CKR_OK);
	CU_ASSERT(pn == 6 && !memcmp(plain, "secret", 6));
	/* only the TPM's blobs were kept */
	store_lacks(&k.p);
	store_lacks(&k.q);
	store_lacks(&k.d);
}

static void test_import_rsa(void)
{
	import_rsa(2048);
	import_rsa(3072);
}

/* A template of the 2048-bit key with attribute i's value replaced (len bytes of v). */
static CK_RV create_changed(struct rsa_key *k, CK_ATTRIBUTE_TYPE type, const void *v,
			    CK_ULONG len)
{
	CK_ATTRIBUTE t[16];
	CK_ULONG n = rsa_priv_template(k, t), i;
	CK_OBJECT_HANDLE h;

	for (i = 0; i < n; i++)
		if (t[i].type == type) {
			t[i].pValue = (void *)v;
			t[i].ulValueLen = len;
		}
	return f->C_CreateObject(s, t, n, &h);
}

/* The template without attribute type. */
static CK_RV create_without(struct rsa_key *k, CK_ATTRIBUTE_TYPE type)
{
	CK_ATTRIBUTE t[16];
	CK_ULONG n = rsa_priv_template(k, t), i, j = 0;
	CK_OBJECT_HANDLE h;

	for (i = 0; i < n; i++)
		if (t[i].type != type)
			t[j++] = t[i];
	return f->C_CreateObject(s, t, j, &h);
}

static void test_import_rsa_checks(void)
{
	struct rsa_key k = rsa_key(2048), k3 = rsa_key(3072);
	uint8_t zero[128] = { 0 }, p[128], e2[] = { 0x01, 0x00, 0x00 };
	CK_ATTRIBUTE t[16], extra[18];
	CK_ULONG n = rsa_priv_template(&k, t);
	CK_OBJECT_HANDLE h, ro;

	/* p = 0, a prime of another key, a modulus of another key */
	CU_ASSERT_EQUAL(create_changed(&k, CKA_PRIME_1, zero, sizeof(zero)),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(create_changed(&k, CKA_PRIME_1, k3.p.b, k3.p.len),
			CKR_ATTRIBUTE_VALUE_INVALID); /* longer than half the modulus */
	memcpy(p, k.p.b, sizeof(p));
	p[127] ^= 2;
	CU_ASSERT_EQUAL(create_changed(&k, CKA_PRIME_1, p, sizeof(p)), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(create_changed(&k, CKA_MODULUS, k3.n.b, 256), CKR_TEMPLATE_INCONSISTENT);
	/* one prime alone (the first nine attributes): the TPM finds whether it divides n */
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 9, &h), CKR_OK);
	CU_ASSERT_EQUAL(create_without(&k, CKA_PRIME_1), CKR_OK);
	t[8].pValue = p;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 9, &h), CKR_TEMPLATE_INCONSISTENT);
	t[8].pValue = k.p.b;
	/* what must be there */
	CU_ASSERT_EQUAL(create_without(&k, CKA_MODULUS), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(create_without(&k, CKA_PRIVATE_EXPONENT), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(create_without(&k, CKA_KEY_TYPE), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(create_without(&k, CKA_PUBLIC_EXPONENT), CKR_TEMPLATE_INCOMPLETE);
	/* values the key cannot have, attributes the module gives */
	CU_ASSERT_EQUAL(create_changed(&k, CKA_MODULUS, k.n.b, 128), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(create_changed(&k, CKA_PUBLIC_EXPONENT, e2, sizeof(e2)),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(create_changed(&k, CKA_DECRYPT, &yes, 4), CKR_ATTRIBUTE_VALUE_INVALID);
	memcpy(extra, t, n * sizeof(t[0]));
	extra[n] = (CK_ATTRIBUTE){ CKA_EXTRACTABLE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	extra[n] = (CK_ATTRIBUTE){ CKA_SENSITIVE, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	extra[n] = (CK_ATTRIBUTE){ CKA_LOCAL, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_ATTRIBUTE_READ_ONLY);
	extra[n] = (CK_ATTRIBUTE){ CKA_UNIQUE_ID, "x", 1 };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_ATTRIBUTE_READ_ONLY);
	extra[n] = (CK_ATTRIBUTE){ CKA_VALUE_LEN, &n, sizeof(n) };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_ATTRIBUTE_TYPE_INVALID);
	extra[n] = (CK_ATTRIBUTE){ CKA_DERIVE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_TEMPLATE_INCONSISTENT);
	extra[n] = extra[0];
	CU_ASSERT_EQUAL(f->C_CreateObject(s, extra, n + 1, &h), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(create_changed(&k, CKA_KEY_TYPE, &mldsa_type, sizeof(mldsa_type)),
			CKR_ATTRIBUTE_VALUE_INVALID);
	/* a token object in a read-only session; a private key without the user */
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CreateObject(ro, t, n, &h), CKR_SESSION_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	t[2].pValue = &no;
	CU_ASSERT_EQUAL(f->C_CreateObject(ro, t, n, &h), CKR_USER_NOT_LOGGED_IN);
}

/* ---- EC ---- */

static CK_RV ec_private(const uint8_t *oid, size_t oid_len, const struct bytes *d,
			CK_OBJECT_HANDLE *h)
{
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &priv_class, sizeof(priv_class) },
		{ CKA_KEY_TYPE, &ec_type, sizeof(ec_type) },
		{ CKA_SIGN, &yes, sizeof(yes) },
		{ CKA_DERIVE, &yes, sizeof(yes) },
		{ CKA_LABEL, "imported ec", 11 },
		{ CKA_EC_PARAMS, (void *)oid, oid_len },
		{ CKA_VALUE, (void *)d->b, d->len },
	};

	return f->C_CreateObject(s, t, 7, h);
}

/* point: the uncompressed point; der: as a DER OCTET STRING */
static CK_RV ec_public(const uint8_t *oid, size_t oid_len, const struct bytes *point, bool der,
		       CK_OBJECT_HANDLE *h)
{
	uint8_t buf[2 + 97];
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &pub_class, sizeof(pub_class) },
		{ CKA_KEY_TYPE, &ec_type, sizeof(ec_type) },
		{ CKA_EC_PARAMS, (void *)oid, oid_len },
		{ CKA_EC_POINT, buf, point->len + (der ? 2 : 0) },
	};

	buf[0] = 0x04;
	buf[1] = (uint8_t)point->len;
	memcpy(buf + (der ? 2 : 0), point->b, point->len);
	return f->C_CreateObject(s, t, 4, h);
}

static void import_ec(const uint8_t *oid, size_t oid_len, const char *dh, const char *ph,
		      uint16_t curve, size_t size)
{
	struct bytes d = hex(dh), point = hex(ph), bad;
	CK_MECHANISM m = { CKM_ECDSA_SHA256, NULL, 0 };
	CK_OBJECT_HANDLE priv, pub, pub2, h;
	uint8_t sig[96], digest[32], got[100];
	CK_ATTRIBUTE ga[] = { { CKA_EC_POINT, got, sizeof(got) } };
	CK_ULONG n;

	CU_ASSERT_EQUAL_FATAL(ec_private(oid, oid_len, &d, &priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(ec_public(oid, oid_len, &point, true, &pub), CKR_OK);
	n = sign_verify(&m, priv, pub, "imported ec", sig, sizeof(sig));
	CU_ASSERT_EQUAL_FATAL(n, 2 * size);
	crypto_hash(TPM_ALG_SHA256, "imported ec", 11, digest);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(curve, point.b + 1, point.b + 1 + size, digest, 32, sig,
					    size, sig + size, size),
			TPM_RC_SUCCESS);
	/* the bare point is taken too, and kept as the DER form */
	CU_ASSERT_EQUAL_FATAL(ec_public(oid, oid_len, &point, false, &pub2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, pub2, ga, 1), CKR_OK);
	CU_ASSERT(ga[0].ulValueLen == point.len + 2 && got[0] == 0x04 &&
		  !memcmp(got + 2, point.b, point.len));
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, pub2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"imported ec", 11, sig, n), CKR_OK);
	store_lacks(&d);
	/* d = 0, d >= n, a point off the curve, another curve */
	bad = d;
	memset(bad.b, 0, bad.len);
	CU_ASSERT_EQUAL(ec_private(oid, oid_len, &bad, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	memset(bad.b, 0xFF, bad.len);
	CU_ASSERT_EQUAL(ec_private(oid, oid_len, &bad, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	bad.len = size + 1;
	bad.b[0] = 1;
	CU_ASSERT_EQUAL(ec_private(oid, oid_len, &bad, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	bad = point;
	bad.b[bad.len - 1] ^= 1;
	CU_ASSERT_EQUAL(ec_public(oid, oid_len, &bad, true, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	bad.len--;
	CU_ASSERT_EQUAL(ec_public(oid, oid_len, &bad, true, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(ec_private(oid, oid_len - 1, &d, &h), CKR_CURVE_NOT_SUPPORTED);
}

static void test_import_ec(void)
{
	import_ec(OID_P256, sizeof(OID_P256), ECP256_D, ECP256_POINT, TPM_ECC_NIST_P256, 32);
	import_ec(OID_P384, sizeof(OID_P384), ECP384_D, ECP384_POINT, TPM_ECC_NIST_P384, 48);
}

/* ---- ML-DSA public keys, HashML-DSA ---- */

static void gen_mldsa(CK_ULONG set, CK_BBOOL token, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) },
			      { CKA_TOKEN, &token, sizeof(token) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) },
			      { CKA_TOKEN, &token, sizeof(token) } };

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &m, pt, 2, kt, 2, pub, priv), CKR_OK);
}

static void test_import_mldsa_public(void)
{
	CK_MECHANISM m = { CKM_ML_DSA, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv, copy, h;
	CK_ULONG set = CKP_ML_DSA_65, n = 0;
	uint8_t pk[MLDSA_MAX_PK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	CK_ATTRIBUTE ga[] = { { CKA_VALUE, pk, sizeof(pk) } };
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &pub_class, sizeof(pub_class) },
		{ CKA_KEY_TYPE, &mldsa_type, sizeof(mldsa_type) },
		{ CKA_PARAMETER_SET, &set, sizeof(set) },
		{ CKA_VALUE, pk, 0 },
	};

	gen_mldsa(set, CK_FALSE, &pub, &priv);
	CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(s, pub, ga, 1), CKR_OK);
	t[3].ulValueLen = ga[0].ulValueLen;
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, t, 4, &copy), CKR_OK);
	n = sign_verify(&m, priv, copy, "ml-dsa", sig, sizeof(sig));
	CU_ASSERT_EQUAL(n, mldsa_sig_bytes(MLDSA_65));
	t[3].ulValueLen--;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 4, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	set = 4;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 4, &h), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 3, &h), CKR_TEMPLATE_INCOMPLETE);
}

static void test_hash_mldsa(void)
{
	static const struct {
		CK_ULONG set;
		int mldsa;
		CK_MECHANISM_TYPE mech, hash;
		TPM_ALG_ID alg;
		size_t dlen;
	} cases[] = {
		{ CKP_ML_DSA_44, MLDSA_44, CKM_HASH_ML_DSA_SHA256, CKM_SHA256, TPM_ALG_SHA256, 32 },
		{ CKP_ML_DSA_65, MLDSA_65, CKM_HASH_ML_DSA_SHA384, CKM_SHA384, TPM_ALG_SHA384, 48 },
		{ CKP_ML_DSA_87, MLDSA_87, CKM_HASH_ML_DSA_SHA512, CKM_SHA512, TPM_ALG_SHA512, 64 },
	};
	uint8_t ctx[] = "pqtpm", pk[MLDSA_MAX_PK_BYTES], sig[MLDSA_MAX_SIG_BYTES], ph[64];
	uint8_t sig2[MLDSA_MAX_SIG_BYTES], msg[3000];
	CK_SIGN_ADDITIONAL_CONTEXT ac = { CKH_HEDGE_REQUIRED, ctx, 5 };
	CK_HASH_SIGN_ADDITIONAL_CONTEXT hc = { CKH_HEDGE_PREFERRED, ctx, 5, 0 };
	CK_ATTRIBUTE ga[] = { { CKA_VALUE, pk, sizeof(pk) } };
	CK_MECHANISM pure = { CKM_ML_DSA, &ac, sizeof(ac) };
	CK_OBJECT_HANDLE pub, priv;
	size_t i;

	memset(msg, 'm', sizeof(msg));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CK_MECHANISM m = { cases[i].mech, &ac, sizeof(ac) };
		CK_MECHANISM h = { CKM_HASH_ML_DSA, &hc, sizeof(hc) };
		CK_ULONG n = sizeof(sig), n2 = sizeof(sig2);

		gen_mldsa(cases[i].set, CK_FALSE, &pub, &priv);
		ga[0].ulValueLen = sizeof(pk);
		CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(s, pub, ga, 1), CKR_OK);
		/* the TPM hashes the message (two parts), the module makes mu, the key signs */
		CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &m, priv), CKR_OK);
		CU_ASSERT_EQUAL(f->C_SignUpdate(s, msg, 1000), CKR_OK);
		CU_ASSERT_EQUAL(f->C_SignUpdate(s, msg + 1000, 2000), CKR_OK);
		CU_ASSERT_EQUAL_FATAL(f->C_SignFinal(s, sig, &n), CKR_OK);
		CU_ASSERT_EQUAL(n, mldsa_sig_bytes(cases[i].mldsa));
		crypto_hash(cases[i].alg, msg, sizeof(msg), ph);
		/* FIPS 204 HashML-DSA.Verify of the crypto layer, with this context only */
		CU_ASSERT_EQUAL(mldsa_verify_hash(cases[i].mldsa, pk, cases[i].alg, ph,
						  cases[i].dlen, ctx, 5, sig, n),
				0);
		CU_ASSERT_NOT_EQUAL(mldsa_verify_hash(cases[i].mldsa, pk, cases[i].alg, ph,
						      cases[i].dlen, ctx, 4, sig, n),
				    0);
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, pub), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, msg, sizeof(msg), sig, n), CKR_OK);
		/* not a pure ML-DSA signature of the message */
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &pure, pub), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, msg, sizeof(msg), sig, n), CKR_SIGNATURE_INVALID);
		/* CKM_HASH_ML_DSA over the caller's digest: the same signature scheme */
		hc.hash = cases[i].hash;
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &h, pub), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, ph, cases[i].dlen, sig, n), CKR_OK);
		CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &h, priv), CKR_OK);
		CU_ASSERT_EQUAL_FATAL(f->C_Sign(s, ph, cases[i].dlen, sig2, &n2), CKR_OK);
		CU_ASSERT_EQUAL(mldsa_verify_hash(cases[i].mldsa, pk, cases[i].alg, ph,
						  cases[i].dlen, ctx, 5, sig2, n2),
				0);
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, pub), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, msg, sizeof(msg), sig2, n2), CKR_OK);
		/* a digest of another length */
		CU_ASSERT_EQUAL(f->C_SignInit(s, &h, priv), CKR_OK);
		n2 = sizeof(sig2);
		CU_ASSERT_EQUAL(f->C_Sign(s, ph, cases[i].dlen - 1, sig2, &n2), CKR_DATA_LEN_RANGE);
	}
	/* parameters: CKM_HASH_ML_DSA needs one, with a hash the TPM computes; deterministic
	 * signing is refused; the mechanisms are listed for ML-DSA keys only */
	{
		CK_MECHANISM h = { CKM_HASH_ML_DSA, NULL, 0 };
		CK_MECHANISM m = { CKM_HASH_ML_DSA_SHA256, &ac, sizeof(ac) - 1 };
		CK_MECHANISM_INFO info;

		CU_ASSERT_EQUAL(f->C_SignInit(s, &h, priv), CKR_MECHANISM_PARAM_INVALID);
		h.pParameter = &hc;
		h.ulParameterLen = sizeof(hc);
		hc.hash = CKM_SHA_1;
		CU_ASSERT_EQUAL(f->C_SignInit(s, &h, priv), CKR_MECHANISM_PARAM_INVALID);
		hc.hash = CKM_SHA256;
		hc.hedgeVariant = CKH_DETERMINISTIC_REQUIRED;
		CU_ASSERT_EQUAL(f->C_SignInit(s, &h, priv), CKR_MECHANISM_PARAM_INVALID);
		CU_ASSERT_EQUAL(f->C_SignInit(s, &m, priv), CKR_MECHANISM_PARAM_INVALID);
		m.pParameter = NULL;
		m.ulParameterLen = 0;
		CU_ASSERT_EQUAL(f->C_SignInit(s, &m, pub), CKR_KEY_TYPE_INCONSISTENT);
		CU_ASSERT_EQUAL(f->C_GetMechanismInfo(slot, CKM_HASH_ML_DSA_SHA512, &info), CKR_OK);
		CU_ASSERT(info.flags & CKF_SIGN && info.flags & CKF_VERIFY);
		CU_ASSERT_EQUAL(f->C_GetMechanismInfo(slot, CKM_HASH_ML_DSA_SHA224, &info),
				CKR_MECHANISM_INVALID);
	}
}

/* ---- C_CopyObject, C_SetAttributeValue ---- */

static CK_RV data_object(CK_BBOOL token, CK_BBOOL modifiable, const char *label,
			 CK_OBJECT_HANDLE *h)
{
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &data_class, sizeof(data_class) },
		{ CKA_TOKEN, &token, sizeof(token) },
		{ CKA_PRIVATE, &no, sizeof(no) },
		{ CKA_MODIFIABLE, &modifiable, sizeof(modifiable) },
		{ CKA_LABEL, (void *)label, strlen(label) },
		{ CKA_VALUE, "data", 4 },
	};

	return f->C_CreateObject(s, t, 6, h);
}

/* The object's label (a string) equals want. */
static bool label_is(CK_SESSION_HANDLE ss, CK_OBJECT_HANDLE h, const char *want)
{
	char got[64];
	CK_ATTRIBUTE a[] = { { CKA_LABEL, got, sizeof(got) } };

	return f->C_GetAttributeValue(ss, h, a, 1) == CKR_OK && a[0].ulValueLen == strlen(want) &&
	       !memcmp(got, want, strlen(want));
}

static void unique_ids_differ(CK_OBJECT_HANDLE a, CK_OBJECT_HANDLE b)
{
	char ua[32], ub[32];
	CK_ATTRIBUTE ta[] = { { CKA_UNIQUE_ID, ua, sizeof(ua) } };
	CK_ATTRIBUTE tb[] = { { CKA_UNIQUE_ID, ub, sizeof(ub) } };

	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, a, ta, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, b, tb, 1), CKR_OK);
	CU_ASSERT(ta[0].ulValueLen == tb[0].ulValueLen &&
		  memcmp(ua, ub, ta[0].ulValueLen) != 0);
}

/* Objects found with a label. */
static CK_ULONG count_label(CK_SESSION_HANDLE ss, const char *label)
{
	CK_ATTRIBUTE t[] = { { CKA_LABEL, (void *)label, strlen(label) } };
	CK_OBJECT_HANDLE h[8];
	CK_ULONG n = 0;

	CU_ASSERT_EQUAL_FATAL(f->C_FindObjectsInit(ss, t, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjects(ss, h, 8, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(ss), CKR_OK);
	return n;
}

static void test_copy(void)
{
	CK_MECHANISM gen = { CKM_EC_KEY_PAIR_GEN, NULL, 0 }, m = { CKM_ECDSA_SHA256, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) } };
	CK_ATTRIBUTE kt[] = { { CKA_COPYABLE, &no, sizeof(no) } };
	CK_ATTRIBUTE to_token[] = { { CKA_TOKEN, &yes, sizeof(yes) },
				    { CKA_LABEL, "copied", 6 } };
	CK_ATTRIBUTE t1[1];
	CK_OBJECT_HANDLE d, dc, pub, priv, kc, kc2, nc, ro;
	uint8_t sig[64];

	/* a data object: to the token with a new label, its own CKA_UNIQUE_ID */
	CU_ASSERT_EQUAL_FATAL(data_object(CK_FALSE, CK_TRUE, "original", &d), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, d, to_token, 2, &dc), CKR_OK);
	CU_ASSERT(label_is(s, dc, "copied") && label_is(s, d, "original"));
	unique_ids_differ(d, dc);
	CU_ASSERT_EQUAL(count_label(s, "copied"), 1);
	/* a key pair's private key: copyable unless made otherwise (PKCS#11 3.0 table 4) */
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &gen, pt, 1, kt, 1, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, priv, NULL, 0, &kc), CKR_ACTION_PROHIBITED);
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &gen, pt, 1, NULL, 0, &pub, &priv), CKR_OK);
	/* the copy shares the TPM key: it signs, the original's public key verifies */
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, priv, to_token, 2, &kc), CKR_OK);
	unique_ids_differ(priv, kc);
	sign_verify(&m, kc, pub, "copy", sig, sizeof(sig));
	CU_ASSERT_EQUAL(f->C_DestroyObject(s, priv), CKR_OK);
	sign_verify(&m, kc, pub, "copy", sig, sizeof(sig));
	/* what a copy may not change */
	t1[0] = (CK_ATTRIBUTE){ CKA_SENSITIVE, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_READ_ONLY);
	t1[0] = (CK_ATTRIBUTE){ CKA_EXTRACTABLE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_READ_ONLY);
	t1[0] = (CK_ATTRIBUTE){ CKA_DECRYPT, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_VALUE_INVALID);
	t1[0] = (CK_ATTRIBUTE){ CKA_EC_PARAMS, (void *)OID_P384, sizeof(OID_P384) };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_READ_ONLY);
	t1[0] = (CK_ATTRIBUTE){ CKA_UNIQUE_ID, "x", 1 };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_READ_ONLY);
	t1[0] = (CK_ATTRIBUTE){ CKA_VALUE_LEN, &yes, sizeof(CK_ULONG) };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_TYPE_INVALID);
	t1[0] = (CK_ATTRIBUTE){ CKA_TOKEN, &yes, 4 };
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc, t1, 1, &nc), CKR_ATTRIBUTE_VALUE_INVALID);
	/* a copy not copyable any more, to the session, then no copy of it */
	t1[0] = (CK_ATTRIBUTE){ CKA_COPYABLE, &no, sizeof(no) };
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, kc, t1, 1, &kc2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, kc2, NULL, 0, &nc), CKR_ACTION_PROHIBITED);
	t1[0] = (CK_ATTRIBUTE){ CKA_COPYABLE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, kc2, t1, 1), CKR_ATTRIBUTE_READ_ONLY);
	/* a token copy needs a R/W session; arguments */
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CopyObject(ro, d, to_token, 2, &nc), CKR_SESSION_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_CopyObject(ro, d, NULL, 0, &nc), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, d, NULL, 0, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, 9999, NULL, 0, &nc), CKR_OBJECT_HANDLE_INVALID);
}

static void test_set_attribute(void)
{
	CK_MECHANISM gen = { CKM_EC_KEY_PAIR_GEN, NULL, 0 }, m = { CKM_ECDSA, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) },
			      { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE t[2];
	CK_OBJECT_HANDLE d, fixed, pub, priv, ro;
	CK_ULONG cls = CKO_DATA;

	CU_ASSERT_EQUAL_FATAL(data_object(CK_TRUE, CK_TRUE, "before", &d), CKR_OK);
	t[0] = (CK_ATTRIBUTE){ CKA_LABEL, "after", 5 };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 1), CKR_OK);
	CU_ASSERT(label_is(s, d, "after"));
	CU_ASSERT_EQUAL(count_label(s, "after"), 1);
	/* all or nothing */
	t[0] = (CK_ATTRIBUTE){ CKA_LABEL, "again", 5 };
	t[1] = (CK_ATTRIBUTE){ CKA_TOKEN, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 2), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT(label_is(s, d, "after"));
	t[1] = (CK_ATTRIBUTE){ CKA_CLASS, &cls, sizeof(cls) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 2), CKR_ATTRIBUTE_READ_ONLY);
	t[1] = (CK_ATTRIBUTE){ CKA_UNIQUE_ID, "x", 1 };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 2), CKR_ATTRIBUTE_READ_ONLY);
	t[1] = (CK_ATTRIBUTE){ CKA_EC_POINT, "x", 1 };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 2), CKR_ATTRIBUTE_TYPE_INVALID);
	t[1] = t[0];
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 2), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT(label_is(s, d, "after"));
	/* not modifiable; a token object in a read-only session */
	CU_ASSERT_EQUAL_FATAL(data_object(CK_FALSE, CK_FALSE, "fixed", &fixed), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, fixed, t, 1), CKR_ACTION_PROHIBITED);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(ro, d, t, 1), CKR_SESSION_READ_ONLY);
	/* a private key: sensitive only to true, extractable only to false, uses only taken
	 * away */
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &gen, pt, 2, kt, 1, &pub, &priv), CKR_OK);
	t[0] = (CK_ATTRIBUTE){ CKA_SENSITIVE, &yes, sizeof(yes) };
	t[1] = (CK_ATTRIBUTE){ CKA_EXTRACTABLE, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 2), CKR_OK);
	t[0] = (CK_ATTRIBUTE){ CKA_SENSITIVE, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 1), CKR_ATTRIBUTE_READ_ONLY);
	t[0] = (CK_ATTRIBUTE){ CKA_EXTRACTABLE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 1), CKR_ATTRIBUTE_READ_ONLY);
	t[0] = (CK_ATTRIBUTE){ CKA_SIGN, &no, sizeof(no) };
	t[1] = (CK_ATTRIBUTE){ CKA_ID, "\x01\x02", 2 };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m, priv), CKR_KEY_FUNCTION_NOT_PERMITTED);
	t[0] = (CK_ATTRIBUTE){ CKA_SIGN, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 1), CKR_ATTRIBUTE_VALUE_INVALID);
	t[0] = (CK_ATTRIBUTE){ CKA_ALWAYS_AUTHENTICATE, &yes, sizeof(yes) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, t, 1), CKR_ATTRIBUTE_READ_ONLY);
	t[0] = (CK_ATTRIBUTE){ CKA_LOCAL, &no, sizeof(no) };
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, t, 1), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, 9999, t, 1), CKR_OBJECT_HANDLE_INVALID);
}

/* Another process (fork, C_Initialize) reads an object, this one changes it, the other sees
 * the change at its next C_GetAttributeValue and C_FindObjectsInit. */
static void test_other_process(void)
{
	int to_child[2], to_parent[2], status = -1;
	CK_ATTRIBUTE t[] = { { CKA_LABEL, "changed", 7 } };
	CK_OBJECT_HANDLE d;
	char c = 0;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(data_object(CK_TRUE, CK_TRUE, "shared", &d), CKR_OK);
	CU_ASSERT_FATAL(pipe(to_child) == 0 && pipe(to_parent) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		CK_ATTRIBUTE by[] = { { CKA_LABEL, "shared", 6 } };
		CK_OBJECT_HANDLE h[4];
		CK_SESSION_HANDLE cs;
		CK_ULONG n = 0;
		int ok;

		ok = f->C_Initialize(NULL) == CKR_OK &&
		     f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &cs) == CKR_OK &&
		     f->C_FindObjectsInit(cs, by, 1) == CKR_OK &&
		     f->C_FindObjects(cs, h, 4, &n) == CKR_OK && n == 1 &&
		     f->C_FindObjectsFinal(cs) == CKR_OK && label_is(cs, h[0], "shared");
		ok = write(to_parent[1], "r", 1) == 1 && read(to_child[0], &c, 1) == 1 && ok;
		/* the same handle, its new label; found by it, not by the old one */
		ok = ok && label_is(cs, h[0], "changed");
		ok = ok && f->C_FindObjectsInit(cs, by, 1) == CKR_OK &&
		     f->C_FindObjects(cs, h + 1, 3, &n) == CKR_OK && n == 0 &&
		     f->C_FindObjectsFinal(cs) == CKR_OK;
		by[0].pValue = "changed";
		by[0].ulValueLen = 7;
		ok = ok && f->C_FindObjectsInit(cs, by, 1) == CKR_OK &&
		     f->C_FindObjects(cs, h + 1, 3, &n) == CKR_OK && n == 1 && h[1] == h[0] &&
		     f->C_FindObjectsFinal(cs) == CKR_OK && f->C_Finalize(NULL) == CKR_OK;
		_exit(ok ? 0 : 1);
	}
	CU_ASSERT_EQUAL(read(to_parent[0], &c, 1), 1);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, d, t, 1), CKR_OK);
	CU_ASSERT_EQUAL(write(to_child[1], "c", 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* ---- CKA_ALWAYS_AUTHENTICATE, C_LoginUser ---- */

static void test_context_login(void)
{
	CK_MECHANISM gen = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 }, enc = { CKM_RSA_PKCS, NULL, 0 };
	CK_ULONG bits = 2048, n, cn, pn;
	CK_ATTRIBUTE pt[] = { { CKA_MODULUS_BITS, &bits, sizeof(bits) },
			      { CKA_ENCRYPT, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_ALWAYS_AUTHENTICATE, &yes, sizeof(yes) },
			      { CKA_DECRYPT, &yes, sizeof(yes) } };
	CK_BBOOL always = CK_FALSE;
	CK_ATTRIBUTE ga[] = { { CKA_ALWAYS_AUTHENTICATE, &always, sizeof(always) } };
	CK_OBJECT_HANDLE pub, priv;
	uint8_t sig[256], ct[256], plain[256];

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &gen, pt, 2, kt, 2, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, ga, 1), CKR_OK);
	CU_ASSERT_EQUAL(always, CK_TRUE);
	/* no login for the operation: refused, and the operation is over */
	n = sizeof(sig);
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)"x", 1, sig, &n), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)"x", 1, sig, &n), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_CONTEXT_SPECIFIC, (CK_UTF8CHAR *)USER_PIN, 4),
			CKR_OPERATION_NOT_INITIALIZED);
	/* a wrong PIN, then the right one: the signature follows */
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_CONTEXT_SPECIFIC, (CK_UTF8CHAR *)"4321", 4),
			CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_CONTEXT_SPECIFIC, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)"x", 1), CKR_OK);
	n = sizeof(sig);
	CU_ASSERT_EQUAL(f->C_SignFinal(s, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)"x", 1, sig, n), CKR_OK);
	/* each operation asks again */
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, &m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)"x", 1), CKR_USER_NOT_LOGGED_IN);
	/* decryption too */
	cn = sizeof(ct);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &enc, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, (CK_BYTE *)"msg", 3, ct, &cn), CKR_OK);
	pn = sizeof(plain);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &enc, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, cn, plain, &pn), CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &enc, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_CONTEXT_SPECIFIC, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, cn, plain, &pn), CKR_OK);
	CU_ASSERT(pn == 3 && !memcmp(plain, "msg", 3));
	/* verification needs no login; nor does a key without the attribute */
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_CONTEXT_SPECIFIC, (CK_UTF8CHAR *)USER_PIN, 4),
			CKR_USER_NOT_LOGGED_IN);
}

static void test_login_user(void)
{
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f3->C_LoginUser(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4,
				       (CK_UTF8CHAR *)"alice", 5),
			CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f3->C_LoginUser(s, CKU_USER, (CK_UTF8CHAR *)"4321", 4, NULL, 0),
			CKR_PIN_INCORRECT);
	CU_ASSERT_EQUAL(f3->C_LoginUser(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4, NULL, 0), CKR_OK);
	CU_ASSERT_EQUAL(f3->C_LoginUser(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4,
				       (CK_UTF8CHAR *)"", 0),
			CKR_USER_ALREADY_LOGGED_IN);
	CU_ASSERT_EQUAL(f3->C_LoginUser(s, 77, (CK_UTF8CHAR *)USER_PIN, 4, NULL, 0),
			CKR_USER_TYPE_INVALID);
	CU_ASSERT_EQUAL(f3->C_LoginUser(9999, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4, NULL, 0),
			CKR_SESSION_HANDLE_INVALID);
}

static void test_seed_random(void)
{
	uint8_t seed[300], out[16];

	memset(seed, 0x5A, sizeof(seed));
	CU_ASSERT_EQUAL(f->C_SeedRandom(s, seed, sizeof(seed)), CKR_OK); /* in three pieces */
	CU_ASSERT_EQUAL(f->C_SeedRandom(s, seed, 0), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SeedRandom(s, NULL, 4), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_SeedRandom(9999, seed, 4), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateRandom(s, out, sizeof(out)), CKR_OK);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RSA 2048/3072 private and public keys imported", test_import_rsa },
		{ "RSA import: the checks and their CK_RV", test_import_rsa_checks },
		{ "EC P-256/P-384 private and public keys imported", test_import_ec },
		{ "ML-DSA public keys", test_import_mldsa_public },
		{ "HashML-DSA: CKM_HASH_ML_DSA and _SHA256/384/512", test_hash_mldsa },
		{ "C_CopyObject", test_copy },
		{ "C_SetAttributeValue", test_set_attribute },
		{ "a change seen by another process", test_other_process },
		{ "CKA_ALWAYS_AUTHENTICATE and CKU_CONTEXT_SPECIFIC", test_context_login },
		{ "C_LoginUser", test_login_user },
		{ "C_SeedRandom", test_seed_random },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0 ||
	    !(f3 = p11_module_interface(lib, 3, 0)))
		return 1;
	failed = UNIT_RUN("pkcs11 objects", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
