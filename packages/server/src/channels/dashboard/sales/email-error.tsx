import { NOT_SENT } from '../../../flows/send-emails.js';

/** Why a delivery e-mail was not sent, in the page's words; a mail server's own answer is quoted as it came. */
const IN_PORTUGUESE = new Map<string, string>([
  [NOT_SENT.saleNoAddress, 'A venda não tem e-mail para onde enviar.'],
  [NOT_SENT.saleRefunded, 'A venda foi reembolsada antes do envio; nada foi enviado.'],
]);

export function EmailError(props: { error: string }) {
  const known = IN_PORTUGUESE.get(props.error);
  return known ? (
    <>{known}</>
  ) : (
    <>
      Resposta do servidor de e-mail: <code>{props.error}</code>
    </>
  );
}
