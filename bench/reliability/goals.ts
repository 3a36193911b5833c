/**
 * A harness's goals: each measured figure against its limit, printed as a table, and the
 * exit code that says whether they all held. Shared by every reliability harness (the
 * webhook's now, the API server's later).
 */

export interface Goal {
  name: string;
  measured: number;
  /** The figure holds when `measured <= limit` (`at most`) or `measured >= limit` (`at least`). */
  limit: number;
  kind: 'at most' | 'at least';
  unit: string;
}

export class Goals {
  readonly goals: Goal[] = [];

  atMost(name: string, measured: number, limit: number, unit = ''): this {
    this.goals.push({ name, measured, limit, kind: 'at most', unit });
    return this;
  }

  atLeast(name: string, measured: number, limit: number, unit = ''): this {
    this.goals.push({ name, measured, limit, kind: 'at least', unit });
    return this;
  }

  static held(goal: Goal): boolean {
    // NaN (a figure that could not be measured) never holds.
    return goal.kind === 'at most' ? goal.measured <= goal.limit : goal.measured >= goal.limit;
  }

  get missed(): Goal[] {
    return this.goals.filter((g) => !Goals.held(g));
  }

  /** The table of goals, one line each, and a last line saying whether all held. */
  report(title: string): string {
    const figure = (n: number, unit: string) => `${Number.isInteger(n) ? n : n.toFixed(n < 10 ? 2 : 1)}${unit ? ` ${unit}` : ''}`;
    const width = Math.max(...this.goals.map((g) => g.name.length));
    const lines = this.goals.map((g) => `  ${Goals.held(g) ? 'ok    ' : 'MISSED'} ${g.name.padEnd(width)}  ${figure(g.measured, g.unit).padStart(12)}  (goal: ${g.kind} ${figure(g.limit, g.unit)})`);
    const missed = this.missed.length;
    return [`${title}: goals`, ...lines, missed ? `${title}: ${missed} of ${this.goals.length} goals MISSED` : `${title}: all ${this.goals.length} goals held`].join('\n');
  }

  /** 0 when every goal held, 1 otherwise. */
  get exitCode(): number {
    return this.missed.length ? 1 : 0;
  }
}
