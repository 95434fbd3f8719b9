import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** Where clients connect instead of the target. */
  endpoint: string;
  /** Cuts every open connection and refuses new ones, as a dependency that went away. */
  goDown(): Promise<void>;
  /** Accepts connections again, on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a local dependency (the SQS emulator), so a test can make the
 * dependency unreachable and bring it back without losing its state.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;

  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(targetPort), hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as { port: number }).port;
  };
  const stopListening = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    goDown: stopListening,
    comeBack: listen,
    close: async () => {
      if (server.listening) await stopListening();
    },
  };
}
