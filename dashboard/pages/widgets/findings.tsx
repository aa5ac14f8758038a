/**
 * The SEO lint (schema/lint.ts, the CLI's `widgets lint`) for the unsaved
 * subject, in words a site owner understands: what it means for their star
 * ratings in search results and what to do, each with the search engine's
 * page it comes from. The lint's own wording stays available as the details.
 */
import type { LintFinding } from '../../api.ts';

const PLAIN: Record<string, { title: string; advice: string }> = {
  'self-serving-reviews': {
    title: 'Reviews of your own business will not get stars in search results',
    advice: 'Google ignores reviews a business shows about itself. Choose a product or service you sell as what is reviewed.',
  },
  'third-party-reviews': {
    title: 'These reviews were collected on other websites',
    advice: 'Google wants star ratings from reviews written on your own site. The widget still shows them; set “Stars from” to the reviews you collected, or turn the rich results markup off.',
  },
  'no-direct-reviews': {
    title: 'No stars in search results from these reviews',
    advice: 'They were written on other websites, so the markup leaves them out and has no rating. Collect reviews with your review page to earn stars.',
  },
  'missing-required-property': {
    title: 'Search engines need more about what is reviewed',
    advice: 'Fill in the missing detail under “Search results”.',
  },
  'invalid-url': {
    title: 'An address is not a full web address',
    advice: 'Use a complete address starting with https://.',
  },
  'too-few-reviews': {
    title: 'Too few star ratings for stars in search results',
    advice: 'Import more rated reviews, or include more platforms.',
  },
  'selective-reviews': {
    title: 'Only the best reviews are shown',
    advice: 'Hand-picking good reviews can be judged misleading. Consider showing every rating.',
  },
  'author-name-too-long': {
    title: 'Some reviewer names are too long',
    advice: 'They are shortened in the markup; nothing to do unless the names are not real names.',
  },
  'unrated-reviews-left-out': {
    title: 'Reviews without stars are left out of the markup',
    advice: 'They still show in the widget; search engines only take reviews with a star rating.',
  },
};

export function Findings(props: { findings: LintFinding[] | null }) {
  const { findings } = props;
  return (
    <section class="card findings" aria-labelledby="findings-title">
      <h2 id="findings-title">Search results check</h2>
      <p class="hint">Whether search engines can show review stars for this widget, checked against Google’s review snippet rules for the settings above (saved or not).</p>
      {findings === null && <p class="muted">The check runs once the settings are valid.</p>}
      {findings && findings.length === 0 && <p class="notice notice-success">No problems found: the markup follows the rules this check knows.</p>}
      {findings && findings.length > 0 && (
        <ul class="finding-list">
          {findings.map((f, i) => {
            const plain = PLAIN[f.rule] ?? { title: f.rule, advice: '' };
            return (
              <li key={`${f.rule}-${i}`} class={`finding finding-${f.severity}`}>
                <p>
                  <span class={`badge badge-${f.severity === 'error' ? 'revoked' : 'expired'}`}>{f.severity === 'error' ? 'No stars' : 'Worth a look'}</span> <strong>{plain.title}</strong>
                </p>
                {plain.advice && <p>{plain.advice}</p>}
                <details>
                  <summary>Details</summary>
                  <p class="hint">{f.message}</p>
                </details>
                <p>
                  <a href={f.link} target="_blank" rel="noopener noreferrer">
                    Google’s guidance<span class="sr-only"> on {plain.title.toLowerCase()}</span> (opens in a new tab)
                  </a>
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
