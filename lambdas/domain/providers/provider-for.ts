import { config } from '../../shared/config';
import type { WorkspaceSettings } from '../workspaces/workspace';
import type { Provider } from './provider';
import { sandboxProvider } from './sandbox';
import { whatsAppCloudProvider } from './whatsapp-cloud';
import { graphCredentials, whatsAppCredentials } from './whatsapp-credentials';

/** One instance of each provider per container. */
const providers: Record<WorkspaceSettings['provider'], Provider> = {
  sandbox: sandboxProvider({
    callbackUrl: config.SANDBOX_CALLBACK_URL,
    appSecret: async () => (await whatsAppCredentials()).appSecret,
    reportDelayMs: config.SANDBOX_REPORT_DELAY_MS,
  }),
  whatsapp: whatsAppCloudProvider({ baseUrl: config.GRAPH_API_BASE_URL, credentials: graphCredentials, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
};

/** The provider a workspace's settings choose (docs/api.md#sandbox: sandbox unless set to whatsapp). */
export const providerFor = (settings: Pick<WorkspaceSettings, 'provider'>): Provider => providers[settings.provider];

export const settleProviders = () => Promise.all(Object.values(providers).map((provider) => provider.settle()));
