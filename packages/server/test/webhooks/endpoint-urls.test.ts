import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

/** The webhook URL rules through the API; url-policy.test.ts covers the classifier itself. */
const REJECTED: Array<[string, string]> = [
  ['plain http', 'http://hooks.example.com/in'],
  ['ftp', 'ftp://hooks.example.com/in'],
  ['not a URL', 'hooks.example.com/in'],
  ['port 80', 'https://hooks.example.com:80/in'],
  ['port 8080', 'https://hooks.example.com:8080/in'],
  ['user info', 'https://user:pass@hooks.example.com/in'],
  ['user only', 'https://user@hooks.example.com/in'],
  ['localhost', 'https://localhost/in'],
  ['*.localhost', 'https://api.localhost/in'],
  ['single label', 'https://intranet/in'],
  ['.local', 'https://printer.local/in'],
  ['.internal', 'https://api.internal/in'],
  ['.intranet', 'https://erp.intranet/in'],
  ['.lan', 'https://nas.lan/in'],
  ['.home.arpa', 'https://router.home.arpa/in'],
  ['.corp', 'https://erp.corp/in'],
  ['loopback', 'https://127.0.0.1/in'],
  ['loopback elsewhere in 127/8', 'https://127.10.20.30/in'],
  ['10/8', 'https://10.0.0.5/in'],
  ['172.16/12', 'https://172.16.3.4/in'],
  ['192.168/16', 'https://192.168.1.1/in'],
  ['link-local (cloud metadata)', 'https://169.254.169.254/latest'],
  ['CGNAT', 'https://100.64.1.1/in'],
  ['unspecified', 'https://0.0.0.0/in'],
  ['multicast', 'https://224.0.0.1/in'],
  ['documentation range', 'https://203.0.113.7/in'],
  ['broadcast', 'https://255.255.255.255/in'],
  ['decimal integer', 'https://2130706433/in'],
  ['hexadecimal', 'https://0x7f000001/in'],
  ['octal', 'https://0177.0.0.1/in'],
  ['short form', 'https://127.1/in'],
  ['IPv6 loopback', 'https://[::1]/in'],
  ['IPv6 unspecified', 'https://[::]/in'],
  ['IPv6 unique-local', 'https://[fd00::1]/in'],
  ['IPv6 link-local', 'https://[fe80::1]/in'],
  ['IPv6 multicast', 'https://[ff02::1]/in'],
  ['IPv6 documentation', 'https://[2001:db8::1]/in'],
  ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
  ['IPv4-mapped IPv6, hex form', 'https://[::ffff:7f00:1]/in'],
  ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]:8443/in'],
];

const ACCEPTED = [
  'https://hooks.example.com/in',
  'https://hooks.example.com:443/in',
  'https://hooks.example.com:8443/in?source=storefront',
  'https://api.loja-exemplo.com.br/webhooks/storefront',
  'https://8.8.8.8/in',
  'https://[2606:4700:4700::1111]/in',
  'https://HOOKS.Example.COM/in',
];

describeEachDatabase('webhook endpoint URL rules over HTTP', (api) => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await api.createStore());
  });

  describe('rejected with 400 invalid_request, param url and the reason', () => {
    for (const [name, url] of REJECTED) {
      it(`${name}: ${url}`, async () => {
        const error = expectError(
          await api.as(key).post('/webhooks', { url, events: ['pix.paid'] }),
          400,
          'invalid_request',
          'url',
        );
        expect(error.message).toMatch(/^Invalid url: /);
      });
    }
    it('on PATCH as well, leaving the endpoint unchanged', async () => {
      const { body } = await api.as(key).post('/webhooks', { url: ACCEPTED[0], events: ['pix.paid'] });
      for (const [, url] of REJECTED.slice(0, 5)) {
        expectError(await api.as(key).patch(`/webhooks/${body.id}`, { url }), 400, 'invalid_request', 'url');
      }
      expect((await api.as(key).get(`/webhooks/${body.id}`)).body.url).toBe(ACCEPTED[0]);
      await api.as(key).delete(`/webhooks/${body.id}`);
    });
  });

  it('accepts public https addresses on 443 and 8443, keeping the url as sent', async () => {
    for (const url of ACCEPTED) {
      const res = await api.as(key).post('/webhooks', { url, events: ['pix.paid'] });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
      expect(res.body.url).toBe(url);
      await api.as(key).delete(`/webhooks/${res.body.id}`);
    }
  });
});

describeEachDatabase(
  'STOREFRONT_WEBHOOK_ALLOWED_HOSTS',
  (api) => {
    it('exempts the listed hosts from the address rules, not from https and the port rule', async () => {
      const { key } = await api.createStore();
      const post = (url: string) => api.as(key).post('/webhooks', { url, events: ['pix.paid'] });
      expect((await post('https://127.0.0.1:8443/in')).status).toBe(201);
      expect((await post('https://localhost/in')).status).toBe(201);
      expectError(await post('http://127.0.0.1:8443/in'), 400, 'invalid_request', 'url');
      expectError(await post('https://127.0.0.1:3000/in'), 400, 'invalid_request', 'url');
      expectError(await post('https://10.0.0.1/in'), 400, 'invalid_request', 'url');
    });
  },
  { config: { webhookAllowedHosts: new Set(['127.0.0.1', 'localhost']) } },
);
