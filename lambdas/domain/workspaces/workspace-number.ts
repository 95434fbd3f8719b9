import type { Store } from '../../shared/store';
import { workspaceBoundTo } from './workspace-binding';

/** The workspace that owns a WhatsApp business phone number (`phone_number_id`), if one does. */
export const workspaceOfNumber = (phoneNumberId: string, store: Store): Promise<string | undefined> => workspaceBoundTo('whatsappPhoneNumberId', phoneNumberId, store);
