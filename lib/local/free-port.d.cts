/** A port the OS reports free on 127.0.0.1 right now. */
export function freePort(): Promise<number>;
