import { describe, it, expect } from 'vitest';
import {
  checkWebhookUrl,
  isPublicAddress,
  parseAllowedHosts,
} from '../../src/platform/outbound/url-policy.js';

const none = { allowedHosts: new Set<string>() };

function reasonFor(raw: string, allowedHosts: ReadonlySet<string> = new Set()): string {
  const result = checkWebhookUrl(raw, { allowedHosts });
  if (result.ok) throw new Error(`expected ${raw} to be rejected`);
  return result.reason;
}

describe('checkWebhookUrl rejects', () => {
  const cases: Array<[string, RegExp]> = [
    // not a usable URL / wrong scheme / credentials / ports
    ['not a url', /absolute URL/],
    ['/relative/path', /absolute URL/],
    ['http://example.com/hook', /https/],
    ['ftp://example.com/hook', /https/],
    ['https://user:pass@example.com/hook', /username or password/],
    ['https://user@example.com/hook', /username or password/],
    ['https://example.com:80/hook', /port/],
    ['https://example.com:8080/hook', /port/],
    ['https://example.com:444/hook', /port/],
    // localhost and internal names
    ['https://localhost/hook', /localhost/],
    ['https://LOCALHOST./hook', /localhost/],
    ['https://api.localhost/hook', /localhost/],
    ['https://%6c%6fcalhost/hook', /localhost/],
    ['https://intranet/hook', /single-label/],
    ['https://printer.local/hook', /\.local\)/],
    ['https://db.internal/hook', /\.internal/],
    ['https://wiki.intranet/hook', /\.intranet/],
    ['https://nas.lan/hook', /\.lan/],
    ['https://router.home.arpa/hook', /\.home\.arpa/],
    ['https://git.corp/hook', /\.corp/],
    ['https://box.localdomain/hook', /\.localdomain/],
    ['https://db.internal./hook', /\.internal/],
    ['https://a..example.com/hook', /not valid/],
    // IPv4 literals by range
    ['https://127.0.0.1/hook', /loopback/],
    ['https://10.0.0.1/hook', /private/],
    ['https://172.16.5.4/hook', /private/],
    ['https://192.168.1.1/hook', /private/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal/],
    ['https://100.64.0.1/hook', /carrierGradeNat/],
    ['https://192.0.2.1/hook', /reserved/],
    ['https://198.51.100.7/hook', /reserved/],
    ['https://198.18.0.1/hook', /reserved/],
    ['https://240.0.0.1/hook', /reserved/],
    ['https://224.0.0.1/hook', /multicast/],
    ['https://255.255.255.255/hook', /broadcast/],
    ['https://0.0.0.0/hook', /unspecified/],
    // numeric IPv4 forms (WHATWG URL normalizes them to dotted decimal first)
    ['https://2130706433/hook', /loopback/],
    ['https://0x7f000001/hook', /loopback/],
    ['https://0177.0.0.1/hook', /loopback/],
    ['https://127.1/hook', /loopback/],
    ['https://0/hook', /unspecified/],
    ['https://127.0.0.1./hook', /loopback/],
    // IPv6 literals
    ['https://[::1]/hook', /loopback/],
    ['https://[::]/hook', /unspecified/],
    ['https://[fe80::1]/hook', /linkLocal/],
    ['https://[fc00::1]/hook', /uniqueLocal/],
    ['https://[fd12:3456::1]/hook', /uniqueLocal/],
    ['https://[ff02::1]/hook', /multicast/],
    ['https://[2001:db8::1]/hook', /reserved/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback/],
    ['https://[::ffff:7f00:1]/hook', /loopback/],
    ['https://[::ffff:10.0.0.1]/hook', /private/],
    ['https://[::ffff:169.254.169.254]/hook', /linkLocal/],
    ['https://[::127.0.0.1]/hook', /IPv4-compatible/],
    ['https://[64:ff9b::7f00:1]/hook', /rfc6052/],
  ];

  it.each(cases)('%s', (raw, reason) => {
    expect(reasonFor(raw)).toMatch(reason);
  });

  it('has reasons fit for a 400 message', () => {
    expect(reasonFor('https://10.0.0.1/')).toBe('url must not point to a non-public address (private)');
    expect(reasonFor('https://example.com:8080/')).toBe('url port must be 443 or 8443');
  });
});

describe('checkWebhookUrl accepts public https URLs', () => {
  it.each([
    ['https://example.com/hook', 'https://example.com/hook'],
    ['https://example.com:443/hook', 'https://example.com/hook'],
    ['https://example.com:8443/x', 'https://example.com:8443/x'],
    ['https://93.184.216.34/', 'https://93.184.216.34/'],
    ['https://[2606:4700::1111]/', 'https://[2606:4700::1111]/'],
    ['https://Hooks.Example.COM/a?b=c', 'https://hooks.example.com/a?b=c'],
    ['https://loja.com.br./webhooks', 'https://loja.com.br./webhooks'],
    ['https://café.example/hook', 'https://xn--caf-dma.example/hook'],
  ])('%s', (raw, href) => {
    const result = checkWebhookUrl(raw, none);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.href).toBe(href);
  });
});

describe('allowed hosts', () => {
  const allowed = parseAllowedHosts(' LocalHost , 127.0.0.1,[::1],, receiver.internal. ');

  it('parses the comma list into normalized hosts', () => {
    expect([...allowed].sort()).toEqual(['127.0.0.1', '::1', 'localhost', 'receiver.internal']);
    expect(parseAllowedHosts(undefined).size).toBe(0);
    expect(parseAllowedHosts('').size).toBe(0);
  });

  it('exempts listed hosts from the address and name rules', () => {
    for (const raw of [
      'https://localhost/hook',
      'https://localhost:8443/hook',
      'https://localhost./hook',
      'https://127.0.0.1:8443/hook',
      'https://[::1]/hook',
      'https://receiver.internal/hook',
    ]) {
      expect(checkWebhookUrl(raw, { allowedHosts: allowed }).ok, raw).toBe(true);
    }
  });

  it('still applies the https, port and credentials rules', () => {
    expect(reasonFor('http://localhost/hook', allowed)).toMatch(/https/);
    expect(reasonFor('https://localhost:3000/hook', allowed)).toMatch(/port/);
    expect(reasonFor('https://a:b@localhost/hook', allowed)).toMatch(/username/);
  });

  it('exempts only the listed host, not its neighbours', () => {
    expect(reasonFor('https://127.0.0.2/hook', allowed)).toMatch(/loopback/);
    expect(reasonFor('https://api.localhost/hook', allowed)).toMatch(/localhost/);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['100.100.100.100', false],
    ['169.254.169.254', false],
    ['::1', false],
    ['[::1]', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['fe80::1%eth0', false],
    ['2130706433', false],
    ['127.1', false],
    ['not-an-ip', false],
    ['', false],
  ])('%s → %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});
