// @vitest-environment jsdom
/**
 * The data editor as an admin uses it: values encoded the way the server encodes them
 * (encodeZnodeData), saves answered through fetch the way the HTTP API answers them (200, or 409
 * BAD_VERSION with the current value), and assertions on what the dialog then says and sends.
 */
import '../../../testSupport/dom';
import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeZnodeData, MAX_ZNODE_DATA_BYTES, type EncodedData, type ZnodeStat, type ZnodeState } from '@keeper/shared';
import { Editor } from './EditDataDialog';

const PATH = '/config/feature-flags';
const T0 = Date.UTC(2026, 10, 22, 13, 2, 31);

function stat(version: number, dataLength: number): ZnodeStat {
  return {
    czxid: '0x200000010',
    mzxid: `0x2000000${20 + version}`,
    pzxid: '0x200000010',
    ctime: T0 - 3_600_000,
    mtime: T0 - 60_000 + version * 1_000,
    version,
    cversion: 0,
    aversion: 0,
    ephemeralOwner: '0x0',
    dataLength,
    numChildren: 0,
  };
}

function encoded(value: string | Uint8Array): EncodedData {
  return encodeZnodeData(typeof value === 'string' ? new TextEncoder().encode(value) : value, MAX_ZNODE_DATA_BYTES + 1);
}

interface Sent {
  method: string;
  url: string;
  body: { data: string; encoding: string; version: number };
}

let sent: Sent[] = [];
let answer: () => Response;

beforeEach(() => {
  sent = [];
  answer = () => Response.json({ path: PATH, stat: stat(4, 0) });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({ method: init.method ?? 'GET', url, body: JSON.parse(String(init.body)) as Sent['body'] });
      return answer();
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

function open(value: string | Uint8Array, { version = 3, liveNode, seenAs }: { version?: number; liveNode?: ZnodeState; seenAs?: string } = {}) {
  const data = encoded(value);
  const onClose = vi.fn();
  const node: ZnodeState = liveNode ?? { exists: true, stat: stat(version, data.size), data };
  render(<Editor ensemble="default" path={PATH} initial={{ version, data }} liveNode={node} seenAs={seenAs ?? null} onClose={onClose} />);
  return { onClose };
}

const editor = () => screen.getByRole('textbox', { name: 'Znode data editor' });
const saveButton = () => screen.getByRole('button', { name: /^Save/ });
const formatButton = (name: 'Text' | 'JSON' | 'Base64') => within(screen.getByRole('group', { name: 'Edit as' })).getByRole('button', { name });

describe('encoding', () => {
  it('opens JSON as JSON, text as text and binary as base64', () => {
    open('{"darkMode":true}');
    expect(formatButton('JSON')).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText('valid JSON')).toBeInTheDocument();
    document.body.innerHTML = '';

    open('worker-7 at 10.0.4.41');
    expect(formatButton('Text')).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByText('saved as UTF-8 text')).toBeInTheDocument();
    document.body.innerHTML = '';

    open(new Uint8Array([0xca, 0xfe, 0x00, 0xff]));
    expect(formatButton('Base64')).toHaveAttribute('aria-pressed', 'true');
    expect(editor()).toHaveValue('yv4A/w==');
  });

  it('shows the same bytes as base64 and back, with nothing to save', async () => {
    const user = userEvent.setup();
    open('worker-7');
    await user.click(formatButton('Base64'));
    expect(editor()).toHaveValue('d29ya2VyLTc=');
    expect(saveButton()).toBeDisabled();
    await user.click(formatButton('Text'));
    expect(editor()).toHaveValue('worker-7');
  });

  it('refuses to show binary as text, and says why', async () => {
    const user = userEvent.setup();
    open(new Uint8Array([0xca, 0xfe, 0x00, 0xff]));
    await user.click(formatButton('Text'));
    expect(formatButton('Base64')).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('These bytes are not UTF-8 text: keep editing them as base64');
  });

  it('saves base64 as the bytes it stands for', async () => {
    const user = userEvent.setup();
    open(new Uint8Array([0xca, 0xfe, 0x00, 0xff]));
    await user.clear(editor());
    await user.type(editor(), 'yv4A/g==');
    await user.click(saveButton());
    expect(sent).toEqual([{ method: 'PUT', url: `/api/ensembles/default/znodes${PATH}`, body: { data: 'yv4A/g==', encoding: 'base64', version: 3 } }]);
  });
});

describe('saving', () => {
  it('is disabled until the value changes, then sends it with the version it was opened at', async () => {
    const user = userEvent.setup();
    const { onClose } = open('{"darkMode":true}');
    expect(saveButton()).toBeDisabled();
    expect(saveButton()).toHaveAttribute('title', 'Nothing changed');
    await user.clear(editor());
    await user.type(editor(), '{{"darkMode":false}');
    expect(saveButton()).toBeEnabled();
    await user.click(saveButton());
    expect(sent).toEqual([{ method: 'PUT', url: `/api/ensembles/default/znodes${PATH}`, body: { data: '{"darkMode":false}', encoding: 'utf8', version: 3 } }]);
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('typing the value back to what it was disables it again', async () => {
    const user = userEvent.setup();
    open('abc');
    await user.type(editor(), 'd');
    expect(saveButton()).toBeEnabled();
    await user.type(editor(), '{Backspace}');
    expect(saveButton()).toBeDisabled();
  });

  it('refuses invalid JSON and points at the line', async () => {
    const user = userEvent.setup();
    open('{"darkMode":true}');
    await user.clear(editor());
    await user.type(editor(), '{{"darkMode":');
    expect(screen.getByRole('button', { name: /^invalid JSON\s*line 1, column 13: Unexpected end of input/ })).toHaveAttribute('title', 'Go to the problem');
    expect(saveButton()).toBeDisabled();
  });

  it('refuses a value larger than a znode holds, with a sentence saying so', () => {
    open('small');
    fireEvent.change(editor(), { target: { value: 'x'.repeat(MAX_ZNODE_DATA_BYTES + 1) } });
    expect(screen.getByText(/is more than a znode holds/)).toHaveTextContent("1.0 MiB is more than a znode holds (1 MiB, ZooKeeper's jute.maxbuffer)");
    expect(saveButton()).toBeDisabled();
  });

  it('says in words why ZooKeeper refused', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ error: { code: 'NO_AUTH', message: 'not authorized' } }, { status: 403 });
    open('abc');
    await user.type(editor(), 'd');
    await user.click(saveButton());
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Not saved')).toBeInTheDocument();
    expect(alert).toHaveTextContent("ZooKeeper refused: the node's ACL does not let the console write it (not authorized).");
  });

  it('says who ZooKeeper sees Keeper as when its ACL refuses the save', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ error: { code: 'NO_AUTH', message: `NO_AUTH (-102) at ${PATH}` } }, { status: 403 });
    open('abc', { seenAs: 'ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1' });
    await user.type(editor(), 'd');
    await user.click(saveButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'ZooKeeper refused (NO_AUTH): ZooKeeper sees Keeper as sasl:keeper, ip:127.0.0.1, and the node’s ACL does not let it write it.',
    );
  });

  it('says so when the reply was lost but the write applied', async () => {
    const user = userEvent.setup();
    answer = () => Response.json({ path: PATH, stat: stat(4, 4), note: 'The reply was lost; read back: the value is yours.' });
    const { onClose } = open('abc');
    await user.type(editor(), 'd');
    await user.click(saveButton());
    expect(await screen.findByRole('status')).toHaveTextContent('Saved, after a lost reply');
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('version conflicts', () => {
  it('a save refused as stale shows the current value beside mine, and writes nothing until I choose', async () => {
    const user = userEvent.setup();
    const theirs = encoded('{"darkMode":true,"beta":true}');
    answer = () =>
      Response.json(
        { error: { code: 'BAD_VERSION', message: 'version 3 is not the current version (4)' }, current: { stat: stat(4, theirs.size), data: theirs } },
        { status: 409 },
      );
    open('{"darkMode":true}');
    await user.clear(editor());
    await user.type(editor(), '{{"darkMode":false}');
    await user.click(saveButton());

    const conflict = await screen.findByRole('alert');
    expect(conflict).toHaveTextContent(`Not saved: ${PATH} changed since you opened it`);
    expect(conflict).toHaveTextContent('You started from version 3; it is now version 4');
    expect(within(conflict).getByRole('region', { name: 'Current value · version 4' })).toHaveTextContent('"beta": true');
    expect(within(conflict).getByRole('region', { name: 'Your value' })).toHaveTextContent('"darkMode": false');
    expect(sent).toHaveLength(1);

    answer = () => Response.json({ path: PATH, stat: stat(5, 18) });
    await user.click(within(conflict).getByRole('button', { name: 'Overwrite with mine at version 4' }));
    expect(sent.at(-1)?.body).toEqual({ data: '{"darkMode":false}', encoding: 'utf8', version: 4 });
  });

  it('"Edit theirs" continues from the current value, at its version', async () => {
    const user = userEvent.setup();
    const theirs = encoded('v2');
    answer = () => Response.json({ error: { code: 'BAD_VERSION', message: 'stale' }, current: { stat: stat(4, theirs.size), data: theirs } }, { status: 409 });
    open('v1');
    await user.type(editor(), '-mine');
    await user.click(saveButton());
    await user.click(await screen.findByRole('button', { name: 'Edit theirs' }));
    expect(editor()).toHaveValue('v2');
    expect(screen.getByText(/opened at version/)).toHaveTextContent('opened at version 4');
  });

  it('warns before saving when the live view already shows a newer version', async () => {
    const user = userEvent.setup();
    const theirs = encoded('v2');
    open('v1', { version: 3, liveNode: { exists: true, stat: stat(4, theirs.size), data: theirs } });
    const warning = screen.getByRole('status');
    expect(warning).toHaveTextContent('Changed meanwhile: another client wrote version 4 after you opened version 3.');
    await user.click(within(warning).getByRole('button', { name: 'Compare with version 4' }));
    expect(screen.getByRole('alert')).toHaveTextContent(`${PATH} changed since you opened it`);
    expect(screen.getByRole('alert')).toHaveTextContent('Nothing has been written yet.');
    expect(sent).toHaveLength(0);
  });

  it('warns when the node was deleted after the editor opened', () => {
    open('v1', { liveNode: { exists: false } });
    expect(screen.getByRole('status')).toHaveTextContent('Deleted meanwhile. Another client deleted this node after you opened it: saving will fail.');
  });
});
