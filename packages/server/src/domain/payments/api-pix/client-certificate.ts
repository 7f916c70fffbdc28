import { X509Certificate, createPrivateKey } from 'node:crypto';
import forge from 'node-forge';

/** The mTLS identity a PSP issued to the merchant: PEM certificate and key, or one PKCS#12 file. */
export type ClientIdentity =
  | { certPem: string; keyPem: string; pfx?: never; passphrase?: never }
  | { pfx: Buffer; passphrase: string | null; certPem?: never; keyPem?: never };

export interface CertificateSummary {
  /** The client certificate in PEM (public; the key never leaves the sealed columns). */
  certificatePem: string;
  subject: string;
  /** ISO 8601. */
  notAfter: string;
}

export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateError';
  }
}

/**
 * Reads a client identity and refuses what would fail at the PSP's TLS handshake: an unreadable
 * file, a certificate that does not match its key, or one already expired. Node reads PEM itself;
 * PKCS#12 needs node-forge (node:crypto has no PKCS#12 reader), after which the same checks apply.
 */
export function inspectClientIdentity(identity: ClientIdentity, now: Date = new Date()): CertificateSummary {
  const { certPem, keyPem } = identity.pfx ? unpackPkcs12(identity.pfx, identity.passphrase) : identity;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certPem);
  } catch {
    throw new CertificateError('the certificate is not a readable X.509 certificate (PEM expected)');
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    throw new CertificateError('the private key is not readable (unencrypted PEM expected)');
  }
  if (!matches) throw new CertificateError('the certificate does not match the private key');
  const notAfter = new Date(certificate.validTo);
  if (!(notAfter.getTime() > now.getTime())) {
    throw new CertificateError(`the certificate expired on ${notAfter.toISOString()}`);
  }
  return {
    certificatePem: certificate.toString(),
    subject: certificate.subject.replace(/\n/g, ', '),
    notAfter: notAfter.toISOString(),
  };
}

function unpackPkcs12(pfx: Buffer, passphrase: string | null): { certPem: string; keyPem: string } {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(pfx.toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, passphrase ?? '');
  } catch (error) {
    throw new CertificateError(
      `the PKCS#12 file cannot be opened (wrong passphrase, or not a .p12/.pfx file): ${(error as Error).message}`,
    );
  }
  const bagsOf = (type: string) => p12.getBags({ bagType: type })[type] ?? [];
  const certs = bagsOf(forge.pki.oids.certBag!).flatMap((bag) =>
    bag.cert ? [forge.pki.certificateToPem(bag.cert)] : [],
  );
  const keyBag = bagsOf(forge.pki.oids.pkcs8ShroudedKeyBag!)[0] ?? bagsOf(forge.pki.oids.keyBag!)[0];
  if (certs.length === 0 || !keyBag?.key) {
    throw new CertificateError('the PKCS#12 file holds no certificate and key pair');
  }
  const keyPem = forge.pki.privateKeyToPem(keyBag.key);
  // A .p12 often carries the issuing chain too: the client certificate is the one of this key.
  const key = createPrivateKey(keyPem);
  const certPem = certs.find((pem: string) => new X509Certificate(pem).checkPrivateKey(key)) ?? certs[0]!;
  return { certPem, keyPem };
}
