/**
 * A value to copy (a payment link): shown in a labelled read-only input, so it can be selected and
 * copied without JavaScript; the button next to it (`data-copy` names the input) is for a page
 * script to copy it with one click, and without one the input is still there to copy from.
 */
export function CopyField(props: { id: string; label: string; value: string; button: string }) {
  return (
    <div class="field copy-field">
      <label for={props.id}>{props.label}</label>
      <input id={props.id} type="text" readOnly value={props.value} />
      <button type="button" class="button button-small" data-copy={props.id}>
        {props.button}
      </button>
    </div>
  );
}
