/*
 * The dashboard's only script on every page (no framework; each page works without it):
 *
 * - Confirm dialogs. A form marked `data-confirm="<dialog id>"` opens a confirm page without this
 *   script; with it, submitting the form opens that native <dialog> instead, whose own form does the
 *   action. Opening it focuses "Cancelar" (`value="cancel"`, the safe choice); it and Escape close it
 *   and give focus back.
 * - The answer to an action. A page answering a form (a notice, a refusal, a secret shown once) marks
 *   it `data-answer`: it takes focus, so it is scrolled into view and read out even on a long page.
 *   (`autofocus` cannot do it: browsers skip it when the URL has a fragment, which these pages use.)
 * - Copy buttons. `button[data-copy="<input id>"]` copies that read-only field with the Clipboard API
 *   and says "Copiado" in its live region; without the API the field's text is selected for the
 *   person to copy.
 */

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-confirm]')) {
  const dialog = document.getElementById(form.dataset.confirm ?? '');
  if (!(dialog instanceof HTMLDialogElement)) continue;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    dialog.showModal();
    dialog.querySelector<HTMLButtonElement>('button[value="cancel"]')?.focus();
  });
}

// After the load: opening at a fragment (the section) runs the browser's own focus steps, which
// would take focus back to the page when the section itself cannot hold it.
const answer = document.querySelector<HTMLElement>('[data-answer]');
if (answer) {
  // An answer taller than the screen (the 2FA set-up) is not brought to its top by focus alone.
  const focusAnswer = () =>
    window.requestAnimationFrame(() => {
      answer.focus();
      const { top } = answer.getBoundingClientRect();
      if (top < 0 || top >= window.innerHeight) window.scrollTo({ top: window.scrollY + top - 16 });
    });
  if (document.readyState === 'complete') focusAnswer();
  else window.addEventListener('load', focusAnswer, { once: true });
}

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy ?? '');
  const status = document.getElementById(`${button.dataset.copy ?? ''}-copiado`);
  if (!(field instanceof HTMLInputElement)) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      if (status) status.textContent = 'Copiado';
    } catch {
      field.focus();
      field.select();
      if (status) status.textContent = 'Selecionado: copie com o menu do aparelho';
    }
    window.setTimeout(() => {
      if (status) status.textContent = '';
    }, 4000);
  });
}
