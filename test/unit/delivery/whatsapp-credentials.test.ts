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
});
