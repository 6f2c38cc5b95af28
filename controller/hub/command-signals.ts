// "Which instance holds this agent's socket?" is answered by never asking: a signal goes to every
// instance and the holder acts. This in-process implementation reaches this instance only; the
// hub's periodic sweep and the command service's short DB poll cover the other instances until a
// PostgreSQL LISTEN/NOTIFY implementation of the same interface replaces them.
import { EventEmitter } from 'node:events';
import type { AgentCommandsTable } from './tables.js';

export interface CommandSignals {
  /** Command `commandId` was stored QUEUED for this allocation: whoever holds its link should send it now. */
  commandQueued(allocationId: string, commandId: string): void;
  onCommandQueued(listener: (allocationId: string, commandId: string) => void): () => void;
  /**
   * This command reached DONE, FAILED or EXPIRED. `row`, when given, is its final row as stored,
   * so a waiter in the same process needs no read; a signal from elsewhere may come without it.
   */
  commandFinished(commandId: string, row?: AgentCommandsTable): void;
  onCommandFinished(commandId: string, listener: (row?: AgentCommandsTable) => void): () => void;
}

export class LocalCommandSignals implements CommandSignals {
  readonly #events = new EventEmitter().setMaxListeners(0);
  // Waiters by command id. A map rather than one emitter event per id: a burst keeps a thousand
  // waiters, each added and removed once, and an emitter's event table is an object that turns to
  // a slow dictionary with that many names.
  readonly #finished = new Map<string, ((row?: AgentCommandsTable) => void)[]>();

  commandQueued(allocationId: string, commandId: string): void {
    this.#events.emit('queued', allocationId, commandId);
  }

  onCommandQueued(listener: (allocationId: string, commandId: string) => void): () => void {
    this.#events.on('queued', listener);
    return () => this.#events.off('queued', listener);
  }

  commandFinished(commandId: string, row?: AgentCommandsTable): void {
    const listeners = this.#finished.get(commandId);
    if (listeners === undefined) return;
    // A copy: a listener usually removes itself while being called.
    for (const listener of [...listeners]) listener(row);
  }

  onCommandFinished(commandId: string, listener: (row?: AgentCommandsTable) => void): () => void {
    const listeners = this.#finished.get(commandId);
    if (listeners === undefined) this.#finished.set(commandId, [listener]);
    else listeners.push(listener);
    return () => {
      const current = this.#finished.get(commandId);
      if (current === undefined) return;
      const at = current.indexOf(listener);
      if (at < 0) return;
      if (current.length === 1) this.#finished.delete(commandId);
      else current.splice(at, 1);
    };
  }
}
