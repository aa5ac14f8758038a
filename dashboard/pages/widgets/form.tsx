/**
 * The builder's form: every widget option of the README's table as a
 * labelled control, grouped in fieldsets. It only edits the draft; the
 * builder validates through the server and shows each problem under its field.
 */
import type { ComponentChildren } from 'preact';
import { KNOWN_PLATFORMS, LAYOUTS, SUBJECT_TYPES, WIDGET_LANGUAGES, type Draft } from './draft.ts';
import { markInput } from './preview.tsx';

export interface FormProps {
  draft: Draft;
  /** Field (`options.maxReviews`) → the problem, in the person's words. */
  errors: Record<string, string>;
  /** The organization's platforms and how many reviews each has. */
  platforms: { platform: string; count: number }[];
  /** The organization's catalog (the product choice). */
  products: { id: string; name: string }[];
  /** The organization's sources (the source choice: a chain's locations, each by its name). */
  sources: { id: string; name: string; platform: string }[];
  /** The preview's lint findings: the one about the stars' sources is shown beside that choice. */
  findings: { rule: string; severity: string; message: string }[] | null;
  onChange: (patch: Partial<Draft>) => void;
}

const languageName = (code: string): string => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
};

const platformName = (id: string): string => {
  const known: Record<string, string> = { GOOGLE: 'Google', YELP: 'Yelp', TRUSTPILOT: 'Trustpilot', G2: 'G2', CAPTERRA: 'Capterra', FACEBOOK: 'Facebook' };
  return known[id] ?? id.charAt(0) + id.slice(1).toLowerCase().replace(/_/g, ' ');
};

/** A label, the control, an optional hint and the field's error, tied together by ids. */
function Field(props: { id: string; label: string; error?: string | undefined; hint?: ComponentChildren; children: (describedBy: string | undefined, invalid: boolean) => ComponentChildren }) {
  const ids = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children(ids, !!props.error)}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;
const checked = (e: Event): boolean => (e.currentTarget as HTMLInputElement).checked;

const PRODUCT_MODES = [
  { value: 'none', label: 'The organization', hint: 'Every review, whatever it is about' },
  { value: 'one', label: 'One product', hint: 'Only the reviews of a product you pick' },
  { value: 'page', label: 'The product of the page', hint: 'One widget for every product page: the page names its product' },
] as const;

export function WidgetForm({ draft, errors, platforms, products, sources, findings, onChange }: FormProps) {
  const set = (patch: Partial<Draft>) => {
    markInput(false);
    onChange(patch);
  };
  /** Typing: the preview waits for a short pause. */
  const type = (patch: Partial<Draft>) => {
    markInput(true);
    onChange(patch);
  };
  const platformChoices = [...new Set([...platforms.map((p) => p.platform), ...KNOWN_PLATFORMS, ...(draft.platforms ?? [])])];
  const counts = new Map(platforms.map((p) => [p.platform, p.count]));
  // A source removed since it was chosen stays listed while chosen, so it can be unchecked.
  const sourceChoices = [...sources, ...(draft.sourceIds ?? []).filter((id) => !sources.some((s) => s.id === id)).map((id) => ({ id, name: `Removed source (${id})`, platform: '' }))];
  const locales = draft.locale && !WIDGET_LANGUAGES.includes(draft.locale) ? [draft.locale, ...WIDGET_LANGUAGES] : WIDGET_LANGUAGES;
  const invalid = (field: string) => (errors[field] ? 'true' : undefined);
  // Beside the choice of what the stars count: why "all" breaks the guidelines, or why there are no stars.
  const sourcesFinding = findings?.find((f) => f.rule === (draft.jsonLdSources === 'all' ? 'third-party-reviews' : 'no-direct-reviews'));

  return (
    <>
      <fieldset class="group">
        <legend>Widget</legend>
        <Field id="w-name" label="Widget name" error={errors.name} hint="For you only, e.g. “Home page”.">
          {(d, bad) => <input id="w-name" type="text" required maxLength={200} autoComplete="off" value={draft.name} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ name: value(e) })} />}
        </Field>
      </fieldset>

      <fieldset class="group" aria-describedby={errors.layout ? 'w-layout-error' : undefined}>
        <legend>Layout</legend>
        <div class="layout-grid">
          {LAYOUTS.map((l) => (
            <label key={l.value} class="option-card" for={`w-layout-${l.value}`}>
              <input id={`w-layout-${l.value}`} type="radio" name="layout" value={l.value} checked={draft.layout === l.value} onChange={() => set({ layout: l.value })} />
              <span>
                <span class="option-title">{l.label}</span>
                <span class="hint">{l.hint}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.layout && (
          <p class="field-error" id="w-layout-error">
            {errors.layout}
          </p>
        )}
      </fieldset>

      <fieldset class="group">
        <legend>Look</legend>
        <div class="field-row">
          <Field id="w-theme" label="Theme" error={errors['options.theme']} hint="Automatic follows the visitor’s light or dark setting.">
            {(d) => (
              <select id="w-theme" value={draft.theme} aria-describedby={d} aria-invalid={invalid('options.theme')} onChange={(e) => set({ theme: value(e) as Draft['theme'] })}>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
                <option value="auto">Automatic</option>
              </select>
            )}
          </Field>
          <div class="field">
            <label for="w-accent-text">Accent colour</label>
            <div class="copy-row">
              <input
                id="w-accent-swatch"
                class="swatch"
                type="color"
                aria-label="Pick a colour"
                value={/^#[0-9a-fA-F]{6}$/.test(draft.accentColor) ? draft.accentColor : '#000000'}
                onInput={(e) => type({ accentColor: value(e) })}
              />
              <input
                id="w-accent-text"
                class="mono"
                type="text"
                inputMode="text"
                autoComplete="off"
                spellcheck={false}
                maxLength={7}
                value={draft.accentColor}
                aria-describedby={['w-accent-hint', errors['options.accentColor'] ? 'w-accent-error' : ''].filter(Boolean).join(' ')}
                aria-invalid={invalid('options.accentColor')}
                onInput={(e) => type({ accentColor: value(e) })}
              />
            </div>
            <p class="hint" id="w-accent-hint">
              A hex colour like #4f46e5. Text keeps readable contrast whatever you pick.
            </p>
            {errors['options.accentColor'] && (
              <p class="field-error" id="w-accent-error">
                {errors['options.accentColor']}
              </p>
            )}
          </div>
        </div>
      </fieldset>

      <fieldset class="group" aria-describedby={errors['options.productId'] ? 'w-product-error' : undefined}>
        <legend>Reviews about</legend>
        <div class="layout-grid">
          {PRODUCT_MODES.map((m) => (
            <label key={m.value} class="option-card" for={`w-product-${m.value}`}>
              <input id={`w-product-${m.value}`} type="radio" name="product-mode" value={m.value} checked={draft.productMode === m.value} onChange={() => set({ productMode: m.value })} />
              <span>
                <span class="option-title">{m.label}</span>
                <span class="hint">{m.hint}</span>
              </span>
            </label>
          ))}
        </div>
        {draft.productMode !== 'none' && (
          <Field
            id="w-product"
            label={draft.productMode === 'one' ? 'Product' : 'Preview with'}
            error={errors['options.productId']}
            hint={
              products.length === 0 ? (
                'Your catalog has no product yet: add products on the Products page.'
              ) : draft.productMode === 'page' ? (
                <>
                  Put the page’s product id on the snippet’s container: <code>data-product-id="…"</code>. The search results markup is that product.
                </>
              ) : (
                'The widget shows this product’s reviews, and its search results markup is this product.'
              )
            }
          >
            {(d, bad) => (
              <select id="w-product" value={draft.productId} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onChange={(e) => set({ productId: value(e) })}>
                <option value="">{draft.productMode === 'one' ? 'Choose a product' : 'Choose a product to preview'}</option>
                {products.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} ({p.id})
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </fieldset>

      <fieldset class="group">
        <legend>Which reviews</legend>
        <div class="field-row">
          <Field id="w-max-reviews" label="Reviews shown" error={errors['options.maxReviews']} hint="From 1 to 50.">
            {(d, bad) => (
              <input id="w-max-reviews" type="number" inputMode="numeric" min={1} max={50} step={1} required value={draft.maxReviews} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ maxReviews: value(e) })} />
            )}
          </Field>
          <Field id="w-min-rating" label="Minimum stars" error={errors['options.minRating']} hint="Any shows every review, unrated ones included. With a minimum, the widget tells visitors how many it leaves out.">
            {(d) => (
              <select id="w-min-rating" value={draft.minRating} aria-describedby={d} aria-invalid={invalid('options.minRating')} onChange={(e) => set({ minRating: value(e) })}>
                <option value="">Any</option>
                {[1, 2, 3, 4, 5].map((n) => (
                  <option key={n} value={String(n)}>
                    {n === 5 ? '5 stars only' : `${n} star${n === 1 ? '' : 's'} or more`}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <fieldset class="subgroup" aria-describedby={errors['options.platforms'] ? 'w-platforms-error' : undefined}>
          <legend>Platforms</legend>
          <label class="check" for="w-platforms-all">
            <input id="w-platforms-all" type="radio" name="platform-mode" checked={draft.platforms === null} onChange={() => set({ platforms: null })} />
            All platforms, including ones you import later
          </label>
          {/* Switching to a choice starts from every platform that has reviews, all checked: uncheck what to leave out. */}
          <label class="check" for="w-platforms-some">
            <input id="w-platforms-some" type="radio" name="platform-mode" checked={draft.platforms !== null} onChange={() => set({ platforms: draft.platforms ?? platforms.map((p) => p.platform) })} />
            Only the platforms checked below
          </label>
          <div class="platforms">
            {platformChoices.map((p) => (
              <label key={p} class="check" for={`w-platform-${p}`}>
                <input
                  id={`w-platform-${p}`}
                  type="checkbox"
                  disabled={draft.platforms === null}
                  checked={draft.platforms === null || draft.platforms.includes(p)}
                  onChange={(e) => set({ platforms: checked(e) ? [...(draft.platforms ?? []), p] : (draft.platforms ?? []).filter((x) => x !== p) })}
                />
                {platformName(p)} <span class="muted">({counts.get(p) ?? 0})</span>
              </label>
            ))}
          </div>
          {errors['options.platforms'] && (
            <p class="field-error" id="w-platforms-error">
              {draft.platforms?.length === 0 ? 'Platforms: check at least one, or choose all platforms.' : errors['options.platforms']}
            </p>
          )}
        </fieldset>
        {/* Only where there is a choice: an organization with sources, and a widget of the organization's reviews (a product widget shows its product's). */}
        {draft.productMode === 'none' && sourceChoices.length > 0 && (
          <fieldset class="subgroup" aria-describedby={errors['options.sourceIds'] ? 'w-sources-error' : undefined}>
            <legend>Sources</legend>
            <label class="check" for="w-sources-all">
              <input id="w-sources-all" type="radio" name="source-mode" checked={draft.sourceIds === null} onChange={() => set({ sourceIds: null })} />
              Every review, whichever source or import it came from
            </label>
            {/* A choice starts empty: a store-locator page checks its own location. */}
            <label class="check" for="w-sources-some">
              <input id="w-sources-some" type="radio" name="source-mode" checked={draft.sourceIds !== null} onChange={() => set({ sourceIds: draft.sourceIds ?? [] })} />
              Only the reviews of the sources checked below
            </label>
            <div class="sources-choice">
              {sourceChoices.map((s) => (
                <label key={s.id} class="check" for={`w-source-${s.id}`}>
                  <input
                    id={`w-source-${s.id}`}
                    type="checkbox"
                    disabled={draft.sourceIds === null}
                    checked={draft.sourceIds !== null && draft.sourceIds.includes(s.id)}
                    onChange={(e) => set({ sourceIds: checked(e) ? [...(draft.sourceIds ?? []), s.id] : (draft.sourceIds ?? []).filter((x) => x !== s.id) })}
                  />
                  <span class="break">
                    {s.name}
                    {s.platform && <span class="muted"> ({platformName(s.platform.toUpperCase())})</span>}
                  </span>
                </label>
              ))}
            </div>
            {errors['options.sourceIds'] && (
              <p class="field-error" id="w-sources-error">
                {draft.sourceIds?.length === 0 ? 'Sources: check at least one, or choose every review.' : errors['options.sourceIds']}
              </p>
            )}
          </fieldset>
        )}
        <label class="check" for="w-hide-empty">
          <input id="w-hide-empty" type="checkbox" checked={draft.hideEmpty} onChange={(e) => set({ hideEmpty: checked(e) })} />
          Leave out reviews without text
        </label>
        <label class="check" for="w-show-dates">
          <input id="w-show-dates" type="checkbox" checked={draft.showDates} onChange={(e) => set({ showDates: checked(e) })} />
          Show dates (“2 weeks ago”)
        </label>
        <label class="check" for="w-show-replies">
          <input id="w-show-replies" type="checkbox" checked={draft.showReplies} onChange={(e) => set({ showReplies: checked(e) })} />
          Show your replies (“Response from …” under the review)
        </label>
      </fieldset>

      <fieldset class="group">
        <legend>Language</legend>
        <div class="field-row">
          <Field id="w-locale" label="Widget language" error={errors['options.locale']} hint="Labels, dates and numbers. Automatic: the page’s language, else the visitor’s browser.">
            {(d) => (
              <select id="w-locale" value={draft.locale} aria-describedby={d} aria-invalid={invalid('options.locale')} onChange={(e) => set({ locale: value(e) })}>
                <option value="">Automatic</option>
                {locales.map((code) => (
                  <option key={code} value={code}>
                    {languageName(code)} ({code})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="w-review-languages" label="Reviews by language" error={errors['options.reviewLanguages']} hint="The visitor’s language: only when 3 or more reviews are in it, else all.">
            {(d) => (
              <select id="w-review-languages" value={draft.reviewLanguages} aria-describedby={d} onChange={(e) => set({ reviewLanguages: value(e) as Draft['reviewLanguages'] })}>
                <option value="all">All languages</option>
                <option value="page">The visitor’s language</option>
              </select>
            )}
          </Field>
        </div>
      </fieldset>

      <fieldset class="group">
        <legend>Search results</legend>
        <p class="hint">The widget can add structured data (JSON-LD) to your page so that search engines may show review stars next to it.</p>
        <Field id="w-json-ld" label="Rich results markup" error={errors['options.jsonLd']} hint="Automatic: only where search engines allow review stars for the type below.">
          {(d) => (
            <select id="w-json-ld" value={draft.jsonLd} aria-describedby={d} onChange={(e) => set({ jsonLd: value(e) as Draft['jsonLd'] })}>
              <option value="auto">Automatic</option>
              <option value="on">Always</option>
              <option value="off">Never</option>
            </select>
          )}
        </Field>
        <Field
          id="w-json-ld-sources"
          label="Stars from"
          error={errors['options.jsonLdSources'] ?? (sourcesFinding?.severity === 'error' ? sourcesFinding.message : undefined)}
          hint={sourcesFinding?.severity === 'error' ? undefined : (sourcesFinding?.message ?? 'Your own reviews: those collected with your review page. Search engines allow stars only from reviews collected on your own site.')}
        >
          {(d) => (
            <select id="w-json-ld-sources" value={draft.jsonLdSources} aria-describedby={d} onChange={(e) => set({ jsonLdSources: value(e) as Draft['jsonLdSources'] })}>
              <option value="direct">Your own reviews (recommended)</option>
              <option value="all">Every platform shown</option>
            </select>
          )}
        </Field>
        {draft.productMode === 'none' ? (
          <>
          <div class="field-row">
            <Field id="w-subject-type" label="Type of what is reviewed" error={errors['subject.type']}>
              {(d) => (
                <select id="w-subject-type" value={draft.subjectType} aria-describedby={d} aria-invalid={invalid('subject.type')} onChange={(e) => set({ subjectType: value(e) })}>
                  {SUBJECT_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t.replace(/([a-z])([A-Z])/g, '$1 $2')}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="w-subject-name" label="Name of what is reviewed" error={errors['subject.name']} hint="Empty: the widget name.">
              {(d, bad) => <input id="w-subject-name" type="text" maxLength={200} autoComplete="off" value={draft.subjectName} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ subjectName: value(e) })} />}
            </Field>
          </div>
          <Field id="w-subject-url" label="Page address" error={errors['subject.url']} hint="Optional. The page about it, starting with https://.">
            {(d, bad) => <input id="w-subject-url" type="url" inputMode="url" autoComplete="off" value={draft.subjectUrl} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ subjectUrl: value(e) })} />}
          </Field>
          <Field id="w-subject-image" label="Image address" error={errors['subject.image']} hint="Optional (needed for a recipe). Starting with https://.">
            {(d, bad) => <input id="w-subject-image" type="url" inputMode="url" autoComplete="off" value={draft.subjectImage} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ subjectImage: value(e) })} />}
          </Field>
          <Field id="w-subject-brand" label="Brand" error={errors['subject.brand']} hint="Optional, for a product.">
            {(d, bad) => <input id="w-subject-brand" type="text" maxLength={200} autoComplete="off" value={draft.subjectBrand} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} onInput={(e) => type({ subjectBrand: value(e) })} />}
          </Field>
          </>
        ) : (
          <p class="hint" id="w-subject-product">
            What is reviewed: {draft.productMode === 'one' ? 'the product chosen above' : 'the product each page names'}, as your catalog describes it (name, address, image, GTIN, brand).
          </p>
        )}
      </fieldset>
    </>
  );
}
