import { describe, expect, it } from 'vitest';
import { composeDeliveryEmail } from '../../src/domain/email/template.js';
import type { DeliveryEmailInput } from '../../src/domain/email/template.js';
import { formatBrl } from '../../src/platform/values/money.js';

const base: DeliveryEmailInput = {
  storeName: 'Loja',
  customerName: 'Ana',
  amountCents: 123_456,
  items: [{ nome: 'Curso', linkAcesso: 'https://ex.com/curso' }],
  subject: null,
  body: null,
};

describe('delivery e-mail template', () => {
  it('writes amounts as R$ 1.234,56 with a plain space', () => {
    expect(formatBrl(123_456)).toBe('R$ 1.234,56');
    expect(formatBrl(50)).toBe('R$ 0,50');
    expect(formatBrl(100_000_000)).toBe('R$ 1.000.000,00');
  });

  it('names every item and its access link when the sale has several (order bump)', () => {
    const email = composeDeliveryEmail({
      ...base,
      items: [
        { nome: 'Curso', linkAcesso: 'https://ex.com/curso' },
        { nome: 'E-book <extra>', linkAcesso: 'https://ex.com/ebook?a=1&b=2' },
        { nome: 'Mentoria', linkAcesso: null },
      ],
      subject: 'Seu acesso: {{produto}}',
      body: 'Olá {{nome}}, link principal: {{link_acesso}}',
    });
    expect(email.subject).toBe('Seu acesso: Curso, E-book <extra> e Mentoria');
    expect(email.text).toBe(
      'Olá Ana, link principal: https://ex.com/curso\n\nSeus acessos:\n' +
        '- Curso: https://ex.com/curso\n- E-book <extra>: https://ex.com/ebook?a=1&b=2\n- Mentoria',
    );
    expect(email.html).toContain(
      '<ul><li>Curso: <a href="https://ex.com/curso">https://ex.com/curso</a></li>' +
        '<li>E-book &lt;extra&gt;: <a href="https://ex.com/ebook?a=1&amp;b=2">https://ex.com/ebook?a=1&amp;b=2</a></li>' +
        '<li>Mentoria</li></ul>',
    );
    // The default body leaves the links to the list rather than naming the first one twice.
    expect(composeDeliveryEmail({ ...base, items: [base.items[0]!, base.items[0]!] }).text).not.toContain(
      'Acesse',
    );
  });

  it('keeps the subject on one line, leaves unknown placeholders, and links only http(s) URLs', () => {
    const email = composeDeliveryEmail({
      ...base,
      customerName: 'Ana\r\nBcc: x@y.z',
      items: [{ nome: 'Curso', linkAcesso: 'javascript:alert(1)' }],
      subject: '{{nome}} {{desconhecido}}',
      body: '{{ link_acesso }} {{desconhecido}}\n\n\n<i>{{loja}}</i>',
    });
    expect(email.subject).toBe('Ana Bcc: x@y.z {{desconhecido}}');
    expect(email.text).toBe('javascript:alert(1) {{desconhecido}}\n\n\n<i>Loja</i>');
    expect(email.html).toContain('<p>javascript:alert(1) {{desconhecido}}</p><p>&lt;i&gt;Loja&lt;/i&gt;</p>');
    expect(email.html).not.toContain('<a ');
  });
});
