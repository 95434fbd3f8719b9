/**
 * A function's environment, as lambdas/shared/config.ts reads it: each variable through its schema,
 * the first time a module reads it (decision 131).
 */
import type * as configModule from '../../../lambdas/shared/config';

type ConfigModule = typeof configModule;

const original = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in original)) delete process.env[name];
  Object.assign(process.env, original);
});

/** The module loaded anew in an environment with these variables set (undefined: unset). */
function loadConfig(env: Record<string, string | undefined>): ConfigModule {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  let loaded: ConfigModule | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<ConfigModule>('../../../lambdas/shared/config');
  });
  return loaded!;
}

describe('the configuration', () => {
  it('reads a variable through its schema: numbers coerced, defaults for what is unset, host pairs as a map', () => {
    const { config } = loadConfig({ API_KEY_CACHE_TTL_SECONDS: '15', PROVIDER_TIMEOUT_MS: undefined, WEBHOOK_HOSTS: 'Hooks.Example.com=127.0.0.1' });
    expect(config.API_KEY_CACHE_TTL_SECONDS).toBe(15);
    expect(config.PROVIDER_TIMEOUT_MS).toBe(8_000);
    expect(config.WEBHOOK_HOSTS).toEqual({ 'hooks.example.com': '127.0.0.1' });
  });

  it('fails the first read of a malformed variable, naming it, and neither the import nor the reads of the others', () => {
    const { config } = loadConfig({ PROVIDER_TIMEOUT_MS: 'soon', TABLE_NAME: 'messages' });
    expect(config.TABLE_NAME).toBe('messages');
    expect(() => config.PROVIDER_TIMEOUT_MS).toThrow(/^Invalid environment: PROVIDER_TIMEOUT_MS: /);
    // Out of range is refused as well as not a number.
    expect(() => loadConfig({ PROVIDER_TIMEOUT_MS: '50' }).config.PROVIDER_TIMEOUT_MS).toThrow(/^Invalid environment: PROVIDER_TIMEOUT_MS: /);
  });

  it('keeps what it read: a later change of the environment is not seen, and nothing can set a value', () => {
    const { config } = loadConfig({ TABLE_NAME: 'first' });
    expect(config.TABLE_NAME).toBe('first');
    process.env.TABLE_NAME = 'second';
    expect(config.TABLE_NAME).toBe('first');
    expect(() => {
      (config as { TABLE_NAME?: string }).TABLE_NAME = 'third';
    }).toThrow(TypeError);
    expect(Object.keys(config)).toContain('TABLE_NAME');
  });

  it('refuses a resource its function was not given, naming it', () => {
    const { required } = loadConfig({ QUEUE_URL: undefined, TABLE_NAME: 'messages' });
    expect(required('TABLE_NAME')).toBe('messages');
    expect(() => required('QUEUE_URL')).toThrow('QUEUE_URL is not set: this function was deployed without access to that resource');
  });
});
