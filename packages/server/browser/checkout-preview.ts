/*
 * The checkout editor's live preview. Without this script, "Pré-visualizar" posts the form into the
 * preview frame. With it, the same post runs by itself as the merchant types (debounced), into a
 * fresh hidden frame that replaces the shown one once it has loaded: no flicker, and (a new frame's
 * first page replaces its blank one) no entry in the browser's history per keystroke.
 */

const DEBOUNCE_MS = 350;

/** Whether a frame still shows the blank page it starts with (an error page is not readable: not blank). */
function isBlank(frame: HTMLIFrameElement): boolean {
  try {
    return frame.contentWindow?.location.href === 'about:blank';
  } catch {
    return false;
  }
}

function livePreview(): void {
  const form = document.querySelector<HTMLFormElement>('form[data-preview-frame]');
  const button = form?.querySelector<HTMLButtonElement>('button[data-preview-button]');
  let shown = document.querySelector<HTMLIFrameElement>('iframe.preview-frame');
  if (!form || !button || !shown) return;
  let serial = 0;
  let latest: HTMLIFrameElement | null = null;
  let timer: number | undefined;

  const redraw = () => {
    const frame = document.createElement('iframe');
    frame.name = `${form.dataset.previewFrame}-${++serial}`;
    frame.title = shown!.title;
    frame.className = 'preview-frame preview-loading';
    frame.tabIndex = -1;
    shown!.after(frame);
    latest = frame;
    frame.addEventListener('load', () => {
      // The blank page a new frame starts with also fires load; wait for the preview itself.
      if (isBlank(frame)) return;
      if (frame !== latest) {
        frame.remove();
        return;
      }
      frame.classList.remove('preview-loading');
      frame.removeAttribute('tabindex');
      shown!.remove();
      shown = frame;
    });
    const target = button.formTarget;
    button.formTarget = frame.name;
    form.requestSubmit(button);
    button.formTarget = target;
  };

  const schedule = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(redraw, DEBOUNCE_MS);
  };
  form.addEventListener('input', schedule);
  form.addEventListener('change', schedule);
  button.addEventListener('click', (event) => {
    event.preventDefault();
    window.clearTimeout(timer);
    redraw();
  });
}

livePreview();
