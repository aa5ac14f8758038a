/**
 * `Add product` and `Edit product` (Owner, Admin): every catalog field of
 * CONTRACT §13. The form checks the fields with the very validator the API
 * uses (api/products/validate.ts), so a person reads the same words before
 * sending as the server would answer; the server's own answer (an id already
 * in the catalog, say) lands beside the field it names too.
 */
import { useRef, useState } from 'preact/hooks';
import { call, DashboardError, type ProductItem } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { Notice } from '../../components/page.tsx';
import { validateProduct } from '../../../api/products/validate.ts';

type Field = 'id' | 'name' | 'url' | 'imageUrl' | 'gtin' | 'brand';
const FIELDS: readonly Field[] = ['id', 'name', 'url', 'imageUrl', 'gtin', 'brand'];

/**
 * A validator's words ("gtin must have 8, 12, 13 or 14 digits") as a sentence:
 * a full stop, the field's name as the API and the file's header write it
 * (not capitalized: "Gtin" would be neither).
 */
const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`);

const inputId = (field: Field) => `product-${field}`;

function TextField(props: {
  field: Field;
  label: string;
  value: string;
  onInput: (value: string) => void;
  problem: string | undefined;
  hint?: string;
  readOnly?: boolean;
  inputMode?: 'url' | 'numeric' | 'text';
  maxLength?: number;
  required?: boolean;
}) {
  const id = inputId(props.field);
  const described = [props.problem && `${id}-error`, props.hint && `${id}-hint`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="text"
        inputMode={props.inputMode}
        autoComplete="off"
        spellcheck={false}
        readOnly={props.readOnly}
        required={props.required}
        maxLength={props.maxLength}
        aria-describedby={described || undefined}
        aria-invalid={props.problem ? 'true' : undefined}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.problem && (
        <p class="field-error" id={`${id}-error`}>
          {sentence(props.problem)}
        </p>
      )}
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** The form: a product to edit, or null to add one. */
export function ProductDialog(props: { product: ProductItem | null; onClose: () => void; onSaved: (product: ProductItem | null, created: boolean) => void }) {
  const editing = props.product;
  const [values, setValues] = useState<Record<Field, string>>({
    id: editing?.id ?? '',
    name: editing?.name ?? '',
    url: editing?.url ?? '',
    imageUrl: editing?.imageUrl ?? '',
    gtin: editing?.gtin ?? '',
    brand: editing?.brand ?? '',
  });
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const set = (field: Field) => (value: string) => setValues((v) => ({ ...v, [field]: value }));
  /** Focus goes to the first field with a problem, so that the person hears why and can fix it. */
  const focusFirst = (found: Partial<Record<Field, string>>) => {
    const first = FIELDS.find((f) => found[f] && !(f === 'id' && editing));
    if (first) requestAnimationFrame(() => (form.current?.querySelector(`#${inputId(first)}`) as HTMLInputElement | null)?.focus());
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setGeneral('');
    // Empty optional fields are absent; the id is taken as written (it is a key), as the API takes it.
    const record = Object.fromEntries(FIELDS.map((f) => [f, f === 'id' ? values.id : values[f].trim() === '' ? null : values[f]]));
    const checked = validateProduct(record);
    if (!checked.ok) {
      const found: Partial<Record<Field, string>> = {};
      for (const p of checked.problems) if (p.field !== 'record') found[p.field] ??= p.message;
      setProblems(found);
      if (checked.problems.some((p) => p.field === 'record')) setGeneral(sentence(checked.reason));
      return focusFirst(found);
    }
    setProblems({});
    setBusy(true);
    try {
      const { id, ...fields } = checked.value;
      const saved = editing
        ? await call<ProductItem>('PATCH', `/products/${encodeURIComponent(editing.id)}`, fields)
        : await call<ProductItem>('POST', '/products', { id, ...fields });
      props.onSaved(saved, !editing);
    } catch (err) {
      const e = err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Something went wrong. Try again.');
      const found: Partial<Record<Field, string>> = {};
      for (const f of FIELDS) if (e.details[f]) found[f] = f === 'id' && e.code === 'product_exists' ? e.message : e.details[f];
      setProblems(found);
      if (Object.keys(found).length === 0) setGeneral(e.code === 'product_not_found' ? 'This product was removed meanwhile (another person, or an import). Close this form to see the catalog as it is now.' : e.message);
      focusFirst(found);
      if (e.code === 'product_not_found') props.onSaved(null, false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog id="product-form" title={editing ? `Edit ${editing.name}` : 'Add product'} onClose={props.onClose}>
      <form ref={form} onSubmit={submit} noValidate>
        <TextField
          field="id"
          label="Product id (SKU or handle)"
          value={values.id}
          onInput={set('id')}
          problem={problems.id}
          readOnly={editing !== null}
          required
          maxLength={100}
          hint={editing ? 'The id cannot change: reviews name the product by it.' : 'Your own SKU or handle: 1 to 100 of A–Z a–z 0–9 . _ - (case matters). Reviews and widgets name the product by it.'}
        />
        <TextField field="name" label="Name" value={values.name} onInput={set('name')} problem={problems.name} required />
        <TextField field="url" label="Product page (optional)" value={values.url} onInput={set('url')} problem={problems.url} inputMode="url" hint="Its https:// address on your site." />
        <TextField field="imageUrl" label="Picture (optional)" value={values.imageUrl} onInput={set('imageUrl')} problem={problems.imageUrl} inputMode="url" hint="An https:// address of the product's picture." />
        <TextField field="gtin" label="GTIN (optional)" value={values.gtin} onInput={set('gtin')} problem={problems.gtin} inputMode="numeric" hint="The barcode number: 8, 12, 13 or 14 digits, the last one its check digit." />
        <TextField field="brand" label="Brand (optional)" value={values.brand} onInput={set('brand')} problem={problems.brand} />
        {general && (
          <Notice tone="error" role="alert">
            {general}
          </Notice>
        )}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? 'Saving…' : editing ? 'Save changes' : 'Add product'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
