/**
 * The signed-in frame: brand, organization, the navigation of CONTRACT §6, and
 * Sign out. From 900 px the navigation is a side column; below, a "Menu"
 * button opens it as a list under the top bar (a disclosure: Escape or a
 * chosen page closes it, focus goes back to the button), so any number of
 * pages fits at any width.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
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
  { href: PATHS.sources, label: 'Sources' },
  { href: PATHS.apiKeys, label: 'API Keys', staffOnly: true },
  { href: PATHS.webhooks, label: 'Webhooks', staffOnly: true },
  { href: PATHS.members, label: 'Members' },
  { href: PATHS.audit, label: 'Audit log', staffOnly: true },
];

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
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar" onKeyDown={closeOnEscape}>
        <button ref={button} type="button" class="button secondary small menu-button" aria-expanded={open} aria-controls="dashboard-nav" aria-label={current ? `Menu, current page: ${current.label}` : 'Menu'} onClick={toggle}>
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
      <nav ref={nav} id="dashboard-nav" class={open ? 'sidenav open' : 'sidenav'} aria-label="Dashboard" onKeyDown={closeOnEscape}>
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
