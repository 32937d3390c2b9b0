// The independent side of tests/integration/pq_crosscheck.sh: @noble/post-quantum 0.7.1.
//
//   node pq.mjs gen [SEED...]   one line per parameter set and seed (seeds from argv, else stdin):
//     dsa SET SEED PK SIG_DETERMINISTIC SIG_HEDGED
//     kem SET SEED EK CT SS
//   node pq.mjs check           reads such lines from the other implementation on stdin and prints
//     `ok ...` or `FAIL ...` for each: both ML-DSA signatures verify (and fail under another
//     context), and decapsulating CT with this side's key from SEED gives SS.
//
// SEED is 64 bytes of hex. ML-DSA: xi = SEED[0..32), rnd = SEED[32..64), message = SEED,
// context "pqtpm". ML-KEM: d || z = SEED, m = SEED[16..48). SET is 1, 2, 3 (44/65/87, 512/768/1024).
// Must stay in step with tests/integration/pq_tool.c.
//
// One-shot modes for tests/integration/pq_mssim.c (the TPM's keys and signatures against noble;
// every argument hex, "-" for empty, one line out):
//   node pq.mjs verify SET PK MSG CTX SIG    -> ok | FAIL     (ML-DSA, FIPS 204 pure)
//   node pq.mjs verify-hash SET HASH PK MSG CTX SIG -> ok | FAIL  (HashML-DSA, HASH sha256,
//     sha384 or sha512; noble's @noble/hashes, a dependency of @noble/post-quantum)
//   node pq.mjs sign SET XI MSG CTX          -> PK SIG        (hedged, from the 32-byte seed xi)
//   node pq.mjs encaps SET EK                -> CT SS         (ML-KEM, fresh randomness)
//   node pq.mjs kem-keygen SET SEED          -> EK            (d || z = SEED, 64 bytes)
//   node pq.mjs decaps SET SEED CT           -> SS
//   node pq.mjs attest SET PK ATTEST SIG NONCE TYPE -> ok | FAIL
//     a TPMS_ATTEST signed with pure ML-DSA and an empty context (docs/pq-decisions.md): the
//     signature verifies, and the structure, read here on its own, starts with
//     TPM_GENERATED_VALUE and TYPE (hex, e.g. 8018) and carries NONCE as extraData
//   node pq.mjs batch                        one such question per line on stdin ("verify SET
//     PK ...", without `node pq.mjs`), one answer per line out (a node start costs ~0.3 s)
// and for tests/bench/pq_bench.c:
//   node pq.mjs bench ITERATIONS             -> one line per figure: `noble OP SET MEDIAN_US`
import { readFileSync } from 'node:fs';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';

const DSA = { 1: ml_dsa44, 2: ml_dsa65, 3: ml_dsa87 };
const KEM = { 1: ml_kem512, 2: ml_kem768, 3: ml_kem1024 };
const CONTEXT = new TextEncoder().encode('pqtpm');
const OTHER_CONTEXT = new TextEncoder().encode('pqtpn');

const bytes = (hex) => Uint8Array.from(Buffer.from(hex, 'hex'));
const hex = (b) => Buffer.from(b).toString('hex');

function parseSeed(text) {
	if (!/^[0-9a-fA-F]{128}$/.test(text)) throw new Error(`bad seed: ${text}`);
	return bytes(text);
}

function gen(seedHex) {
	const seed = parseSeed(seedHex);
	const lines = [];
	for (const set of [1, 2, 3]) {
		const dsa = DSA[set];
		const { publicKey, secretKey } = dsa.keygen(seed.slice(0, 32));
		const det = dsa.sign(seed.slice(), secretKey.slice(), { context: CONTEXT, extraEntropy: false });
		const hedged = dsa.sign(seed.slice(), secretKey.slice(), { context: CONTEXT, extraEntropy: seed.slice(32, 64) });
		lines.push(`dsa ${set} ${hex(seed)} ${hex(publicKey)} ${hex(det)} ${hex(hedged)}`);
	}
	for (const set of [1, 2, 3]) {
		const kem = KEM[set];
		const { publicKey } = kem.keygen(seed.slice());
		const { cipherText, sharedSecret } = kem.encapsulate(publicKey, seed.slice(16, 48));
		lines.push(`kem ${set} ${hex(seed)} ${hex(publicKey)} ${hex(cipherText)} ${hex(sharedSecret)}`);
	}
	return lines;
}

function check(line) {
	const [kind, set, seedHex, a, b, c] = line.split(' ');
	const seed = parseSeed(seedHex);
	let good;
	if (kind === 'dsa') {
		const dsa = DSA[set];
		const pk = bytes(a);
		good = dsa.verify(bytes(b), seed, pk, { context: CONTEXT })
			&& dsa.verify(bytes(c), seed, pk, { context: CONTEXT })
			&& !dsa.verify(bytes(b), seed, pk, { context: OTHER_CONTEXT });
	} else if (kind === 'kem') {
		const kem = KEM[set];
		const { secretKey } = kem.keygen(seed.slice());
		good = hex(kem.decapsulate(bytes(b), secretKey)) === c.toLowerCase();
	} else {
		throw new Error(`bad line: ${line}`);
	}
	const what = kind === 'dsa' ? 'verify' : 'decaps';
	return `${good ? 'ok' : 'FAIL'} ${kind}-${what} set ${set} seed ${seedHex.slice(0, 16)}`;
}

const arg = (h) => (h === '-' ? new Uint8Array(0) : bytes(h));

function oneShot(mode, a) {
	const set = Number(a[0]);
	switch (mode) {
	case 'verify': {
		const [, pk, m, c, sig] = a;
		return DSA[set].verify(arg(sig), arg(m), arg(pk), { context: arg(c) }) ? 'ok' : 'FAIL';
	}
	case 'verify-hash': {
		const [, h, pk, m, c, sig] = a;
		const ph = { sha256, sha384, sha512 }[h];
		if (!ph) return null;
		return DSA[set].prehash(ph).verify(arg(sig), arg(m), arg(pk), { context: arg(c) })
			? 'ok' : 'FAIL';
	}
	case 'sign': {
		const [, xi, m, c] = a;
		const { publicKey, secretKey } = DSA[set].keygen(arg(xi));
		return `${hex(publicKey)} ${hex(DSA[set].sign(arg(m), secretKey, { context: arg(c) }))}`;
	}
	case 'encaps': {
		const { cipherText, sharedSecret } = KEM[set].encapsulate(arg(a[1]));
		return `${hex(cipherText)} ${hex(sharedSecret)}`;
	}
	case 'kem-keygen':
		return hex(KEM[set].keygen(arg(a[1])).publicKey);
	case 'attest': {
		const [, pk, att, sig, nonce, type] = a;
		const m = arg(att);
		const v = new DataView(m.buffer, m.byteOffset, m.byteLength);
		if (m.length < 10 || v.getUint32(0) !== 0xff544347 || v.getUint16(4) !== parseInt(type, 16))
			return 'FAIL';
		const signer = v.getUint16(6);
		const at = 8 + signer;
		if (m.length < at + 2) return 'FAIL';
		const extra = m.slice(at + 2, at + 2 + v.getUint16(at));
		if (hex(extra) !== (nonce === '-' ? '' : nonce.toLowerCase())) return 'FAIL';
		return DSA[set].verify(arg(sig), m, arg(pk)) ? 'ok' : 'FAIL';
	}
	case 'decaps':
		return hex(KEM[set].decapsulate(arg(a[2]), KEM[set].keygen(arg(a[1])).secretKey));
	default:
		return null;
	}
}

// median of n runs of f, in microseconds
function median(n, f) {
	const t = [];
	for (let i = 0; i < 5; i++) f(i); // let the JIT settle
	for (let i = 0; i < n; i++) {
		const s = process.hrtime.bigint();
		f(i);
		t.push(Number(process.hrtime.bigint() - s) / 1000);
	}
	t.sort((x, y) => x - y);
	return t[n >> 1];
}

function bench(n) {
	const seed = new Uint8Array(64).fill(7);
	const msg = new Uint8Array(32).fill(1);
	for (const set of [1, 2, 3]) {
		const dsa = DSA[set];
		const { publicKey, secretKey } = dsa.keygen(seed.slice(0, 32));
		const sig = dsa.sign(msg, secretKey);
		console.log(`noble mldsa-keygen ${set} ${median(n, () => dsa.keygen(seed.slice(0, 32))).toFixed(1)}`);
		console.log(`noble mldsa-sign ${set} ${median(n, () => dsa.sign(msg, secretKey)).toFixed(1)}`);
		console.log(`noble mldsa-verify ${set} ${median(n, () => dsa.verify(sig, msg, publicKey)).toFixed(1)}`);
	}
	for (const set of [1, 2, 3]) {
		const kem = KEM[set];
		const { publicKey, secretKey } = kem.keygen(seed);
		const { cipherText } = kem.encapsulate(publicKey);
		console.log(`noble mlkem-keygen ${set} ${median(n, () => kem.keygen(seed)).toFixed(1)}`);
		console.log(`noble mlkem-encaps ${set} ${median(n, () => kem.encapsulate(publicKey)).toFixed(1)}`);
		console.log(`noble mlkem-decaps ${set} ${median(n, () => kem.decapsulate(cipherText, secretKey)).toFixed(1)}`);
	}
}

const [mode, ...args] = process.argv.slice(2);
const input = () => readFileSync(0, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l);
if (mode === 'gen') {
	for (const s of args.length ? args : input()) console.log(gen(s).join('\n'));
} else if (mode === 'check') {
	for (const l of input()) console.log(check(l));
} else if (mode === 'batch') {
	for (const l of input()) {
		const [m, ...a] = l.split(/\s+/);
		console.log(oneShot(m, a) ?? 'usage');
	}
} else if (mode === 'bench') {
	bench(Number(args[0]) || 50);
} else {
	const out = mode ? oneShot(mode, args) : null;
	if (out === null) {
		console.error('usage: node pq.mjs gen [SEED...] | check | verify|sign|encaps|kem-keygen|decaps ... | bench N');
		process.exit(2);
	}
	console.log(out);
}
