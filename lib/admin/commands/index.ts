import type { AdminCommand } from '../command';
import { deliveryEventCommands } from './delivery-events';
import { dispatchCommands } from './dispatches';
import { keyCommands } from './keys';
import { optOutCommands } from './opt-outs';
import { reportCommands } from './reports';
import { templateCommands } from './templates';
import { workspaceCommands } from './workspace';

/** Every admin command, in the order usage lists them. A new command is one `defineCommand` in its area's file. */
export const commands: readonly AdminCommand[] = [...workspaceCommands, ...keyCommands, ...templateCommands, ...optOutCommands, ...dispatchCommands, ...deliveryEventCommands, ...reportCommands];
