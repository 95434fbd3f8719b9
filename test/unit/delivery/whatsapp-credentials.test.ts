import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import type * as credentials from '../../../lambdas/domain/providers/whatsapp-credentials';

type CredentialsModule = typeof credentials;

const secrets = mockClient(SecretsManagerClient);

describe('WhatsApp credentials from Secrets Manager', () => {
  it('reads the secret named in WHATSAPP_SECRET_NAME once per container', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'messaging-api/whatsapp' }).resolves({
      SecretString: JSON.stringify({ accessToken: 'a', appSecret: 'b', verifyToken: 'c', phoneNumberId: '1' }),
    });
    process.env.WHATSAPP_SECRET_NAME = 'messaging-api/whatsapp';
    // Configuration is read at import, as at a cold start: load the module after setting it.
    const { whatsAppCredentials } = jest.requireActual<CredentialsModule>('../../../lambdas/domain/providers/whatsapp-credentials');
    await expect(whatsAppCredentials()).resolves.toEqual({ accessToken: 'a', appSecret: 'b', verifyToken: 'c', phoneNumberId: '1' });
    await whatsAppCredentials();
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('refuses a secret that is not its JSON without quoting any of it, as the error reaches the logs', async () => {
    const { credentialsInSecret } = jest.requireActual<CredentialsModule>('../../../lambdas/domain/providers/whatsapp-credentials');
    for (const value of ['EAAJBsecret-token-not-json', JSON.stringify({ accessToken: 'EAAJBsecret' }), undefined]) {
      let message = '';
      try {
        credentialsInSecret('messaging-api/whatsapp', value);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe('Secret messaging-api/whatsapp is not JSON { accessToken, appSecret, verifyToken, phoneNumberId? }');
    }
  });
});

describe('WhatsApp credentials from the environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('names the variables that are not set, not the credentials’ fields', async () => {
    delete process.env.WHATSAPP_SECRET_NAME;
    delete process.env.WHATSAPP_APP_SECRET;
    delete process.env.WHATSAPP_VERIFY_TOKEN;
    let whatsAppCredentials!: CredentialsModule['whatsAppCredentials'];
    jest.isolateModules(() => ({ whatsAppCredentials } = jest.requireActual<CredentialsModule>('../../../lambdas/domain/providers/whatsapp-credentials')));
    await expect(whatsAppCredentials()).rejects.toThrow(
      'WHATSAPP_APP_SECRET and WHATSAPP_VERIFY_TOKEN are not set: without WHATSAPP_SECRET_NAME, the WhatsApp credentials come from the environment',
    );
  });
});
