import { promises as dns } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { isAllowedEndpoint, isPublicAddress } from './url-policy.js';

/**
 * The outbound address policy at connect time: the connector every connection to a URL a merchant or
 * store owner chose goes through (webhook deliveries, the live PSP's API Pix and token URLs, and the
 * card providers' base URLs when they come), and the webhook dispatcher built on it.
 *
 * The URL check at registration cannot see what a name resolves to later, so the address is checked
 * again here, on the very address the socket connects to: a public name that resolves (or is rebound)
 * to a private address is refused, and so is a non-public IP literal.
 */

export type ResolvedAddress = { address: string; family: number };
/** Resolves a host name to every address it has; injectable so tests can fake DNS. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export interface WebhookAgentOptions {
  /** Hosts exempt from the public-address rule (STOREFRONT_WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: ReadonlySet<string>;
  /** Defaults to the system resolver (dns.lookup, all addresses). */
  resolve?: ResolveHost;
  /**
   * Extra TLS options, e.g. `{ ca }` to trust a test receiver's self-signed certificate. Without them
   * Node's defaults apply: the bundled CAs plus NODE_EXTRA_CA_CERTS. A given `ca` replaces those; a
   * `secureContext` made once saves building one (and parsing every CA) per connection.
   */
  tls?: Pick<ConnectionOptions, 'ca' | 'secureContext'>;
  /** TCP + TLS handshake limit; the caller's per-attempt timeout applies on top. */
  connectTimeoutMs?: number;
  /** Sockets kept per endpoint origin (default 32); further attempts to that origin queue. */
  connectionsPerOrigin?: number;
}

export const BLOCKED_ADDRESS_CODE = 'EBLOCKEDADDRESS';

export class BlockedAddressError extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

const systemResolve: ResolveHost = (hostname) => dns.lookup(hostname, { all: true });

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A net/tls `lookup` that resolves, then refuses the whole name if any address is not public. */
function checkingLookup(resolve: ResolveHost) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = resolved.filter((a) => wanted === 0 || a.family === wanted);
        const bad = addresses.find((a) => !isPublicAddress(a.address));
        if (bad) {
          callback(new BlockedAddressError(`${hostname} resolves to non-public address ${bad.address}`), '');
          return;
        }
        const first = addresses[0];
        if (!first) {
          const err: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '');
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

export interface OutboundPolicy {
  /**
   * Endpoints exempt from the public-address rule, as parseAllowedHosts or parseAllowedEndpoints
   * keep them: a host (any port) or a host and one port. An operator's list, never a merchant's.
   */
  allowedHosts: ReadonlySet<string>;
  /** Defaults to the system resolver (dns.lookup, all addresses). */
  resolve?: ResolveHost;
}

/**
 * The outbound address policy as an undici connector, for every connection to a URL a merchant or
 * store owner chose (webhook endpoints, the PSP's API Pix and token URLs, card providers' base URLs):
 * https only, and unless the operator allowed the endpoint, every address the socket may connect to
 * must be public. The check runs on the resolved address, so a name rebound to 127.0.0.1 after it was
 * saved is refused too. `tls` carries the rest of the connection's options (CA, client certificate).
 */
export function outboundConnector(
  policy: OutboundPolicy,
  tls: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const checked = buildConnector({
    ...tls,
    lookup: checkingLookup(policy.resolve ?? systemResolve),
  });
  const exempt = buildConnector(tls);

  return (options, callback) => {
    if (options.protocol !== 'https:') {
      callback(new BlockedAddressError(`refusing ${options.protocol} (https only)`), null);
      return;
    }
    const { hostname } = options;
    if (isAllowedEndpoint(hostname, String(options.port || 443), policy.allowedHosts)) {
      exempt(options, callback);
      return;
    }
    // net.connect skips `lookup` for IP literals, so they are checked here.
    if (net.isIP(hostname) && !isPublicAddress(hostname)) {
      callback(new BlockedAddressError(`refusing non-public address ${hostname}`), null);
      return;
    }
    checked(options, callback);
  };
}

export function createWebhookAgent(opts: WebhookAgentOptions): Agent {
  return new Agent({
    connect: outboundConnector(
      { allowedHosts: opts.allowedHosts, ...(opts.resolve && { resolve: opts.resolve }) },
      { ...opts.tls, timeout: opts.connectTimeoutMs ?? 10_000 },
    ),
    // A bound per merchant origin: a slow or hanging endpoint cannot make us open sockets without end.
    connections: opts.connectionsPerOrigin ?? 32,
    // Deliveries go to the same few endpoints over and over: keep sockets warm between attempts.
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  });
}
