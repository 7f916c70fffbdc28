import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

/**
 * A small PKI for mTLS tests, made with node-forge (keys from node:crypto, which is fast): a CA, a
 * server certificate it signs for 127.0.0.1, client certificates it signs, and the odd ones a test
 * needs (another CA's client, an expired one, a PKCS#12 bundle).
 */
export interface Pem {
  cert: string;
  key: string;
}

export interface TestPki {
  ca: Pem;
  server: Pem;
  client: Pem;
  /** Signed by another CA: the PSP refuses it at the handshake. */
  strangerClient: Pem;
  expiredClient: Pem;
  /** `client` as a PKCS#12 file with its chain, protected by `pfxPassphrase`. */
  clientPfx: Buffer;
  pfxPassphrase: string;
}

function keyPair(): { publicKey: forge.pki.PublicKey; privateKey: forge.pki.rsa.PrivateKey; keyPem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return {
    privateKey: forgeKey,
    publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e),
    keyPem,
  };
}

let serial = 1;

function issue(
  subjectCn: string,
  options: {
    issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
    ca?: boolean;
    server?: boolean;
    notBefore?: Date;
    notAfter?: Date;
  },
): { pem: Pem; cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } {
  const keys = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 2 * 86_400_000);
  const subject = [
    { name: 'commonName', value: subjectCn },
    { name: 'organizationName', value: 'Storefront tests' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: options.ca ?? false },
    options.ca
      ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true }
      : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    ...(options.ca
      ? []
      : [{ name: 'extKeyUsage', serverAuth: !!options.server, clientAuth: !options.server }]),
    ...(options.server
      ? [
          {
            name: 'subjectAltName',
            altNames: [
              { type: 7, ip: '127.0.0.1' },
              { type: 2, value: 'localhost' },
            ],
          },
        ]
      : []),
  ]);
  cert.sign(options.issuer?.key ?? keys.privateKey, forge.md.sha256.create());
  return { pem: { cert: forge.pki.certificateToPem(cert), key: keys.keyPem }, cert, key: keys.privateKey };
}

let cached: TestPki | undefined;

export function testPki(): TestPki {
  if (cached) return cached;
  const ca = issue('Fake PSP CA', { ca: true });
  const issuer = { cert: ca.cert, key: ca.key };
  const otherCa = issue('Some other CA', { ca: true });
  const client = issue('loja-teste.example', { issuer });
  const pfxPassphrase = 'senha-do-p12';
  const p12 = forge.pkcs12.toPkcs12Asn1(client.key, [client.cert, ca.cert], pfxPassphrase, {
    algorithm: '3des',
  });
  cached = {
    ca: ca.pem,
    server: issue('127.0.0.1', { issuer, server: true }).pem,
    client: client.pem,
    strangerClient: issue('loja-teste.example', { issuer: { cert: otherCa.cert, key: otherCa.key } }).pem,
    expiredClient: issue('loja-vencida.example', {
      issuer,
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    }).pem,
    clientPfx: Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'),
    pfxPassphrase,
  };
  return cached;
}
