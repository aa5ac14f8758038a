/** The signed-in frame: brand, organization, the navigation of CONTRACT §6, and Sign out. */
import type { ComponentChildren } from 'preact';
import type { SessionInfo } from '../api.ts';
import { PLAN_LABELS, ROLE_LABELS } from '../format.ts';
import { onLinkClick, PATHS } from '../router.ts';

interface NavItem {
  href: string;
  label: string;
  staffOnly?: boolean;
}

const NAV: NavItem[] = [
  { href: PATHS.overview, label: 'Overview' },
  { href: PATHS.reviews, label: 'Reviews' },
  { href: PATHS.widgets, label: 'Widgets' },
  { href: PATHS.apiKeys, label: 'API Keys', staffOnly: true },
  { href: PATHS.members, label: 'Members' },
  { href: PATHS.audit, label: 'Audit log', staffOnly: true },
];

export function Shell(props: { session: SessionInfo; path: string; onSignOut: () => void; children: ComponentChildren }) {
  const { user, org } = props.session;
  const staff = user!.role !== 'member';
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            ★
          </span>
          <span class="brand-name">Review Proof</span>
        </div>
        <div class="account">
          <span class="org">
            {org!.name} <span class="badge badge-plan">{PLAN_LABELS[org!.plan]}</span>
          </span>
          <span class="who">
            {user!.email} · {ROLE_LABELS[user!.role]}
          </span>
          <button type="button" class="button secondary small" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Dashboard">
        <ul>
          {NAV.filter((item) => staff || !item.staffOnly).map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={props.path === item.href || props.path.startsWith(`${item.href}/`) ? 'page' : undefined} onClick={(e) => onLinkClick(e as unknown as MouseEvent, item.href)}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content">
        {props.children}
      </main>
    </div>
  );
}
