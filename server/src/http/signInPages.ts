/**
 * The small server-rendered pages of the URL sign-ins: an error ("Unknown share link") and the
 * confirmation asked before a signed-in browser is switched to another identity. No script (the
 * CSP allows none inline); the colours follow the system theme and the card fits a phone.
 */

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--accent:#2f6fde;--accent-fg:#fff;--warn:#8a5a00;--warn-bg:#fff4dc;--err:#9b1c1c;--err-bg:#fde8e8}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--fg:#e6e9ef;--muted:#9aa3b2;--line:#2a303b;--accent:#5b8ff0;--accent-fg:#0b0e13;--warn:#f0c46a;--warn-bg:#2b2410;--err:#f6a5a5;--err-bg:#3a1717}}
*{box-sizing:border-box}
body{margin:0;min-height:100dvh;display:grid;place-items:center;padding:24px 16px;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{width:min(440px,100%);padding:22px 24px 20px;border:1px solid var(--line);border-radius:12px;background:var(--card);display:flex;flex-direction:column;gap:12px}
.brand{font-weight:650;font-size:15px}
h1{margin:0;font-size:18px;font-weight:600}
p{margin:0}
.muted{color:var(--muted)}
.who{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:0;padding:10px 12px;border:1px solid var(--line);border-radius:8px}
.who dt{color:var(--muted)}
.who dd{margin:0;min-width:0;overflow-wrap:anywhere;font-weight:600}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
.note{padding:8px 10px;border-radius:8px;background:var(--warn-bg);color:var(--warn)}
.actions{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
.error{padding:8px 10px;border-radius:8px;background:var(--err-bg);color:var(--err)}
ul.groups{margin:0;padding-left:18px;display:flex;flex-direction:column;gap:3px}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;color:var(--muted)}
a.button{display:inline-block;font-weight:600;padding:7px 14px;border-radius:7px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);text-decoration:none}
button{font:inherit;font-weight:600;padding:7px 14px;border-radius:7px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer}
button:focus-visible,a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
a{color:var(--accent)}
`;

function shell(title: string, body: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Keeper: ${escape(title)}</title><style>${STYLE}</style><body><main><div class="brand">Keeper</div>${body}</main></body></html>`;
}

export function messagePage(title: string, text: string): string {
  return shell(title, `<h1>${escape(title)}</h1><p>${escape(text)}</p><p><a href="/">Open Keeper</a></p>`);
}

export interface SwitchPrompt {
  /** Who this browser is signed in as now. */
  current: { name: string; role: string };
  /** What the link would sign in as, in words ("a read-only share link to /ensembles/x/znodes/a"). */
  next: { label: string; role: string; detail?: string };
  /** Where the confirmation is POSTed (this same URL). */
  action: string;
}

/**
 * "You are signed in as X. Continue as …?": another site's page may have navigated here, so the
 * switch needs a click on this page (a same-origin POST), never just the visit.
 */
export function switchIdentityPage(prompt: SwitchPrompt): string {
  const { current, next } = prompt;
  return shell(
    'Switch identity?',
    `<h1>Switch identity?</h1>
<p>You are signed in as <strong>${escape(current.name)}</strong> (${escape(current.role)}). This link would sign this browser in as someone else instead.</p>
<dl class="who"><dt>Now</dt><dd>${escape(current.name)} · ${escape(current.role)}</dd><dt>Link</dt><dd>${escape(next.label)} · ${escape(next.role)}</dd>${next.detail ? `<dt>Opens</dt><dd class="mono">${escape(next.detail)}</dd>` : ''}</dl>
<p class="note">If you did not open this link yourself, another site may have sent you here: stay signed in.</p>
<form method="post" action="${escape(prompt.action)}" class="actions"><button type="submit">Continue as ${escape(next.label)}</button><a href="/">Stay signed in as ${escape(current.name)}</a></form>`,
  );
}

/** A single sign-on that did not go through: what happened, in words, and a way to start again. */
export function signInFailedPage(f: { provider: string; sentence: string; code: string; retryHref: string }): string {
  return shell(
    'Sign-in did not go through',
    `<h1>Sign-in with ${escape(f.provider)} did not go through</h1>
<p class="error" role="alert">${escape(f.sentence)}</p>
<p class="code">${escape(f.code)}</p>
<div class="actions"><a class="button" href="${escape(f.retryHref)}">Sign in again</a><a href="/login">Other ways to sign in</a></div>`,
  );
}

/** Signed in at the provider, but no grant lets this person in: who they are, and which groups would. */
export function noAccessPage(f: { provider: string; name: string; groups: string[]; wouldGrant: string[] }): string {
  const groups = f.groups.length > 0 ? f.groups.map((g) => `<span class="mono">${escape(g)}</span>`).join(', ') : 'none';
  const would =
    f.wouldGrant.length > 0
      ? `<p>Any of these groups gives access; ask whoever runs ${escape(f.provider)} or this Keeper to add you to one:</p><ul class="groups">${f.wouldGrant
          .map((g) => `<li class="mono">${escape(g)}</li>`)
          .join('')}</ul>`
      : '<p>No group is granted anything on this Keeper yet: its administrator must add grants ("auth.grants").</p>';
  return shell(
    'No access',
    `<h1>No access to this Keeper</h1>
<p>${escape(f.provider)} signed you in, but none of your groups is granted anything here.</p>
<dl class="who"><dt>Signed in as</dt><dd>${escape(f.name)}</dd><dt>Your groups</dt><dd>${groups}</dd></dl>
${would}
<div class="actions"><a href="/login">Sign in as someone else</a></div>`,
  );
}
