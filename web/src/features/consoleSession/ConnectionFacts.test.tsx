// @vitest-environment jsdom
/**
 * The connection as the ensemble's header shows it: the chip beside the session badge (TLS, the
 * identity ZooKeeper sees, amber when TLS is unverified) and the popover's facts (transport, SASL,
 * whoAmI's answer, the warning, the last TLS or SASL problem).
 */
import '../../testSupport/dom';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ConsoleConnectionFacts } from '@keeper/shared';
import { ConnectionChip } from './ConnectionChip';
import { ConnectionFacts } from './ConnectionFacts';

const SECURED: ConsoleConnectionFacts = {
  identity: [
    { scheme: 'ip', id: '127.0.0.1' },
    { scheme: 'sasl', id: 'keeper' },
  ],
  identityNote: null,
  tls: 'TLS, server certificate checked against /etc/keeper/ca.pem, client certificate presented',
  sasl: 'DIGEST-MD5 as keeper',
  warning: null,
  problem: null,
  readOnly: null,
};
const UNVERIFIED: ConsoleConnectionFacts = {
  ...SECURED,
  tls: 'TLS, server certificate NOT checked (rejectUnauthorized: false)',
  warning:
    'TLS without verification (rejectUnauthorized: false): any server, or anyone between Keeper and it, can pose as the ensemble and read what Keeper sends',
};

describe('the connection chip', () => {
  it('shows TLS and sasl:keeper, with the whole connection in its accessible name', () => {
    render(<ConnectionChip facts={SECURED} stale={false} />);
    const chip = screen.getByRole('note', { name: /^Connection: TLS, server certificate checked/ });
    expect(chip).toHaveTextContent('TLS · sasl:keeper');
    expect(chip).toHaveAccessibleName(/ZooKeeper sees Keeper as sasl:keeper, ip:127\.0\.0\.1$/);
    expect(chip).not.toHaveClass('tone-degraded');
  });
  it('is amber and says so when TLS is not verified; grey without the server link', () => {
    const { rerender } = render(<ConnectionChip facts={UNVERIFIED} stale={false} />);
    const chip = screen.getByRole('note');
    expect(chip).toHaveTextContent('TLS unverified · sasl:keeper');
    expect(chip).toHaveClass('tone-degraded');
    expect(chip).toHaveAccessibleName(/Warning: TLS without verification \(rejectUnauthorized: false\)/);
    rerender(<ConnectionChip facts={UNVERIFIED} stale />);
    expect(screen.getByRole('note')).toHaveClass('tone-stale');
  });
  it('is not there for a plain ensemble', () => {
    const { container } = render(<ConnectionChip facts={{ ...SECURED, tls: null, sasl: null }} stale={false} />);
    expect(container).toBeEmptyDOMElement();
  });
});

describe("the session popover's connection facts", () => {
  it('names the transport, SASL and whoAmI answer', () => {
    render(<ConnectionFacts facts={SECURED} />);
    const facts = screen.getByRole('region', { name: 'Connection' });
    expect(within(facts).getByText('Transport').nextElementSibling).toHaveTextContent(SECURED.tls!);
    expect(within(facts).getByText('SASL').nextElementSibling).toHaveTextContent('DIGEST-MD5 as keeper');
    expect(within(facts).getByText('ZooKeeper sees Keeper as').nextElementSibling).toHaveTextContent('sasl:keeper, ip:127.0.0.1');
    expect(within(facts).queryByRole('note')).toBeNull();
  });
  it('says plain TCP, and why the identity is not known', () => {
    render(
      <ConnectionFacts
        facts={{ ...SECURED, tls: null, sasl: null, identity: null, identityNote: 'member 127.0.0.1:2191 has no whoAmI (ZooKeeper before 3.7)' }}
      />,
    );
    expect(screen.getByText('Transport').nextElementSibling).toHaveTextContent('plain TCP, no TLS');
    expect(screen.getByText('SASL').nextElementSibling).toHaveTextContent('none');
    expect(screen.getByText('ZooKeeper sees Keeper as').nextElementSibling).toHaveTextContent('member 127.0.0.1:2191 has no whoAmI (ZooKeeper before 3.7)');
  });
  it('warns of unverified TLS and tells the last SASL problem with its member', () => {
    const at = Date.now() - 5_000;
    render(
      <ConnectionFacts
        facts={{
          ...UNVERIFIED,
          identity: null,
          problem: { kind: 'sasl', message: 'SASL DIGEST-MD5: the member refused user keeper', member: '127.0.0.1:2281', at },
        }}
      />,
    );
    expect(screen.getByRole('note')).toHaveTextContent(/^Warning: TLS without verification \(rejectUnauthorized: false\)/);
    expect(screen.getByText('Last SASL problem').nextElementSibling).toHaveTextContent(
      /^SASL DIGEST-MD5: the member refused user keeper \(127\.0\.0\.1:2281, 5 s ago\)$/,
    );
  });
});
