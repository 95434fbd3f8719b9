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

  it('reads the secret once for the webhook and a send alike, checking the token only for the send', async () => {
    const secretName = 'messaging-api/whatsapp-pasted';
    secrets.on(GetSecretValueCommand, { SecretId: secretName }).resolves({
      SecretString: JSON.stringify({ accessToken: 'EAAG\u200btoken', appSecret: 'b', verifyToken: 'c' }),
    });
    const { whatsAppCredentials, graphCredentials, UnusableTokenError } = jest.requireActual<CredentialsModule>('../../../lambdas/domain/providers/whatsapp-credentials');
    await expect(whatsAppCredentials(secretName)).resolves.toMatchObject({ appSecret: 'b', verifyToken: 'c' });
    const refused = graphCredentials(secretName);
    await expect(refused).rejects.toBeInstanceOf(UnusableTokenError);
    await expect(refused).rejects.toThrow(`The access token in secret ${secretName} holds a space, a line break or a character outside ASCII (pasted with it?): paste it again`);
    expect(secrets.commandCalls(GetSecretValueCommand, { SecretId: secretName })).toHaveLength(1);
  });

  it('refuses a secret that is not its JSON, or names the field it lacks, without quoting any of it, as the error reaches the logs', async () => {
    const { credentialsInSecret, accessTokenInSecret } = jest.requireActual<CredentialsModule>('../../../lambdas/domain/providers/whatsapp-credentials');
    const refusal = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    const notJson = 'Secret messaging-api/whatsapp is not JSON { accessToken, appSecret, verifyToken, phoneNumberId? }';
    const cases: [unknown, string, string][] = [
      ['EAAJBsecret-token-not-json', notJson, notJson],
      [JSON.stringify('EAAJBsecret'), notJson, notJson],
      [undefined, notJson, notJson],
      [JSON.stringify({ accessToken: 'EAAJBsecret' }), 'Secret messaging-api/whatsapp has no appSecret and no verifyToken', ''],
      [JSON.stringify({ appSecret: 'EAAJBsecret', verifyToken: '' }), 'Secret messaging-api/whatsapp has no accessToken and no verifyToken', 'Secret messaging-api/whatsapp has no accessToken'],
    ];
    for (const [value, stack, sync] of cases) {
      expect([refusal(() => credentialsInSecret('messaging-api/whatsapp', value)), refusal(() => accessTokenInSecret('messaging-api/whatsapp', value))]).toEqual([stack, sync]);
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
