import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { pinnedPost } from '../../../lambdas/domain/webhooks/pinned-post';

/**
 * A receiver slower to accept than Node's happy eyeballs gives an address by default (250 ms, then
 * the next address): one about 250 ms of round trip away, or whose first SYN was lost. Here, a
 * listener on 127.0.0.1 that does not accept for 700 ms after it starts: the kernel's queue fills
 * with the first connections, the POST's SYN is dropped, and its retry a second later connects.
 */
const SLOW_LISTENER = `
const server = require('node:http').createServer((request, response) => { request.resume(); request.on('end', () => response.writeHead(204).end()); });
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 700);
});
`;

const held: { listener?: ChildProcess; fillers: Socket[] } = { fillers: [] };
afterEach(() => {
  for (const filler of held.fillers.splice(0)) filler.destroy();
  held.listener?.kill();
});

/** The slow receiver's port, once its queue holds connections that wait for it. */
async function slowReceiver(): Promise<number> {
  const listener = spawn(process.execPath, ['-e', SLOW_LISTENER], { stdio: ['ignore', 'pipe', 'inherit'] });
  held.listener = listener;
  const port = Number(await new Promise<string>((resolve) => createInterface({ input: listener.stdout }).once('line', resolve)));
  for (let i = 0; i < 4; i++) held.fillers.push(connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return port;
}

describe('a POST to a receiver slower to accept than 250 ms', () => {
  it('is delivered within the attempt’s time though its name also has an address that refuses (an IPv6 one the function cannot reach)', async () => {
    const port = await slowReceiver();
    const url = new URL(`http://localhost:${port}/hooks`);

    expect(await pinnedPost({ url, addresses: [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }] }, {}, '{}', 5_000)).toEqual({ statusCode: 204, error: null });
  });
});
