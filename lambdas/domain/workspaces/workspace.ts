import * as z from 'zod';

export const workspaceSettingsSchema = z.object({
  /** Accepted sends per minute before 429. */
  sendsPerMinute: z.number().int().min(1).max(1_000_000).default(600),
  /** `wib-day`: one send of a template to a number per WIB day (409 duplicate_send). */
  dedupe: z.enum(['none', 'wib-day']).default('none'),
  /** Which provider delivers this workspace's messages. */
  provider: z.enum(['sandbox', 'whatsapp']).default('sandbox'),
  /** The workspace's own WhatsApp business number (Cloud API phone number id), if it has one. */
  whatsappPhoneNumberId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
  /** The WhatsApp Business Account that holds the workspace's number and templates, if it has one. */
  whatsappBusinessAccountId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
});

/** Settings that name an identifier outside us; each is bound to at most one workspace. */
export const bindingSettings = ['whatsappPhoneNumberId', 'whatsappBusinessAccountId'] as const;
export type BindingSetting = (typeof bindingSettings)[number];

export const workspaceInputSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{1,63}$/, 'letters, digits, "-" and "_", 2 to 64 characters'),
  name: z.string().trim().min(1).max(200),
  rupiahPerCredit: z.number().min(0),
  settings: workspaceSettingsSchema.default({ sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox' }),
});

export type WorkspaceInput = z.input<typeof workspaceInputSchema>;
export type WorkspaceSettings = z.infer<typeof workspaceSettingsSchema>;

export interface Workspace extends z.infer<typeof workspaceInputSchema> {
  createdAt: string;
  updatedAt: string;
}
