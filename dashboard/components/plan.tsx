/** The organization's plan, read-only (the operator sets it), and what it allows. */
import type { SessionInfo } from '../api.ts';
import { formatNumber, PLAN_LABELS } from '../format.ts';

export function PlanCard(props: { org: NonNullable<SessionInfo['org']> }) {
  const { org } = props;
  return (
    <section class="card plan" aria-labelledby="plan-title">
      <h2 id="plan-title">
        Plan: {PLAN_LABELS[org.plan]}
      </h2>
      <ul class="checklist">
        <li class="yes">Create and revoke API keys</li>
        <li class="yes">Review widgets and JSON-LD for search engines</li>
        {org.apiAccess ? (
          <li class="yes">API access: {formatNumber(org.requestsPerMinute ?? 0)} requests per minute for the whole organization</li>
        ) : (
          <li class="no">API access needs the Growth plan or higher: until then, requests with your keys are refused (403)</li>
        )}
      </ul>
      <p class="hint">Your service operator changes plans.</p>
    </section>
  );
}
