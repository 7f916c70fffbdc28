import type { ComponentChildren, FormHTMLAttributes, InputHTMLAttributes } from 'preact';
import { useContext } from 'preact/hooks';
import { PageContextValue } from './page-context.js';

/** The form field carrying the session's CSRF token. */
export const CSRF_FIELD = '_csrf';

/**
 * A POST form that works without JavaScript and carries the session's CSRF token; every
 * state-changing form of the dashboard is one of these.
 */
export function PostForm(
  props: { action: string; children: ComponentChildren } & Omit<
    FormHTMLAttributes<HTMLFormElement>,
    'method' | 'action'
  >,
) {
  const { csrf } = useContext(PageContextValue);
  const { children, action, ...rest } = props;
  return (
    <form method="post" action={action} {...rest}>
      {csrf ? <input type="hidden" name={CSRF_FIELD} value={csrf} /> : null}
      {children}
    </form>
  );
}

/** A labelled input with its hint and error tied to it for screen readers. */
export function Field(
  props: {
    label: string;
    name: string;
    error?: string | null | undefined;
    hint?: string;
  } & Omit<InputHTMLAttributes<HTMLInputElement>, 'name'>,
) {
  const { label, name, error, hint, id, ...input } = props;
  // Unique per page unless the same name is used twice: then the caller gives ids.
  const fieldId = (id as string | undefined) ?? `f-${name}`;
  const described = [hint ? `${fieldId}-hint` : null, error ? `${fieldId}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={fieldId}>{label}</label>
      {hint ? (
        <p class="hint" id={`${fieldId}-hint`}>
          {hint}
        </p>
      ) : null}
      <input
        id={fieldId}
        name={name}
        {...input}
        {...(described ? { 'aria-describedby': described } : {})}
        {...(error ? { 'aria-invalid': 'true' } : {})}
      />
      {error ? (
        <p class="field-error" id={`${fieldId}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A message after an action: success (a status) or a problem (an alert). */
export function Notice(props: { kind: 'ok' | 'error'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

/** A titled block of a page. */
export function Section(props: { title: string; id?: string; children: ComponentChildren }) {
  const headingId = `${props.id ?? props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-titulo`;
  return (
    <section class="panel" aria-labelledby={headingId} {...(props.id ? { id: props.id } : {})}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/**
 * A table's box, scrolled sideways on a narrow screen rather than widening the page. It can take
 * focus so the keyboard can scroll it, and is named for screen readers.
 */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}
