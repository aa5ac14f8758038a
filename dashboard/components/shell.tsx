/**
 * The signed-in frame: brand, organization, the navigation of CONTRACT §6, and
 * Sign out. From 900 px the navigation is a side column; below, a "Menu"
 * button opens it as a list under the top bar (a disclosure: Escape or a
 * chosen page closes it, focus goes back to the button), so any number of
 * pages fits at any width. A person in two or more organizations gets the
 * organization switcher in place of the organization's name: a labelled
 * select and a Switch button (choosing with the arrow keys switches nothing
 * until the button is pressed); switching starts a session in the chosen
 * organization and reloads the dashboard there, so no page keeps the other
 * organization's data.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo } from '../api.ts';
import { PLAN_LABELS, ROLE_LABELS } from '../format.ts';
import { onLinkClick, PATHS } from '../router.ts';
import { attentionPhrase, refreshAttention, useSourcesAttention } from './source-attention.ts';

interface NavItem {
  href: string;
  label: string;
  staffOnly?: boolean;
}

const NAV: NavItem[] = [
  { href: PATHS.overview, label: 'Overview' },
  { href: PATHS.reviews, label: 'Reviews' },
  { href: PATHS.products, label: 'Products' },
  { href: PATHS.collect, label: 'Collect' },
  { href: PATHS.widgets, label: 'Widgets' },
  { href: PATHS.sources, label: 'Sources' },
  { href: PATHS.apiKeys, label: 'API Keys', staffOnly: true },
  { href: PATHS.webhooks, label: 'Webhooks', staffOnly: true },
  { href: PATHS.members, label: 'Members' },
  { href: PATHS.audit, label: 'Audit log', staffOnly: true },
];

function OrganizationSwitcher(props: { session: SessionInfo }) {
  const { org, organizations } = props.session;
  const [chosen, setChosen] = useState(org!.id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    if (chosen === org!.id) return;
    setBusy(true);
    setError('');
    try {
      await call('POST', '/session/organization', { orgId: chosen });
      location.assign(PATHS.overview);
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'The organization could not be switched. Try again.');
      setBusy(false);
    }
  };
  return (
    <form class="org-switch" onSubmit={submit}>
      <label for="org-switch">Organization</label>
      <select id="org-switch" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)} aria-describedby={error ? 'org-switch-error' : undefined}>
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({ROLE_LABELS[o.role]})
          </option>
        ))}
      </select>
      <button type="submit" class="button secondary small" disabled={busy}>
        Switch
      </button>
      {error && (
        <span id="org-switch-error" class="org-switch-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

export function Shell(props: { session: SessionInfo; path: string; onSignOut: () => void; children: ComponentChildren }) {
  const { user, org } = props.session;
  const staff = user!.role !== 'member';
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);
  // A page chosen (or Back) closes the menu.
  useEffect(() => setOpen(false), [props.path]);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    // Opened: focus its first link, so the keyboard goes on from there (the account controls sit between).
    if (next) requestAnimationFrame(() => nav.current?.querySelector('a')?.focus());
  };
  const closeOnEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return;
    setOpen(false);
    button.current?.focus();
  };
  const current = NAV.find((item) => props.path === item.href || props.path.startsWith(`${item.href}/`));
  // Sources that need a person: a badge beside Sources (and on the Menu button below 900 px) until they are resolved.
  useEffect(() => void refreshAttention(), [props.path]);
  const attention = useSourcesAttention().length;
  // The badge is drawn from data-attention (styles.css, ::after), so the visible text stays the label's start; the name says it in words.
  const badge = attention > 0 ? String(attention) : undefined;
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar" onKeyDown={closeOnEscape}>
        <button ref={button} type="button" class="button secondary small menu-button" aria-expanded={open} aria-controls="dashboard-nav" aria-label={`${current ? `Menu, current page: ${current.label}` : 'Menu'}${attention > 0 ? `; Sources: ${attentionPhrase(attention)}` : ''}`} data-attention={badge} onClick={toggle}>
          <span aria-hidden="true" class="menu-icon" />
          Menu
        </button>
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            ★
          </span>
          <span class="brand-name">Review Proof</span>
        </div>
        <div class="account">
          {props.session.organizations.length >= 2 ? (
            <span class="org">
              <OrganizationSwitcher session={props.session} /> <span class="badge badge-plan">{PLAN_LABELS[org!.plan]}</span>
            </span>
          ) : (
            <span class="org">
              {org!.name} <span class="badge badge-plan">{PLAN_LABELS[org!.plan]}</span>
            </span>
          )}
          <span class="who">
            {user!.email} · {ROLE_LABELS[user!.role]}
          </span>
          <button type="button" class="button secondary small" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav ref={nav} id="dashboard-nav" class={open ? 'sidenav open' : 'sidenav'} aria-label="Dashboard" onKeyDown={closeOnEscape}>
        <ul>
          {NAV.filter((item) => staff || !item.staffOnly).map((item) => (
            <li key={item.href}>
              <a
                href={item.href}
                aria-current={props.path === item.href || props.path.startsWith(`${item.href}/`) ? 'page' : undefined}
                // The badge's count in words (the name replaces the text, so no stray space from the badge).
                aria-label={item.href === PATHS.sources && badge ? `${item.label}, ${attentionPhrase(attention)}` : undefined}
                data-attention={item.href === PATHS.sources ? badge : undefined}
                onClick={(e) => onLinkClick(e as unknown as MouseEvent, item.href)}
              >
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
