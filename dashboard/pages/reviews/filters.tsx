/**
 * The public API's filters for GET /reviews, as a form: platform, stars, since, language, page size;
 * and the dashboard's own `Not replied` (reviews of Google, Trustpilot and the review page without a reply).
 */
import { useState } from 'preact/hooks';

export interface Filters {
  platform: string;
  minRating: string;
  maxRating: string;
  since: string;
  language: string;
  /** 'true': only reviews that can still be answered from here and have no reply (`notReplied`). */
  notReplied: '' | 'true';
  limit: string;
}

export const NO_FILTERS: Filters = { platform: '', minRating: '', maxRating: '', since: '', language: '', notReplied: '', limit: '20' };

const PLATFORMS = ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'];
const PLATFORM_NAMES: Record<string, string> = { GOOGLE: 'Google', YELP: 'Yelp', TRUSTPILOT: 'Trustpilot', G2: 'G2', CAPTERRA: 'Capterra', FACEBOOK: 'Facebook' };
export const platformName = (id: string): string => PLATFORM_NAMES[id] ?? id;

/** The query string of GET /reviews for these filters and offset (empty filters left out). */
export function queryOf(filters: Filters, offset: number): string {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value.trim() !== '') q.set(name, value.trim());
  if (offset > 0) q.set('offset', String(offset));
  return q.toString();
}

export function FilterForm(props: { value: Filters; onApply: (filters: Filters) => void; fields: Record<string, string> }) {
  const [draft, setDraft] = useState(props.value);
  const set = (name: keyof Filters) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });
  const stars = (name: 'minRating' | 'maxRating', label: string) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <select id={`filter-${name}`} value={draft[name]} onChange={set(name)} aria-invalid={props.fields[name] ? 'true' : undefined}>
        <option value="">Any</option>
        {[1, 2, 3, 4, 5].map((n) => (
          <option value={String(n)} key={n}>
            {n} {n === 1 ? 'star' : 'stars'}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form
      class="filters card"
      role="search"
      aria-label="Filter reviews"
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(draft);
      }}
    >
      <div class="filter-grid">
        <div class="field">
          <label for="filter-platform">Platform</label>
          <select id="filter-platform" value={draft.platform} onChange={set('platform')}>
            <option value="">All platforms</option>
            {PLATFORMS.map((p) => (
              <option value={p} key={p}>
                {platformName(p)}
              </option>
            ))}
          </select>
        </div>
        {stars('minRating', 'Minimum rating')}
        {stars('maxRating', 'Maximum rating')}
        <div class="field">
          <label for="filter-since">Posted after</label>
          <input id="filter-since" type="date" value={draft.since} onInput={set('since')} aria-invalid={props.fields.since ? 'true' : undefined} />
        </div>
        <div class="field">
          <label for="filter-language">Language</label>
          <input
            id="filter-language"
            type="text"
            inputMode="text"
            autoComplete="off"
            maxLength={2}
            placeholder="e.g. en"
            aria-describedby="filter-language-hint"
            aria-invalid={props.fields.language ? 'true' : undefined}
            value={draft.language}
            onInput={set('language')}
          />
          <p class="hint" id="filter-language-hint">
            Two-letter code
          </p>
        </div>
        <div class="field">
          <label for="filter-notReplied">Reply</label>
          <select
            id="filter-notReplied"
            value={draft.notReplied}
            onChange={set('notReplied')}
            aria-describedby="filter-notReplied-hint"
            aria-invalid={props.fields.notReplied ? 'true' : undefined}
          >
            <option value="">Any</option>
            <option value="true">Not replied</option>
          </select>
          <p class="hint" id="filter-notReplied-hint">
            Google, Trustpilot and your review page
          </p>
        </div>
        <div class="field">
          <label for="filter-limit">Per page</label>
          <select id="filter-limit" value={draft.limit} onChange={set('limit')}>
            {['20', '50', '100'].map((n) => (
              <option value={n} key={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="filter-actions">
        <button type="submit" class="button primary">
          Apply filters
        </button>
        <button
          type="button"
          class="button secondary"
          onClick={() => {
            setDraft(NO_FILTERS);
            props.onApply(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
