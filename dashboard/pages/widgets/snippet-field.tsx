/** The saved widget's embed snippet (CONTRACT §4, exactly as the API's embed answers it) with `Copy snippet`. */
import { useRef, useState } from 'preact/hooks';

export function SnippetField(props: { snippet: string }) {
  const field = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.snippet);
      setCopied('yes');
    } catch {
      // No clipboard permission: select the text so that Ctrl+C works.
      field.current?.focus();
      field.current?.select();
      setCopied('failed');
    }
  };
  return (
    <div class="field">
      <label for="w-snippet">Snippet</label>
      <textarea ref={field} id="w-snippet" class="mono snippet-text" readOnly rows={4} value={props.snippet} aria-describedby="w-snippet-hint" onFocus={(e) => e.currentTarget.select()} />
      <p class="hint" id="w-snippet-hint">
        Paste it into your page’s HTML where the widget should appear. It holds no key.
      </p>
      <div class="copy-row">
        <button type="button" class="button secondary" onClick={copy}>
          Copy snippet
        </button>
        <p class="hint" role="status">
          {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
        </p>
      </div>
    </div>
  );
}
