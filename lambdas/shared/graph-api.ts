/**
 * The WhatsApp Graph API version the functions call unless GRAPH_API_BASE_URL (or the stack's
 * `graphApiBaseUrl` context) says otherwise: v26.0, the newest in Meta's changelog (released
 * 29 July 2026). cdk.json names the same URL; a unit test keeps the two equal.
 */
export const DEFAULT_GRAPH_API_BASE_URL = 'https://graph.facebook.com/v26.0';
