/** An AWS SDK command as the bench records and replays it: its input, and its class to build it anew. */
export interface Command {
  readonly input: object;
}
export interface SdkClient {
  send(command: Command): Promise<unknown>;
}
export interface Call {
  client: SdkClient;
  command: Command;
}

/**
 * The commands the given clients are asked to send while `work` runs, in order, grouped as the
 * work made them: a call started while another is still waiting joins that one's group.
 */
export async function callsOf(clients: SdkClient[], work: () => Promise<unknown>): Promise<Call[][]> {
  const groups: Call[][] = [];
  let waiting = 0;
  const sends = clients.map((client) => client.send.bind(client));
  clients.forEach((client, i) => {
    client.send = async (command: Command) => {
      if (waiting === 0) groups.push([]);
      groups.at(-1)!.push({ client, command });
      waiting++;
      try {
        return await sends[i]!(command);
      } finally {
        waiting--;
      }
    };
  });
  try {
    await work();
  } finally {
    // Own property removed: the client's prototype send is back.
    for (const client of clients) delete (client as Partial<SdkClient>).send;
  }
  return groups;
}

/** The command sent again as a handler written for it would: a new instance from this input. */
export const sendAnew = ({ client, command }: Call, input: object = command.input) => client.send(new (command.constructor as new (input: object) => Command)(input));
