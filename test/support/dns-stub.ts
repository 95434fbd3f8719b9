import { createSocket, type RemoteInfo } from 'node:dgram';

/**
 * A DNS server on a local UDP port (RFC 1035 messages), so a resolver that asks DNS servers itself
 * can be tested without the network. `answers` names the A and AAAA records per name; a name in
 * `silent` is never answered (a name server that does not reply), nor an AAAA query for a name in
 * `silentAAAA` (one that drops them); any other name is NXDOMAIN.
 */
export async function startDnsStub(
  answers: Record<string, { A?: string[]; AAAA?: string[] }>,
  silent: readonly string[] = [],
  silentAAAA: readonly string[] = [],
): Promise<{ server: string; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  socket.on('message', (query: Buffer, from: RemoteInfo) => {
    const { name, type, end } = question(query);
    if (silent.includes(name) || (type === 28 && silentAAAA.includes(name))) return;
    const records = type === 1 ? (answers[name]?.A ?? []) : type === 28 ? (answers[name]?.AAAA ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(answers[name] ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN for an unknown name
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const rdata = records.map((address) => (type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address)));
    const resourceRecords = rdata.map((data) => {
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, end), ...resourceRecords]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { server: `127.0.0.1:${socket.address().port}`, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

/** The first question's name, type and where it ends. */
function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! > 0) {
    labels.push(query.toString('ascii', at + 1, at + 1 + query[at]!));
    at += query[at]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [before, after] = [groups(head), groups(tail)];
  const all = address.includes('::') ? [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after] : before;
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}
