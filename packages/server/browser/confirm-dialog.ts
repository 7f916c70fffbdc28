/*
 * The dashboard's confirm dialogs. A form marked `data-confirm="<dialog id>"` works without this
 * script (it opens a confirm page); with it, submitting the form opens that native <dialog> instead,
 * whose own form does the action. "Cancelar" (a `value="cancel"` button of a `method="dialog"` form)
 * closes it and gives focus back.
 */

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-confirm]')) {
  const dialog = document.getElementById(form.dataset.confirm ?? '');
  if (!(dialog instanceof HTMLDialogElement)) continue;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    dialog.showModal();
  });
}
