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
import { readFileSync } from 'node:fs';
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ml_kem512, ml_kem768, ml_kem1024 } from '@noble/post-quantum/ml-kem.js';

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

const [mode, ...args] = process.argv.slice(2);
const input = () => readFileSync(0, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l);
if (mode === 'gen') {
	for (const s of args.length ? args : input()) console.log(gen(s).join('\n'));
} else if (mode === 'check') {
	for (const l of input()) console.log(check(l));
} else {
	console.error('usage: node pq.mjs gen [SEED...] | node pq.mjs check');
	process.exit(2);
}
