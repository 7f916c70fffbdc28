export interface TcpProxy {
  host: string;
  port: number;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  /** Resets every connection now and every new one on arrival (a restart, a crash). */
  cut(): void;
  /** Keeps connections open but passes nothing either way; new ones are accepted and hang (a partition). */
  stall(): void;
  /** Lets traffic flow again; what was held during a stall is delivered. */
  restore(): void;
  close(): Promise<void>;
}

export function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy>;
