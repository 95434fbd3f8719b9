import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SEED_PATH } from '../../../lib/local/paths';
import { readSeed } from '../../../lib/local/seed-file';

/**
 * README ("The local runtime"): a seed file that does not fit the format is refused in one line,
 * before anything starts. Each seed below passed the check: two crashed with a stack trace once
 * DynamoDB Local was up (a key given to two workspaces; two versions sharing an id, refused by the
 * seed's transaction), one merged two workspaces silently, one dropped a misspelt field and
 * started a workspace without keys, one stored a key every request then answered 401 "malformed".
 */
type Version = Record<string, unknown>;
type Workspace = Record<string, unknown> & { apiKeys: unknown[]; templates: (Record<string, unknown> & { versions: [Version, ...Version[]] })[] };
const demo = JSON.parse(readFileSync(DEMO_SEED_PATH, 'utf8')) as { workspaces: [Workspace] };
const ws = demo.workspaces[0];
const template = ws.templates[0]!;
let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'seed-file-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (seed: unknown) => {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(seed));
  return path;
};
const { apiKeys, ...withoutKeys } = ws;

it('reads the demo seed', () => {
  expect(readSeed(DEMO_SEED_PATH).workspaces.map((workspace) => workspace.id)).toEqual([ws.id]);
});

it.each([
  ['the same API key given to two workspaces', { workspaces: [ws, { ...ws, id: 'ws-other', name: 'Other', templates: [] }] }, /workspaces\.1\.apiKeys\.0\.key: this key is given twice/],
  ['the same workspace id twice', { workspaces: [ws, { ...ws, apiKeys: [{ key: 'msk_local_other_0001', name: 'other', scopes: ['messages:read'] }], templates: [] }] }, /workspaces\.1\.id: "ws-demo" is given twice/],
  [
    'two versions of a template sharing an id',
    { workspaces: [{ ...ws, templates: [{ ...template, versions: [template.versions[0], { ...template.versions[0], version: 2 }] }] }] },
    /workspaces\.0\.templates\.0\.versions\.1\.id: .* is given twice/,
  ],
  ['two templates sharing an id', { workspaces: [{ ...ws, templates: [template, { ...template, versions: [{ ...template.versions[0], id: '7b0c5c3e-0000-4000-8000-0000000000b1' }] }] }] }, /workspaces\.0\.templates\.1\.id: .* is given twice/],
  ['a misspelt field (`apiKey` for `apiKeys`)', { workspaces: [{ ...withoutKeys, apiKey: apiKeys }] }, /workspaces\.0: Unrecognized key: "apiKey"/],
  ['a key no request could use (not msk_ and 8 or more letters, digits or _)', { workspaces: [{ ...ws, apiKeys: [{ key: 'local-dev-key-0001', name: 'dev', scopes: ['messages:read'] }] }] }, /workspaces\.0\.apiKeys\.0\.key: /],
])('refuses %s in one line', (_case, seed, message) => {
  const path = write(seed);
  expect(() => readSeed(path)).toThrow(/^The seed file .* is invalid: /);
  expect(() => readSeed(path)).toThrow(message);
});

/**
 * README ("The local runtime"): "The format is checked whole: a workspace or key takes no field it
 * does not know (a misspelt `apiKey` is refused, not dropped)". A workspace's `settings` and its
 * templates are part of the workspace: a misspelt setting dropped starts the workspace on the
 * defaults (600 sends a minute, no dedupe), a misspelt `category` a MARKETING template that
 * ignores every opt-out, a misspelt `variableDefinitions` a template that requires no variable.
 */
it.each([
  ['a misspelt setting (`sendPerMinute` for `sendsPerMinute`)', { workspaces: [{ ...ws, settings: { sendPerMinute: 10, dedupe: 'wib-day' } }] }, /sendPerMinute/],
  ['a misspelt template field (`catgory` for `category`)', { workspaces: [{ ...ws, templates: [{ ...template, catgory: 'MARKETING' }] }] }, /catgory/],
  [
    'a misspelt version field (`variableDefinition` for `variableDefinitions`)',
    { workspaces: [{ ...ws, templates: [{ ...template, versions: [{ ...template.versions[0], variableDefinitions: undefined, variableDefinition: template.versions[0].variableDefinitions }] }] }] },
    /variableDefinition/,
  ],
])('refuses %s in one line, rather than dropping it', (_case, seed, message) => {
  const path = write(seed);
  expect(() => readSeed(path)).toThrow(/^The seed file .* is invalid: /);
  expect(() => readSeed(path)).toThrow(message);
});

/**
 * A WhatsApp phone number id or business account id names one workspace (README, Admin CLI:
 * "refused if another workspace holds either"). Given to two workspaces of the seed, it passed the
 * check and the seed's second workspace write was refused once DynamoDB Local was up (`… belongs
 * to another workspace`), after the first workspace was written: as with a key given twice, the
 * file should be refused in one line before anything starts.
 */
it.each([
  ['whatsappPhoneNumberId', '106540352242922'],
  ['whatsappBusinessAccountId', '102290129340398'],
])('refuses a %s given to two workspaces in one line', (setting, value) => {
  const other = { id: 'ws-other', name: 'Other', rupiahPerCredit: 150, settings: { provider: 'whatsapp', [setting]: value } };
  const path = write({ workspaces: [{ ...ws, settings: { ...(ws.settings as object), provider: 'whatsapp', [setting]: value } }, other] });
  expect(() => readSeed(path)).toThrow(/^The seed file .* is invalid: /);
  expect(() => readSeed(path)).toThrow(new RegExp(`workspaces\\.1\\.settings\\.${setting}: `));
});

/**
 * decisions.md 42: a seed key takes an optional `expiresAt`. `key create --expires-at` takes an ISO
 * date-time with any offset, and the seed's own template times do (README: "A version's times may be
 * written with any offset (…T09:00:00+07:00)"); a key's expiry written in WIB refused the whole file.
 */
it('reads a key’s expiresAt written with an offset, as the admin CLI’s --expires-at and the seed’s template times take it', () => {
  const path = write({ workspaces: [{ ...ws, apiKeys: [{ ...(apiKeys[0] as object), expiresAt: '2099-01-01T09:00:00+07:00' }] }] });
  expect(readSeed(path).workspaces[0]!.apiKeys[0]!.expiresAt).toBeDefined();
});
