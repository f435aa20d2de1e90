/**
 * Progress for long work (a witness that runs for minutes, a verify of a large ledger): on a
 * terminal, one status line on stderr saying what is running now and how long the command has
 * been at it, redrawn every second and erased when the work ends; nothing at all when stderr is
 * not a terminal or the caller asked for `--json`, so that pipes, logs and programs see only
 * the result. The clock is the command's, not the step's: the library's own messages (a
 * witness's "still running (40.0 s)" heartbeat, its "exit 1 after 3.2 s") say how long a step
 * took where that matters.
 *
 * Messages name witness commands and paths that an agent wrote, so every one is escaped.
 */
import { printableLine } from '../paths/index.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  stream: ProgressStream;
  /** False for `--json` and for anything that is not a terminal: then nothing is written. */
  enabled: boolean;
  /**
   * One line per message instead of a redrawn status line (`verify --progress`: a CI log or a
   * pipe, where `\r` redraws would pile up); each line says how long the command has run.
   */
  lines?: boolean;
  /** Milliseconds; injectable so that tests need no real time. */
  now?: () => number;
  /** How the line is redrawn every second; injectable for the same reason. */
  every?: (ms: number, redraw: () => void) => { stop(): void };
}

/** Erase the current line and return to its start (stderr is a terminal when this is used). */
const CLEAR_LINE = '\r\u001b[2K';

function realTimer(ms: number, redraw: () => void): { stop(): void } {
  const handle = setInterval(redraw, ms);
  handle.unref(); // a status line never keeps the process alive
  return { stop: () => clearInterval(handle) };
}

/** `4 s`, `1 min 05 s`: coarse on purpose, the line is redrawn once a second. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

export class Progress {
  private readonly options: Required<ProgressOptions>;
  private step: { label: string } | undefined;
  private started: number | undefined;
  private timer: { stop(): void } | undefined;
  private drawn = false;

  constructor(options: ProgressOptions) {
    this.options = { now: () => Date.now(), every: realTimer, lines: false, ...options };
  }

  /** Something new is running: show it, with the time since the first report. */
  readonly report = (message: string): void => {
    if (!this.options.enabled) return;
    this.started ??= this.options.now();
    if (this.options.lines) {
      const elapsed = formatElapsed(this.options.now() - this.started);
      this.options.stream.write(`${printableLine(message)} (${elapsed})\n`);
      return;
    }
    this.step = { label: printableLine(message) };
    this.timer ??= this.options.every(1000, () => this.draw());
    this.draw();
  };

  /** The work is over (or failed): erase the line so that the result starts on a clean one. */
  done(): void {
    this.timer?.stop();
    this.timer = undefined;
    this.step = undefined;
    this.started = undefined;
    if (this.drawn) this.options.stream.write(CLEAR_LINE);
    this.drawn = false;
  }

  private draw(): void {
    if (this.step === undefined || this.started === undefined) return;
    const elapsed = formatElapsed(this.options.now() - this.started);
    const suffix = ` (${elapsed})`;
    // A line longer than the terminal wraps, and \r then redraws only its last row.
    const width = Math.max(20, (this.options.stream.columns ?? 80) - 1);
    // Cut by code points, never inside a surrogate pair.
    const points = Array.from(`… ${this.step.label}`);
    const room = Math.max(1, width - suffix.length - 1);
    const label =
      points.length + suffix.length > width
        ? `${points.slice(0, room).join('')}…`
        : points.join('');
    this.options.stream.write(`${CLEAR_LINE}${label}${suffix}`);
    this.drawn = true;
  }
}
