import type { UrlRule } from '../../../platform/outbound/url-policy.js';

/** Each rule of the webhook address policy, as the page tells an owner why their address was refused. */
export const URL_REFUSALS: Record<UrlRule, string> = {
  absolute: 'escreva o endereço completo, como https://sua-loja.com.br/webhooks',
  https: 'o endereço precisa começar com https://',
  credentials: 'o endereço não pode conter usuário nem senha',
  port: 'a porta precisa ser a 443 ou a 8443',
  host: 'falta o nome do servidor',
  public_address: 'o endereço é de uma rede interna ou privada, que não recebe chamadas daqui',
  public_name: 'o nome do servidor é de uma rede interna, que não recebe chamadas daqui',
};
