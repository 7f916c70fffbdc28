import ipaddr from 'ipaddr.js';

/**
 * Which webhook URLs a store may register.
 *
 * This check runs on create and PATCH. It only sees the URL text, so a public name that resolves to a
 * private address passes here; the outbound dispatcher re-checks the resolved address at connect time.
 */

/**
 * Why a URL was refused: `reason` is the API's English message; `rule` names the rule, for a channel
 * that words it in its own language (the dashboard, in Portuguese).
 */
export type UrlRule =
  'absolute' | 'https' | 'credentials' | 'port' | 'host' | 'public_address' | 'public_name';
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; rule: UrlRule };

export interface UrlPolicyOptions {
  /** Hosts exempt from the address and name rules (STOREFRONT_WEBHOOK_ALLOWED_HOSTS), see parseAllowedHosts. */
  allowedHosts: ReadonlySet<string>;
}

const ALLOWED_PORTS = new Set(['', '443', '8443']); // WHATWG URL drops an explicit :443 for https
const INTERNAL_SUFFIXES = ['local', 'internal', 'intranet', 'lan', 'home.arpa', 'corp', 'localdomain'];

// IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291) is "unicast" for ipaddr.js, yet it only
// makes sense as a disguised IPv4 address, so it is refused as well.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Lowercased host without IPv6 brackets or trailing dots: the form allowedHosts entries are kept in. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.replace(/\.+$/, '');
}

/** Parses the STOREFRONT_WEBHOOK_ALLOWED_HOSTS comma list (unset or empty: no exemptions). */
export function parseAllowedHosts(raw: string | undefined): Set<string> {
  const hosts = (raw ?? '').split(',').map(normalizeHost);
  return new Set(hosts.filter((h) => h !== ''));
}

export function isAllowedHost(host: string, allowedHosts: ReadonlySet<string>): boolean {
  return allowedHosts.size > 0 && allowedHosts.has(normalizeHost(host));
}

/** How parseAllowedEndpoints keeps a `host:port` entry: host and port apart, so IPv6 stays readable. */
const endpointKey = (host: string, port: string) => `${host} ${port}`;

/**
 * Parses a comma list of `host` (any port) or `host:port` entries, IPv6 in brackets (`[fd00::5]:8443`),
 * e.g. STOREFRONT_PSP_ALLOWED_HOSTS. Returns the entries in the form isAllowedEndpoint reads, or the
 * first entry that is not one.
 */
export function parseAllowedEndpoints(raw: string | undefined): Set<string> | { invalid: string } {
  const allowed = new Set<string>();
  for (const entry of (raw ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = match?.[2];
    if (!match || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      // A bare IPv6 address has colons of its own.
      if (ipaddr.IPv6.isValid(entry)) allowed.add(normalizeHost(entry));
      else return { invalid: entry };
      continue;
    }
    const host = normalizeHost(match[1]!);
    const valid = match[1]!.startsWith('[') ? ipaddr.IPv6.isValid(host) : /^[a-z0-9_.-]+$/.test(host);
    if (!valid) return { invalid: entry };
    allowed.add(port === undefined ? host : endpointKey(host, String(Number(port))));
  }
  return allowed;
}

/** Whether the operator exempted this host, on any port or on this one (`port`: 443 when the URL gives none). */
export function isAllowedEndpoint(host: string, port: string, allowed: ReadonlySet<string>): boolean {
  if (allowed.size === 0) return false;
  const h = normalizeHost(host);
  return allowed.has(h) || allowed.has(endpointKey(h, port));
}

/**
 * True only for globally routable unicast addresses. Accepts any form ipaddr.js parses, including
 * numeric IPv4 forms ("2130706433", "127.1"); IPv4-mapped IPv6 is judged as the IPv4 it carries.
 */
export function isPublicAddress(ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(normalizeHost(ip));
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return addr.range() === 'unicast';
}

function describeAddressRange(ip: string): string {
  try {
    let addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    }
    const range = addr.range();
    return range === 'unicast' ? 'IPv4-compatible IPv6' : range;
  } catch {
    return 'unparseable';
  }
}

/** Why a host name is not acceptable, or null when it is a plausible public DNS name. */
function internalNameReason(host: string): string | null {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost is not allowed';
  if (host.split('.').some((label) => label === '')) return 'the host name is not valid';
  if (!host.includes('.')) return 'single-label (internal) host names are not allowed';
  const suffix = INTERNAL_SUFFIXES.find((s) => host.endsWith(`.${s}`));
  return suffix ? `internal domain names (.${suffix}) are not allowed` : null;
}

export function checkWebhookUrl(raw: string, opts: UrlPolicyOptions): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, rule: 'absolute', reason: 'url must be an absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, rule: 'https', reason: 'url must use https' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, rule: 'credentials', reason: 'url must not contain a username or password' };
  }
  if (!ALLOWED_PORTS.has(url.port))
    return { ok: false, rule: 'port', reason: 'url port must be 443 or 8443' };

  // WHATWG URL has already lowercased the host, applied IDNA and turned every numeric IPv4 form
  // ("2130706433", "0x7f000001", "0177.0.0.1", "127.1") into dotted decimal.
  const host = normalizeHost(url.hostname);
  if (host === '') return { ok: false, rule: 'host', reason: 'url must have a host' };
  if (isAllowedHost(host, opts.allowedHosts)) return { ok: true, url };

  const isIpLiteral = url.hostname.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host);
  if (isIpLiteral) {
    return isPublicAddress(host)
      ? { ok: true, url }
      : {
          ok: false,
          rule: 'public_address',
          reason: `url must not point to a non-public address (${describeAddressRange(host)})`,
        };
  }
  const nameReason = internalNameReason(host);
  return nameReason
    ? { ok: false, rule: 'public_name', reason: `url host is not allowed: ${nameReason}` }
    : { ok: true, url };
}
