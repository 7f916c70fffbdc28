import { Buffer } from 'node:buffer';
// Plain requests the bench makes outside the load: samples, setup of charges, cursor walks.
export async function request(url, { method = 'GET', headers = {}, body } = {}) {
  const res = await globalThis.fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, bytes: Buffer.byteLength(text), json: () => JSON.parse(text) };
}

export async function requestJson(url, init) {
  const res = await request(url, init);
  if (res.status >= 300) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${res.text}`);
  return res.json();
}
