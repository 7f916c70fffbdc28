import type { ComponentChildren } from 'preact';

/** One "term: value" pair of a record's page (inside a `<dl class="facts">`). */
export function Detail(props: { term: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </>
  );
}
