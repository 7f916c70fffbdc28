// Seeds products straight into the table (one transaction, multi-row inserts), not through HTTP:
// 100k creations through the API would take minutes and measure nothing we report.
import { randomUUID } from 'node:crypto';
import { importServerDependency } from './paths.mjs';

const BATCH = 1000;
const DESCRIPTION =
  'Curso completo com aulas gravadas, material de apoio em PDF, certificado de conclusão e acesso ' +
  'vitalício à comunidade de alunos. Atualizado todos os meses.';

function productRow(storeId, index, createdAt) {
  return {
    id: randomUUID(),
    store_id: storeId,
    codigo: `SEED${String(index).padStart(7, '0')}`,
    nome: `Produto de carga ${index}`,
    slug: `produto-de-carga-${index}`,
    descricao: DESCRIPTION,
    imagem: `https://cdn.example.com/produtos/${index}.jpg`,
    preco_cents: 1990 + (index % 50) * 100,
    ativo: 1,
    checkout_id: null,
    link_acesso: null,
    garantia: '7 dias',
    order_bump_enabled: 0,
    order_bump_product_id: null,
    order_bump_title: null,
    order_bump_description: null,
    delivery_email_subject: null,
    delivery_email_body: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** Inserts `count` products, one second apart and all in the past; returns their ids. */
export async function seedProducts({ kysely, dialect }, storeId, count) {
  const { CompiledQuery } = await importServerDependency('kysely');
  const ids = [];
  const start = Date.now() - (count + 60) * 1000;
  await kysely.transaction().execute(async (trx) => {
    for (let first = 0; first < count; first += BATCH) {
      const rows = [];
      for (let i = first; i < Math.min(count, first + BATCH); i++) {
        const row = productRow(storeId, i, new Date(start + i * 1000).toISOString());
        rows.push(row);
        ids.push(row.id);
      }
      await trx.insertInto('products').values(rows).execute();
    }
  });
  // A bulk load leaves PostgreSQL without statistics until autovacuum comes round, and a planner
  // guessing that one store holds a handful of rows scans the whole store for a slug. A live
  // database has them: gather them now, as an operator would after an import.
  if (dialect === 'postgres') await kysely.executeQuery(CompiledQuery.raw('analyze products'));
  return ids;
}
