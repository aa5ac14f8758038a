/**
 * A modal dialog on the native <dialog> element: showModal() gives focus
 * trapping, Escape to close and an inert page behind it for free.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; id: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => {
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
