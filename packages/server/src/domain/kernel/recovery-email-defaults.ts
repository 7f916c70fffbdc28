/**
 * What an abandoned order's recovery e-mail says when the store has not written its own: the e-mail
 * template fills it in, and the store object shows it as the store's current text.
 */
export const DEFAULT_RECOVERY_SUBJECT = '{{nome}}, seu pedido de {{produto}} está esperando';
export const DEFAULT_RECOVERY_BODY =
  'Olá, {{nome}}!\n\nVocê começou a comprar {{produto}} ({{valor}}) em {{loja}}, mas o pagamento não foi concluído.\n\nPara finalizar, gere um novo Pix: {{link_pagamento}}';
