import { apiKeyHint, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';

describe('API key material', () => {
  it('generates distinct, well-formed keys with 32 random characters', () => {
    const a = generateApiKey();
    const b = generateApiKey('test');
    expect(a).toMatch(/^msk_live_[A-Za-z0-9]{32}$/);
    expect(b).toMatch(/^msk_test_[A-Za-z0-9]{32}$/);
    expect(a).not.toBe(generateApiKey());
    expect(isWellFormedApiKey(a)).toBe(true);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashApiKey('msk_local_demo_0001')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('accepts the seed keys and rejects what cannot be a key', () => {
    expect(isWellFormedApiKey('msk_local_demo_0001')).toBe(true);
    for (const bad of ['', 'msk_', 'abc_local_demo_0001', 'msk_with space_0001', `msk_${'a'.repeat(201)}`]) expect(isWellFormedApiKey(bad)).toBe(false);
  });

  it('shows only the last four characters as a hint', () => {
    expect(apiKeyHint('msk_local_demo_0001')).toBe('…0001');
  });
});
