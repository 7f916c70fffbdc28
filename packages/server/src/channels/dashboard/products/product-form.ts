import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { bodyValidator } from '../../../platform/http/body-validator.js';
import { invalidRequest } from '../../../platform/http/api-error.js';
import type { Product } from '../../../domain/catalogue/product-object.js';
import { CreateProductBody, UpdateProductBody } from '../../../domain/catalogue/product-schemas.js';
import { productsBy } from '../../../domain/catalogue/products-repository.js';
import { brlInput, FormText, optionalText, parseBrl } from '../shell/form-values.js';

/*
 * The product form: its fields are the API's product fields (same names), except the order bump,
 * chosen by the other product's code. The body it builds is checked with the API's own schemas
 * before the product service (the API's) runs.
 */

export const ProductForm = Type.Object({
  nome: FormText,
  preco: FormText,
  slug: FormText,
  descricao: FormText,
  imagem: FormText,
  link_acesso: FormText,
  garantia: FormText,
  checkout_id: FormText,
  order_bump_enabled: FormText,
  order_bump_codigo: FormText,
  order_bump_title: FormText,
  order_bump_description: FormText,
  delivery_email_subject: FormText,
  delivery_email_body: FormText,
  recorrencia: FormText,
  retry_policy: FormText,
  _csrf: FormText,
});
export type ProductForm = Static<typeof ProductForm>;

/** What the form shows: the fields as typed (or as stored), by field name. */
export type ProductValues = Omit<ProductForm, '_csrf'>;

/** What a refused field says, by the API's field name; each names the rule rather than echoing the API. */
export const PRODUCT_FIELD_ERRORS: Record<string, string> = {
  nome: 'Informe o nome, de 1 a 120 caracteres.',
  preco:
    'Informe um preço de R$ 0,00 a R$ 1.000.000,00, com até 2 casas decimais (um produto com recorrência custa ao menos R$ 0,01).',
  slug: 'Use até 60 letras minúsculas e números, em palavras separadas por hífen, que nenhum outro produto da loja use.',
  descricao: 'A descrição tem no máximo 4.000 caracteres.',
  imagem: 'Informe o endereço da imagem começando com https:// (ou http://), com até 1.000 caracteres.',
  link_acesso: 'O link de acesso tem no máximo 1.000 caracteres.',
  garantia: 'A garantia tem no máximo 500 caracteres.',
  checkout_id: 'Escolha um checkout ativo desta loja.',
  order_bump_product_id: 'Informe o código de outro produto desta loja.',
  order_bump_title: 'O título do order bump tem no máximo 120 caracteres.',
  order_bump_description: 'A descrição do order bump tem no máximo 500 caracteres.',
  delivery_email_subject: 'O assunto tem no máximo 160 caracteres.',
  delivery_email_body: 'O texto do e-mail tem no máximo 3.000 caracteres.',
  recorrencia: 'Escolha uma das opções de recorrência.',
  retry_policy: 'Escolha uma das opções de novas tentativas.',
};

const checkCreate = bodyValidator(CreateProductBody);
const checkUpdate = bodyValidator(UpdateProductBody);

/** The order bump's product id from its code; an unknown code is refused as the API refuses an unknown id. */
async function bumpId(db: Kysely<Database>, storeId: string, typed: string | undefined) {
  const code = (typed ?? '').trim().toUpperCase();
  if (code === '') return null;
  const [found] = await productsBy(db, storeId, 'codigo', [code]);
  if (!found) throw invalidRequest(`No such product: '${code}'.`, 'order_bump_product_id');
  return found.id;
}

async function apiBody(db: Kysely<Database>, storeId: string, form: ProductForm) {
  const slug = optionalText(form.slug)?.trim();
  const retry = optionalText(form.retry_policy);
  return {
    nome: form.nome ?? '',
    preco: parseBrl(form.preco),
    ...(slug ? { slug } : {}),
    descricao: optionalText(form.descricao),
    imagem: optionalText(form.imagem)?.trim() ?? null,
    link_acesso: optionalText(form.link_acesso)?.trim() ?? null,
    garantia: optionalText(form.garantia),
    checkout_id: optionalText(form.checkout_id),
    order_bump_enabled: form.order_bump_enabled === 'on',
    order_bump_product_id: await bumpId(db, storeId, form.order_bump_codigo),
    order_bump_title: optionalText(form.order_bump_title),
    order_bump_description: optionalText(form.order_bump_description),
    delivery_email_subject: optionalText(form.delivery_email_subject),
    delivery_email_body: optionalText(form.delivery_email_body),
    recorrencia: optionalText(form.recorrencia),
    ...(retry ? { retry_policy: retry } : {}),
  };
}

/** The creation body of the API (POST /products), checked by its schema; throws its 400 naming the field. */
export async function creationBody(db: Kysely<Database>, storeId: string, form: ProductForm) {
  return checkCreate(await apiBody(db, storeId, form));
}

/** The change body of the API (PATCH /products/{id}): every field of the form (an empty slug keeps it). */
export async function changeBody(db: Kysely<Database>, storeId: string, form: ProductForm) {
  return checkUpdate(await apiBody(db, storeId, form));
}

/** A stored product as the form shows it. */
export function productValues(product: Product, bumpCode: string | null): ProductValues {
  const text = (value: string | null) => value ?? '';
  return {
    nome: product.nome,
    preco: brlInput(product.preco),
    slug: product.slug,
    descricao: text(product.descricao),
    imagem: text(product.imagem),
    link_acesso: text(product.link_acesso),
    garantia: text(product.garantia),
    checkout_id: text(product.checkout_id),
    order_bump_enabled: product.order_bump_enabled ? 'on' : '',
    order_bump_codigo: bumpCode ?? '',
    order_bump_title: text(product.order_bump_title),
    order_bump_description: text(product.order_bump_description),
    delivery_email_subject: text(product.delivery_email_subject),
    delivery_email_body: text(product.delivery_email_body),
    recorrencia: text(product.recorrencia),
    retry_policy: product.retry_policy,
  };
}
