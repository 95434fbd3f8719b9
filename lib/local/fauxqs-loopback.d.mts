/** Starts an in-process SQS emulator on a free loopback port; `endpoint` is its URL. */
export function startLoopbackSqs(): Promise<{ endpoint: string; stop(): Promise<void> }>;
