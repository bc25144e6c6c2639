/**
 * Logging of the client. Silent by default; `logLevel` (or the MERMA_LOG environment variable)
 * turns it on, and `logger` replaces the console. Messages name the method, path, status, timing
 * and request id; they never carry the API key or a request body.
 */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

export type Logger = {
  error: (message: string, ...rest: unknown[]) => void;
  warn: (message: string, ...rest: unknown[]) => void;
  info: (message: string, ...rest: unknown[]) => void;
  debug: (message: string, ...rest: unknown[]) => void;
};

export type ClientLogger = Logger;

const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };
const noop = () => {};

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && value in RANK;
}

/** A logger that passes on the messages at `level` and above to `logger`, prefixed `[merma]`. */
export function makeLogger(level: LogLevel, logger: Logger): ClientLogger {
  const at = (name: keyof Logger): Logger[keyof Logger] =>
    RANK[level] >= RANK[name] ? (message, ...rest) => logger[name](`[merma] ${message}`, ...rest) : noop;
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
