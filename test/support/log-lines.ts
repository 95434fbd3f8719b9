/**
 * The functions' JSON log lines written while capturing (the logger writes INFO to stdout and WARN
 * and ERROR to stderr, as console does), parsed; every write goes on to whatever took it before,
 * so this composes with other captures of the same streams (test/support/metrics.ts).
 */
export function captureLogLines() {
  const lines: Record<string, unknown>[] = [];
  const restores = [process.stdout, process.stderr].map((stream) => {
    const before = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: string | Uint8Array, ...rest: unknown[]) {
      const text = String(chunk);
      if (text.startsWith('{"level"')) lines.push(JSON.parse(text) as Record<string, unknown>);
      return (before as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    };
    return () => void (stream.write = before);
  });
  return {
    lines,
    /** The lines at one level, such as `WARN`. */
    at: (level: string) => lines.filter((line) => line.level === level),
    restore: () => restores.forEach((restore) => restore()),
  };
}
