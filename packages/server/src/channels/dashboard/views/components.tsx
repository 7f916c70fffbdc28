import type {
  ComponentChildren,
  FormHTMLAttributes,
  InputHTMLAttributes,
  SelectHTMLAttributes,
  TextareaHTMLAttributes,
} from 'preact';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { formatDateTime } from './format.js';
import { PageContextValue } from './page-context.js';

/** The form field carrying the session's CSRF token. */
export const CSRF_FIELD = '_csrf';

/** The id of the `Section` around a component, if it has one. */
const SectionId = createContext<string | null>(null);

/**
 * A page's answer to an action that concerns one section (a notice after a redirect back), shown
 * atop the `Section` of that id rather than atop a long page.
 */
export const SectionAnswer = createContext<{ section: string; notice: ComponentChildren } | null>(null);

/**
 * A POST form that works without JavaScript and carries the session's CSRF token; every
 * state-changing form of the dashboard is one of these. Inside a `Section` its action carries the
 * section's fragment, so the page answering it (a refusal shown again, or the redirect after it, which
 * keeps the fragment) opens at that section, where its answer is, not at the top of a long page.
 */
export function PostForm(
  props: { action: string; children: ComponentChildren } & Omit<
    FormHTMLAttributes<HTMLFormElement>,
    'method' | 'action'
  >,
) {
  const { csrf } = useContext(PageContextValue);
  const section = useContext(SectionId);
  const { children, action, ...rest } = props;
  return (
    <form method="post" action={section && !action.includes('#') ? `${action}#${section}` : action} {...rest}>
      {csrf ? <input type="hidden" name={CSRF_FIELD} value={csrf} /> : null}
      {children}
    </form>
  );
}

/** An instant as the store reads it: date and time in the store's own time zone. */
export function DateTime(props: { iso: string }) {
  const { timeZone } = useContext(PageContextValue);
  return <time dateTime={props.iso}>{formatDateTime(props.iso, timeZone)}</time>;
}

interface FieldLabels {
  label: string;
  name: string;
  error?: string | null | undefined;
  hint?: string;
  id?: string | undefined;
}

/** The ids and ARIA attributes that tie a control to its hint and error for screen readers. */
type ControlProps = { id: string; name: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' };

/**
 * The label, hint and error around one form control; `control` renders the input, select or
 * textarea with the ids that tie them together.
 */
function FieldFrame(props: FieldLabels & { control: (tie: ControlProps) => ComponentChildren }) {
  const { label, name, error, hint, id, control } = props;
  // Unique per page unless the same name is used twice: then the caller gives ids.
  const fieldId = id ?? `f-${name}`;
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
      {control({
        id: fieldId,
        name,
        ...(described ? { 'aria-describedby': described } : {}),
        ...(error ? { 'aria-invalid': 'true' as const } : {}),
      })}
      {error ? (
        <p class="field-error" id={`${fieldId}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input with its hint and error tied to it for screen readers. */
export function Field(props: FieldLabels & Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'id'>) {
  const { label, name, error, hint, id, ...input } = props;
  return (
    <FieldFrame
      {...{ label, name, error, hint, id }}
      // id and name first, as people reading the HTML expect them.
      control={({ id: fieldId, name: fieldName, ...aria }) => (
        <input id={fieldId} name={fieldName} {...input} {...aria} />
      )}
    />
  );
}

/** A labelled multi-line text box (e-mail bodies, descriptions). */
export function TextAreaField(
  props: FieldLabels & { value?: string | null } & Omit<
      TextareaHTMLAttributes<HTMLTextAreaElement>,
      'name' | 'id' | 'value'
    >,
) {
  const { label, name, error, hint, id, value, ...area } = props;
  return (
    <FieldFrame
      {...{ label, name, error, hint, id }}
      control={(tie) => (
        <textarea rows={6} {...area} {...tie}>
          {value ?? ''}
        </textarea>
      )}
    />
  );
}

/** A labelled choice among fixed options; `value` is the one selected. */
export function SelectField(
  props: FieldLabels & {
    value: string;
    options: readonly { value: string; label: string }[];
  } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name' | 'id' | 'value'>,
) {
  const { label, name, error, hint, id, value, options, ...select } = props;
  return (
    <FieldFrame
      {...{ label, name, error, hint, id }}
      control={(tie) => (
        <select {...select} {...tie}>
          {options.map((option) => (
            <option value={option.value} selected={option.value === value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** A labelled checkbox (a setting on or off): it sends `on` when ticked and nothing otherwise. */
export function CheckboxField(props: { label: string; name: string; checked: boolean; hint?: string }) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label class="choice" for={id}>
        <input
          type="checkbox"
          id={id}
          name={props.name}
          checked={props.checked}
          {...(props.hint ? { 'aria-describedby': `${id}-hint` } : {})}
        />
        {props.label}
      </label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A message after an action: success (a status) or a problem (an alert). It is the page's answer
 * (`data-answer`): the dashboard's script gives it focus, so a phone scrolls to it and a screen reader
 * reads it.
 */
export function Notice(props: { kind: 'ok' | 'error'; children: ComponentChildren }) {
  return (
    <div
      class={`notice notice-${props.kind}`}
      role={props.kind === 'error' ? 'alert' : 'status'}
      tabIndex={-1}
      data-answer
    >
      {props.children}
    </div>
  );
}

/** Atop a form shown again after a refusal (any field error): nothing was saved, see the marked field. */
export function RefusedNotice(props: { errors: Record<string, string> }) {
  return Object.keys(props.errors).length > 0 ? (
    <Notice kind="error">Nada foi salvo: confira o campo marcado.</Notice>
  ) : null;
}

/** The button that archives an active item (`base`/arquivar) or brings an archived one back (`base`/reativar). */
export function ArchiveButton(props: { base: string; active: boolean }) {
  const { base, active } = props;
  return (
    <PostForm action={`${base}/${active ? 'arquivar' : 'reativar'}`} class="stack">
      <button type="submit" class={active ? 'button button-danger' : 'button'}>
        {active ? 'Arquivar' : 'Reativar'}
      </button>
    </PostForm>
  );
}

/** A titled block of a page; with an `id`, its forms come back to it and its answer shows in it. */
export function Section(props: { title: string; id?: string; children: ComponentChildren }) {
  const headingId = `${props.id ?? props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-titulo`;
  const answer = useContext(SectionAnswer);
  return (
    <section class="panel" aria-labelledby={headingId} {...(props.id ? { id: props.id } : {})}>
      <h2 id={headingId}>{props.title}</h2>
      {answer && props.id && answer.section === props.id ? <Notice kind="ok">{answer.notice}</Notice> : null}
      <SectionId.Provider value={props.id ?? null}>{props.children}</SectionId.Provider>
    </section>
  );
}

/**
 * A value to copy, shown once or long (an API key, a signing secret, an invite link): a read-only
 * field anyone can select, and with the dashboard's script a "Copiar" button (Clipboard API) that
 * says "Copiado" in a live region.
 */
export function CopyField(props: {
  label: string;
  id: string;
  value: string;
  name?: string;
  hint?: string;
  /** The button's words when "Copiar" alone would not say what (a payment link among other fields). */
  button?: string;
}) {
  const { id } = props;
  return (
    <div class="field copy-field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <div class="copy-row">
        <input
          id={id}
          {...(props.name ? { name: props.name } : {})}
          readOnly
          value={props.value}
          class="secret"
          {...(props.hint ? { 'aria-describedby': `${id}-hint` } : {})}
        />
        {/* Hidden until the script can copy; without it, the field is selected by hand. */}
        {/* Named "Copiar" alone: a name holding the label would make two controls of that label. */}
        <button type="button" class="button button-small" data-copy={id} hidden>
          {props.button ?? 'Copiar'}
        </button>
      </div>
      <p class="hint" id={`${id}-copiado`} role="status" aria-live="polite"></p>
    </div>
  );
}

/**
 * A table that may be wider than a phone: it scrolls sideways inside this frame (the page never
 * does), and the frame takes keyboard focus so the arrows scroll it.
 */
export function TableFrame(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** The 6-digit code of an authenticator app (two-step verification). */
export function CodeField() {
  return (
    <Field
      label="Código"
      name="code"
      inputMode="numeric"
      autocomplete="one-time-code"
      pattern="[0-9 ]*"
      required
      maxLength={8}
    />
  );
}

/**
 * The person's present password, asked to sign in or before a change to their account; `id` when
 * another field of the page has the same name.
 */
export function CurrentPasswordField(props: { label: string; name: string; id?: string }) {
  return (
    <Field
      label={props.label}
      name={props.name}
      id={props.id}
      type="password"
      autocomplete="current-password"
      required
      maxLength={200}
    />
  );
}
