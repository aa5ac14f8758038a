/** A read-only value with a Copy button (a new API key, an invitation link). */
import { useEffect, useRef, useState } from 'preact/hooks';

export function CopyField(props: { id: string; label: string; value: string; focus?: boolean }) {
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // Shown in place of the form that had focus: keep focus inside the dialog, on what matters.
    if (props.focus) input.current?.focus();
  }, []);
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('yes');
    } catch {
      // No clipboard permission: select the text so that Ctrl+C works.
      (document.getElementById(props.id) as HTMLTextAreaElement | null)?.select();
      setCopied('failed');
    }
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <div class="copy-row">
        {/* Wrapping lines, so the whole value shows at any width (a key's rvp_ start included), selected on focus. */}
        <textarea ref={input} id={props.id} class="mono copy-text" rows={2} readOnly value={props.value} spellcheck={false} onFocus={(e) => (e.currentTarget as HTMLTextAreaElement).select()} />
        <button type="button" class="button secondary" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="hint" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </p>
    </div>
  );
}
