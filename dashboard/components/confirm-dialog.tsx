/**
 * A dialog that asks before doing one thing: a title, what happens, Cancel and
 * the button that does it. It keeps the busy state (the button is disabled
 * while the action runs) and shows the error of the last attempt; on success
 * the action's own callback closes it (or replaces it, as Rotate secret does).
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { DashboardError } from '../api.ts';
import { ConfirmActions, Dialog } from './dialog.tsx';

export function ConfirmDialog(props: {
  id: string;
  title: string;
  /** The confirm button's label, its accessible name too. */
  label: string;
  /** `danger` (red, the default) for what cannot be undone, `primary` otherwise. */
  tone?: 'danger' | 'primary';
  /** The closing button's words (default Cancel; another when the action itself is a cancellation). */
  dismiss?: string;
  action: () => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await props.action();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  };
  return (
    <Dialog id={props.id} title={props.title} onClose={props.onClose}>
      {props.children}
      <ConfirmActions error={error} label={props.label} tone={props.tone} dismiss={props.dismiss} onCancel={props.onClose} onConfirm={() => void confirm()} busy={busy} />
    </Dialog>
  );
}
