import { Layout } from './layout.js';
import type { LayoutProps } from './layout.js';

/** A page that only says something: not found, or an error. */
export function MessagePage(props: Pick<LayoutProps, 'nonce' | 'assets'> & { title: string; text: string }) {
  return (
    <Layout title={props.title} nonce={props.nonce} assets={props.assets} testMode={false} page="error">
      <section class="card message">
        <h1>{props.title}</h1>
        <p>{props.text}</p>
      </section>
    </Layout>
  );
}
