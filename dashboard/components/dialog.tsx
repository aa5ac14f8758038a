/**
 * A modal dialog on the native <dialog> element: showModal() gives focus
 * trapping, Escape to close and an inert page behind it for free.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { Notice } from './page.tsx';

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; id: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    // The browser may close the dialog itself: Chrome does not let a page keep a dialog open
    // against Escape when there was no user activation since it opened (CloseWatcher), and
    // then no cancellable `cancel` comes, only `close`. The page is told, so that it does not
    // think the dialog still open, and focus returns below when it unmounts. (Unmounting
    // removes the listener before its own close().)
    const closedByBrowser = () => onClose.current();
    dialog.addEventListener('close', closedByBrowser);
    dialog.showModal();
    return () => {
      dialog.removeEventListener('close', closedByBrowser);
      if (dialog.open) dialog.close();
      // Focus returns where it was, as people expect after a dialog.
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={`${props.id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={`${props.id}-title`} class="dialog-title">
        {props.title}
      </h2>
      {props.children}
    </dialog>
  );
}

/**
 * The end of a confirmation dialog: the error of the last attempt, Cancel, and
 * the button that does it, red unless `tone` is `primary` (a form's submit
 * button when `onConfirm` is not given).
 */
export function ConfirmActions(props: { error: string | null; label: string; onCancel: () => void; onConfirm?: () => void; busy?: boolean; tone?: 'danger' | 'primary'; /** The closing button's words (default Cancel). */ dismiss?: string }) {
  return (
    <>
      {props.error && (
        <Notice tone="error" role="alert">
          {props.error}
        </Notice>
      )}
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={props.onCancel}>
          {props.dismiss ?? 'Cancel'}
        </button>
        <button type={props.onConfirm ? 'button' : 'submit'} class={`button ${props.tone ?? 'danger'}`} onClick={props.onConfirm} disabled={props.busy}>
          {props.label}
        </button>
      </div>
    </>
  );
}
