import { formatBrl } from '../../../platform/values/money.js';
import type { SaleStatus } from '../../../domain/sales/sale-object.js';
import { TableFrame, DateTime } from '../views/components.js';
import { SALE_STATUS_LABELS } from '../views/format.js';
import { paymentSummary } from './payment-words.js';
import type { SalePayment } from './payment-words.js';

export interface SaleRow extends SalePayment {
  id: string;
  created_at: string;
  status: SaleStatus;
  amount_cents: number;
  customer_name: string | null;
  product_name: string | null;
}

/** Sales as Início and Vendas list them; each date links to the sale's page. */
export function SalesTable(props: { label: string; sales: SaleRow[] }) {
  return (
    <TableFrame label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">Data</th>
            <th scope="col">Cliente</th>
            <th scope="col">Produto</th>
            <th scope="col">Valor</th>
            <th scope="col">Status</th>
            <th scope="col">Pagamento</th>
          </tr>
        </thead>
        <tbody>
          {props.sales.map((sale) => (
            <tr>
              <td data-label="Data">
                <a href={`/dashboard/vendas/${sale.id}`}>
                  <DateTime iso={sale.created_at} />
                </a>
              </td>
              <td data-label="Cliente">{sale.customer_name ?? '—'}</td>
              <td data-label="Produto">{sale.product_name ?? '—'}</td>
              <td data-label="Valor">{formatBrl(sale.amount_cents)}</td>
              <td data-label="Status">{SALE_STATUS_LABELS[sale.status]}</td>
              <td data-label="Pagamento">{paymentSummary(sale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}
